/** @jsxImportSource hono/jsx */
/**
 * /integrations/usage: a workspace's usage, balance and statements (owners), and the same numbers
 * as CSV files a spreadsheet opens.
 */
import type { Context } from 'hono';
import type { AppEnv } from '../../env';
import { csvHeaders } from '../../lib/csv';
import { dayOf } from '../../lib/periods';
import { listStatements, statementsCsv, usageView, workspaceEscrowIds } from '../../platform/billing';
import { newPageApp } from '../shared/app';
import { chartCsv } from '../shared/charts';
import { noticeOf } from '../shared/notices';
import { consolePageGuards, currentUser } from '../shared/session';
import { workspaceContext } from '../shared/workspace';
import { dailySeries, UsagePage } from './pages';

const csv = (c: Context<AppEnv>, name: string, body: string) => c.body(body, 200, csvHeaders(name));

/** The usage pages. */
export function usagePageRoutes() {
  const app = newPageApp();
  app.use('/integrations/usage', ...consolePageGuards);
  app.use('/integrations/usage/*', ...consolePageGuards);
  app.get('/integrations/usage', async (c) => {
    const context = await workspaceContext(c, 'usage.read');
    const { workspaceId } = context.current;
    const now = c.var.services.clock.now();
    const [usage, statements] = await Promise.all([
      usageView(c.var.reads, workspaceId, { group_by: 'day' }, now),
      workspaceEscrowIds(c.var.reads, workspaceId).then((ids) => listStatements(c.var.reads, ids)),
    ]);
    c.header('Cache-Control', 'no-store');
    return c.html(
      <UsagePage
        user={currentUser(c)}
        {...context}
        notice={noticeOf(c)}
        usage={usage}
        statements={statements}
        today={dayOf(now)}
      />,
    );
  });
  app.get('/integrations/usage/daily.csv', async (c) => {
    const context = await workspaceContext(c, 'usage.read');
    const usage = await usageView(
      c.var.reads,
      context.current.workspaceId,
      { group_by: 'day' },
      c.var.services.clock.now(),
    );
    const { labels, series } = dailySeries(usage);
    return csv(c, `usage-${usage.period.from}-${usage.period.to}.csv`, chartCsv('day', labels, series));
  });
  app.get('/integrations/usage/statements.csv', async (c) => {
    const context = await workspaceContext(c, 'usage.read');
    const ids = await workspaceEscrowIds(c.var.reads, context.current.workspaceId);
    return csv(c, 'statements.csv', statementsCsv(await listStatements(c.var.reads, ids)));
  });
  return app;
}
