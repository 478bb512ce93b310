/** @jsxImportSource hono/jsx */
/**
 * The console's page frame and the pieces every console page shares: the top bar with its
 * navigation and workspace switcher, notices, status pills and data tables. Visitor text is
 * rendered by JSX, which escapes it: text only, never markup.
 */
import type { Child } from 'hono/jsx';
import { roleMay } from '../../platform/access';
import type { MembershipView } from '../../platform/identity';
import type { SessionUser } from '../../platform/identity';
import { Document } from './document';

/** A time as people read it in the console: "2026-11-23 09:41 UTC". */
export const when = (time: string | number | null | undefined) =>
  time === null || time === undefined ? '' : `${new Date(time).toISOString().replace('T', ' ').slice(0, 16)} UTC`;

/** A count with its noun: "1 skill", "3 skills" (the plural form when adding an s is wrong). */
export const counted = (count: number, noun: string, plural = `${noun}s`) => `${count} ${count === 1 ? noun : plural}`;

/** The query string that keeps a console page on one workspace. */
export const wsQuery = (workspaceId: string) => `?ws=${encodeURIComponent(workspaceId)}`;

export interface NavItem {
  href: string;
  label: string;
  current?: boolean;
}

/** The navigation of a site owner's workspace. */
export function workspaceNav(current: MembershipView, active: WorkspaceArea | undefined): NavItem[] {
  return [
    { href: `/integrations${wsQuery(current.workspaceId)}`, label: 'Channels', current: active === 'channels' },
    { href: `/integrations/team${wsQuery(current.workspaceId)}`, label: 'Team', current: active === 'team' },
    ...(roleMay(current.role, 'webhooks.read')
      ? [
          {
            href: `/integrations/webhooks${wsQuery(current.workspaceId)}`,
            label: 'Webhooks',
            current: active === 'webhooks',
          },
        ]
      : []),
    ...(roleMay(current.role, 'emails.read')
      ? [{ href: `/integrations/email${wsQuery(current.workspaceId)}`, label: 'Email', current: active === 'email' }]
      : []),
    ...(roleMay(current.role, 'knowledge.read')
      ? [
          {
            href: `/integrations/knowledge${wsQuery(current.workspaceId)}`,
            label: 'Knowledge',
            current: active === 'knowledge',
          },
        ]
      : []),
    ...(roleMay(current.role, 'insights.read')
      ? [
          {
            href: `/integrations/insights${wsQuery(current.workspaceId)}`,
            label: 'Insights',
            current: active === 'insights',
          },
        ]
      : []),
    ...(roleMay(current.role, 'usage.read')
      ? [{ href: `/integrations/usage${wsQuery(current.workspaceId)}`, label: 'Usage', current: active === 'usage' }]
      : []),
    ...(roleMay(current.role, 'privacy.manage')
      ? [
          {
            href: `/integrations/privacy${wsQuery(current.workspaceId)}`,
            label: 'Privacy',
            current: active === 'privacy',
          },
        ]
      : []),
    { href: '/docs', label: 'Docs' },
  ];
}

/** The areas of a workspace's console. */
export type WorkspaceArea = 'channels' | 'team' | 'webhooks' | 'email' | 'knowledge' | 'usage' | 'insights' | 'privacy';

interface LayoutProps {
  title: string;
  user: SessionUser;
  nav?: NavItem[];
  /** The user's workspaces, for the switcher (shown when there are several). */
  memberships?: MembershipView[];
  current?: MembershipView;
  notice?: string;
  error?: string;
  scripts?: string[];
  children: Child;
}

/** The frame of every signed-in page. */
export function ConsoleLayout({
  title,
  user,
  nav = [],
  memberships = [],
  current,
  notice,
  error,
  scripts = [],
  children,
}: LayoutProps) {
  return (
    <Document title={`${title} · Edge Gateway`}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <div class="inner">
          <a class="brand" href="/console">
            Edge Gateway
          </a>
          {nav.length > 0 ? (
            <nav aria-label="Console" class="console-nav">
              {nav.map((item) => (
                <a href={item.href} aria-current={item.current ? 'page' : undefined}>
                  {item.label}
                </a>
              ))}
            </nav>
          ) : null}
          {memberships.length > 1 && current ? (
            <form class="switcher" method="get" action="/integrations">
              <label for="workspace-switcher" class="sr-only">
                Workspace
              </label>
              <select id="workspace-switcher" name="ws" data-autosubmit>
                {memberships.map((membership) => (
                  <option value={membership.workspaceId} selected={membership.workspaceId === current.workspaceId}>
                    {membership.organizationName} / {membership.workspaceName}
                  </option>
                ))}
              </select>
              <button type="submit" class="button small">
                Switch
              </button>
            </form>
          ) : null}
          {user.isPlatformAdmin && !nav.some((item) => item.href.startsWith('/admin')) ? (
            <a href="/admin/providers" class="admin-link">
              Provider review
            </a>
          ) : null}
          <a class="who" href="/account/security" title={`Account security (${user.email})`}>
            <span class="who-long">{user.email}</span>
            <span class="who-short">Account</span>
          </a>
          <form method="post" action="/auth/sign-out" class="inline">
            <button type="submit" class="button small ghost">
              Sign out
            </button>
          </form>
        </div>
      </header>
      <main id="main" class="page">
        {user.emailVerifiedAt === null ? <VerifyBanner email={user.email} /> : null}
        {notice ? (
          <div class="alert success" role="status">
            {notice}
          </div>
        ) : null}
        {error ? (
          <div class="alert error" role="alert">
            {error}
          </div>
        ) : null}
        {children}
      </main>
      {scripts.map((src) => (
        <script src={src} defer></script>
      ))}
    </Document>
  );
}

/** Until the address is confirmed: what waits on it, and the link sent again (rate-limited). */
function VerifyBanner({ email }: { email: string }) {
  return (
    <div class="alert warning verify-banner" role="status">
      <p>
        <strong>Confirm your email address.</strong> We sent a link to {email}. Until you follow it, you cannot create
        an organisation, accept an invitation, submit a provider profile or claim a lead.
      </p>
      <form method="post" action="/auth/verify/send" class="inline">
        <button type="submit" class="button small">
          Send the link again
        </button>
      </form>
    </div>
  );
}

/** What every page of a workspace receives: who, which workspace, and the notices to show. */
export interface WorkspacePageProps {
  user: SessionUser;
  memberships: MembershipView[];
  current: MembershipView;
  notice?: string;
  error?: string;
}

/** The frame of a page of one workspace: its navigation (with `active` marked) and the switcher. */
export function WorkspaceLayout({
  page,
  title,
  active,
  scripts,
  children,
}: {
  page: WorkspacePageProps;
  title: string;
  active: WorkspaceArea;
  scripts?: string[];
  children: Child;
}) {
  return (
    <ConsoleLayout
      title={title}
      user={page.user}
      nav={workspaceNav(page.current, active)}
      memberships={page.memberships}
      current={page.current}
      notice={page.notice}
      error={page.error}
      scripts={scripts}
    >
      {children}
    </ConsoleLayout>
  );
}

/** A record's state as a coloured pill. */
export function StatusPill({ status }: { status: string }) {
  return <span class={`pill status-${status}`}>{status.replace(/_/g, ' ')}</span>;
}

/** A pointer to the invitations page when someone invited this user. */
export function InvitationsBanner({ count }: { count: number }) {
  if (count === 0) return null;
  return (
    <div class="alert" role="status">
      You have {count === 1 ? 'an invitation' : `${count} invitations`} to join a workspace.{' '}
      <a href="/invitations">Review {count === 1 ? 'it' : 'them'}</a>
    </div>
  );
}

export interface Column<Row> {
  header: string;
  cell: (row: Row) => Child;
  /** A class for the column's cells (`nowrap`, `message`…). */
  class?: string;
  /** Render the cell as the row's header (`<th scope="row">`). */
  rowHeader?: boolean;
  /** The header is for screen readers only (a column of buttons): never an empty header. */
  headerHidden?: boolean;
}

/**
 * A data table. On a phone (at most 640 px) each row becomes a card with every column labelled
 * (styles.ts, `table.cards`), so nothing hides behind a sideways scroll; wider, a table that
 * scrolls sideways rather than squeezing its columns.
 */
export function DataTable<Row>({
  columns,
  rows,
  rowId,
  headless,
  compact,
}: {
  columns: Column<Row>[];
  rows: Row[];
  rowId?: (row: Row) => string | undefined;
  headless?: boolean;
  /** A few short columns (numbers) that fit a phone as a table: no cards. */
  compact?: boolean;
}) {
  return (
    <div class="table-scroll">
      <table class={headless || compact ? undefined : 'cards'}>
        {headless ? null : (
          <thead>
            <tr>
              {columns.map((column) => (
                <th scope="col">
                  {column.headerHidden ? <span class="sr-only">{column.header}</span> : column.header}
                </th>
              ))}
            </tr>
          </thead>
        )}
        <tbody>
          {rows.map((row) => (
            <tr id={rowId?.(row)}>
              {columns.map((column) =>
                column.rowHeader ? (
                  <th scope="row" class={column.class}>
                    {column.cell(row)}
                  </th>
                ) : (
                  <td class={column.class} data-label={column.headerHidden ? undefined : column.header}>
                    {column.cell(row)}
                  </td>
                ),
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
