/** @jsxImportSource hono/jsx */
/**
 * Email pages: a workspace's email log (owners and admins, recipients masked), and the
 * unsubscribe page every email links to (no sign-in: the signed link is the authority).
 */
import type { EmailLogEntry } from '../../platform/email';
import { directionOf, type Language, visitorMessages } from '../../lib/i18n';
import { Document } from '../shared/document';
import { counted, DataTable, StatusPill, when, WorkspaceLayout, type WorkspacePageProps } from '../shared/layout';

const KIND_LABELS: Record<EmailLogEntry['kind'], string> = {
  lead_alert: 'Lead alert',
  lead_digest: 'Lead digest',
  visitor_continuation: 'Reply to visitor',
  lead_unclaimed: 'Unclaimed lead',
  smtp_test: 'Test email',
  billing_notice: 'Billing notice',
  notice: 'Notice',
  password_reset: 'Password reset',
  email_verification: 'Email confirmation',
};

/** What a status means here, when the pill alone does not say it. */
function statusNote(entry: EmailLogEntry): string | null {
  if (entry.in_digest) return 'in the hourly digest';
  if (entry.status === 'held') {
    return entry.kind === 'visitor_continuation'
      ? 'waits 2 minutes for the visitor to read it'
      : 'waits for the expert’s next digest';
  }
  return entry.last_error;
}

/** The workspace's email log, newest first. */
export function EmailLogPage(props: WorkspacePageProps & { log: EmailLogEntry[]; smtpConfigured: boolean }) {
  return (
    <WorkspaceLayout page={props} title="Email" active="email">
      <h1>Email</h1>
      <p class="lead">
        Experts hear of new leads by email, and visitors who left get the replies they have not read. Every email about
        this workspace’s leads is here, with its recipient masked.
      </p>
      {props.smtpConfigured ? null : (
        <div class="alert warning" role="status">
          No SMTP server is configured (SMTP_HOST), so emails are recorded as skipped and nothing is sent.
        </div>
      )}
      <section class="card" aria-labelledby="email-log-title">
        <h2 id="email-log-title">Email log</h2>
        {props.log.length === 0 ? (
          <p class="muted">No emails yet. The first lead offered to an expert sends one.</p>
        ) : (
          <DataTable
            rows={props.log}
            rowId={(entry) => entry.email_id}
            // Two columns, so that a phone shows everything without scrolling sideways.
            columns={[
              {
                header: 'Email',
                rowHeader: true,
                cell: (entry) => (
                  <>
                    {entry.subject}
                    <br />
                    <small class="muted">
                      {KIND_LABELS[entry.kind]} to <span class="nowrap">{entry.recipient}</span> ·{' '}
                      <span class="nowrap">{when(entry.created_at)}</span>
                    </small>
                  </>
                ),
              },
              {
                header: 'Status',
                cell: (entry) => {
                  const note = statusNote(entry);
                  const attempts = counted(entry.attempts, 'attempt');
                  return (
                    <>
                      <StatusPill status={entry.status} />
                      <br />
                      <small class="muted">
                        {entry.sent_at ? `${when(entry.sent_at)} · ` : ''}
                        {attempts}
                        {note ? ` · ${note}` : ''}
                      </small>
                    </>
                  );
                },
              },
            ]}
          />
        )}
      </section>
    </WorkspaceLayout>
  );
}

/**
 * The unsubscribe page of a link in an email. A visitor's (and a broken link's) speaks the
 * visitor's language (`?lang=` from the email, else the browser's); an expert's or owner's speaks
 * the console's English.
 */
export function UnsubscribePage({
  what,
  done,
  invalid,
  language = 'en',
}: {
  what: 'alerts' | 'visitor' | 'owner';
  done?: boolean;
  invalid?: boolean;
  language?: Language;
}) {
  const say = visitorMessages(language);
  const visitor = what === 'visitor' || invalid;
  const subject =
    what === 'alerts'
      ? 'lead alert emails'
      : what === 'owner'
        ? 'emails about unclaimed leads'
        : 'emails about this conversation';
  const lang = visitor ? language : 'en';
  return (
    <Document
      title={visitor ? say.unsubscribe_title() : 'Email preferences · Edge Gateway'}
      bodyClass="auth-body"
      noIndex
      lang={lang}
      dir={directionOf(lang)}
    >
      <main class="auth-card">
        {visitor ? null : <p class="auth-brand">Edge Gateway</p>}
        {invalid ? (
          <>
            <h1>{say.link_broken()}</h1>
            <p>{say.link_broken_detail()}</p>
          </>
        ) : done ? (
          <>
            <h1>{visitor ? say.unsubscribe_done() : 'You are unsubscribed'}</h1>
            <p role="status">{visitor ? say.unsubscribe_done_detail() : `You will get no more ${subject}.`}</p>
            {what === 'alerts' ? (
              <p>
                You can turn alerts on again on your <a href="/provider/workbench#preferences">workbench</a>.
              </p>
            ) : null}
          </>
        ) : (
          <>
            <h1>{visitor ? say.unsubscribe_ask() : `Stop ${subject}?`}</h1>
            <p>
              {what === 'alerts'
                ? 'You will no longer be emailed when a lead is offered to you. Leads still show in your workbench.'
                : what === 'owner'
                  ? 'You will no longer be emailed when a lead waits for an expert. Recent intake still shows it.'
                  : say.unsubscribe_explain()}
            </p>
            <form method="post">
              <button type="submit" class="button primary">
                {visitor ? say.unsubscribe_button() : 'Unsubscribe'}
              </button>
            </form>
          </>
        )}
      </main>
    </Document>
  );
}
