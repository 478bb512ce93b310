/** Moving an organisation to the other test shard, through the admin's route, as the CLI does. */
import { env } from 'cloudflare:test';
import { expect } from 'vitest';
import { moveClockForTests } from '../../worker/lib/clock';
import { ADMIN_TOKEN, call, json } from './helpers';

/** The shard the directory places an organisation on. */
export async function shardOf(organizationId: string): Promise<number> {
  const shard = await env.DIRECTORY.prepare('SELECT shard FROM organization_shards WHERE organization_id = ?')
    .bind(organizationId)
    .first<number>('shard');
  expect(shard).not.toBeNull();
  return shard!;
}

/** One call of the move: its report (a 200 expected; a 500 let through when a test crashes calls). */
export async function moveStep(organizationId: string, to: number, crashes = false): Promise<Record<string, any>> {
  const response = await call(`/api/admin/organizations/${organizationId}/move`, {
    token: ADMIN_TOKEN,
    body: { to_shard: to },
  });
  if (crashes && response.status === 500) return { step: 'crashed', retry_after_ms: 0, mismatches: [] };
  expect(response.status, await response.clone().text()).toBe(200);
  return json(response);
}

/**
 * Moves an organisation to the other shard, calling until it is done and letting the test clock
 * pass each wait; `between` runs after each call (traffic during the move). Answers each call's report.
 */
export async function moveOrganization(
  organizationId: string,
  between: (report: Record<string, any>) => Promise<void> = async () => {},
  { crashes = false } = {},
): Promise<Array<Record<string, any>>> {
  const to = 1 - (await shardOf(organizationId));
  const reports: Array<Record<string, any>> = [];
  for (let call = 0; call < 100; call++) {
    const report = await moveStep(organizationId, to, crashes);
    reports.push(report);
    await between(report);
    if (report.step === 'done') return reports;
    if (report.retry_after_ms > 0) moveClockForTests(report.retry_after_ms);
  }
  const mismatched = reports.find((report) => report.mismatches.length > 0);
  throw new Error(`The move did not finish: ${JSON.stringify(reports.at(-1))} ${JSON.stringify(mismatched)}`);
}
