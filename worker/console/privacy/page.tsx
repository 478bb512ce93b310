/** @jsxImportSource hono/jsx */
/**
 * /integrations/privacy: a workspace owner's data requests (docs/design/data-lifecycle.md): export
 * the workspace's data, erase one visitor's by their address, and where each request stands. A
 * conversation's own page erases that conversation.
 */
import type { PrivacyRow } from '../../platform/lifecycle';
import { Field, type FieldErrors } from '../shared/forms';
import {
  counted,
  DataTable,
  StatusPill,
  when,
  WorkspaceLayout,
  wsQuery,
  type WorkspacePageProps,
} from '../shared/layout';

export interface PrivacyPageProps extends WorkspacePageProps {
  requests: PrivacyRow[];
  errors?: FieldErrors;
  values?: Record<string, string>;
}

/** What a request asked for, in words (an erased address is never shown: it is kept only as its hash). */
function requestedOf(row: PrivacyRow): string {
  if (row.kind === 'export')
    return row.targetKind === 'contact' ? 'Export of one contact’s data' : 'Export of the workspace';
  return row.targetKind === 'conversation' ? `Erasure of conversation ${row.target}` : 'Erasure of a contact’s data';
}

/** A download's size as people read it: 412 B, 3.4 kB, 12.7 MB (SI units, as browsers show downloads). */
function sizeOf(bytes: number): string {
  if (bytes < 1_000) return `${bytes} B`;
  const [value, unit] = bytes < 1_000_000 ? [bytes / 1_000, 'kB'] : [bytes / 1_000_000, 'MB'];
  return `${value.toFixed(1).replace(/\.0$/, '')} ${unit}`;
}

/** What came of it: counts when done, the reason when failed. */
function outcomeOf(row: PrivacyRow): string {
  const result = row.result ?? {};
  if (row.status === 'queued') return 'Runs within seconds.';
  if (row.status === 'running') return 'Erasing now.';
  if (row.status === 'failed') return `Failed: ${String(result.error ?? 'unknown')}`;
  if (row.status === 'expired') return 'No longer kept (after 7 days, or deleted by a later erasure).';
  if (row.kind === 'export') return `${counted(Number(result.rows ?? 0), 'row')}, ${sizeOf(Number(result.bytes ?? 0))}`;
  const conversations = counted(Number(result.conversations ?? 0), 'conversation');
  return `${conversations}, ${counted(Number(result.leads ?? 0), 'lead')} erased`;
}

/** The privacy page. */
export function PrivacyPage(props: PrivacyPageProps) {
  const ws = wsQuery(props.current.workspaceId);
  return (
    <WorkspaceLayout page={props} title="Privacy" active="privacy">
      <h1>Privacy</h1>
      <p class="lead">
        Export this workspace’s data, or erase what one visitor left: their messages, contact details and their words in
        the archives become “[erased]”. Counts and money records stay.
      </p>
      <div class="grid-2">
        <section class="card" aria-labelledby="export-title">
          <h2 id="export-title">Export the data</h2>
          <p>
            Channels, conversations with their messages, and leads with their history, as gzip NDJSON (one JSON line per
            row). The download link below works for 24 hours from when you follow it; the export is kept 7 days, and an
            erasure deletes the exports made before it.
          </p>
          <form method="post" action={`/integrations/privacy/exports${ws}`}>
            <button type="submit" class="button">
              Export this workspace
            </button>
          </form>
        </section>
        <section class="card" aria-labelledby="erase-contact-title">
          <h2 id="erase-contact-title">Erase a visitor’s data</h2>
          <form method="post" action={`/integrations/privacy/erasures${ws}`} class="stack" novalidate>
            <Field
              name="contact_email"
              label="The visitor’s email address"
              type="email"
              autocomplete="off"
              value={props.values?.contact_email ?? ''}
              errors={props.errors}
              hint="Every lead they left with this address, and its conversation."
              required
            />
            <label class="check">
              <input
                type="checkbox"
                name="confirm"
                value="yes"
                required
                aria-invalid={props.errors?.confirm ? 'true' : undefined}
                aria-describedby={props.errors?.confirm ? 'f-confirm-error' : undefined}
              />{' '}
              I understand it cannot be undone
            </label>
            {props.errors?.confirm ? (
              <p class="field-error" id="f-confirm-error">
                {props.errors.confirm}
              </p>
            ) : null}
            <p>
              <button type="submit" class="button danger">
                Erase this visitor’s data
              </button>
            </p>
          </form>
        </section>
      </div>
      <section class="card" aria-labelledby="requests-title">
        <h2 id="requests-title">Requests</h2>
        {props.requests.length === 0 ? (
          <p class="muted">No requests yet.</p>
        ) : (
          <DataTable
            rows={props.requests}
            rowId={(row) => row.id}
            columns={[
              {
                header: 'Request',
                rowHeader: true,
                cell: (row) => (
                  <>
                    {requestedOf(row)}
                    <br />
                    <small class="muted nowrap">{when(row.createdAt)}</small>
                  </>
                ),
              },
              {
                header: 'State',
                cell: (row) => (
                  <>
                    <StatusPill status={row.status} />
                    <br />
                    <small class="muted">{outcomeOf(row)}</small>
                    {row.kind === 'export' && row.status === 'done' ? (
                      <>
                        <br />
                        <a href={`/integrations/privacy/exports/${row.id}/download${ws}`}>Download</a>
                      </>
                    ) : null}
                  </>
                ),
              },
            ]}
          />
        )}
      </section>
    </WorkspaceLayout>
  );
}
