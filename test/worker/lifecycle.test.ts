/**
 * The data lifecycle (docs/design/data-lifecycle.md): the housekeeping cron archives expired
 * events, audit rows and requests' bodies to R2 (the local bucket of the test pool) before it
 * removes them; an R2 that refuses keeps everything; a second run does nothing more; a tick is
 * bounded. The test clock moves past each retention: no stored timestamp is rewritten. A
 * visitor's erasure reaches every table and archive that held their words and address, while the
 * ledger and the rollups stay equal; an export round-trips behind its signed link.
 */
import { createExecutionContext, createMessageBatch, env, getQueueResult } from 'cloudflare:test';
import { afterAll, describe, expect, it, vi } from 'vitest';
import worker from '../../worker/index';
import { clock, moveClockForTests, resetClockForTests } from '../../worker/lib/clock';
import { sha256Hex } from '../../worker/lib/crypto';
import {
  archiveExpired,
  ERASED,
  EXPORT_PART_BYTES,
  gunzipNdjson,
  retentionFrom,
} from '../../worker/platform/lifecycle';
import { getPage, postForm, signUpOwner } from './console-helpers';
import { channelWithExpert, claimedLeadWithContact } from './email-fixtures';
import { createChannel, visitorSays } from './provider-helpers';
import { ADMIN_TOKEN, call, createTenant, execute, executeBody, json, workerDb } from './helpers';
import { workerFetch } from './self';
import { archived, housekeeping, settled } from './lifecycle-helpers';

const DAY = 24 * 60 * 60 * 1000;
// The clock only moves forward in this file: ids sort by the time they were minted, and an
// isolate never mints one earlier than its last (so a clock moved back would mint "future" ids).
afterAll(() => resetClockForTests());

const count = async (sql: string, ...bind: unknown[]) =>
  (await platformDb
    .prepare(sql)
    .bind(...bind)
    .first<{ n: number }>())!.n;

/** A workspace with one execution (its events, audit row and stored request) made now. */
async function workspaceWithHistory(text: string) {
  const tenant = await createTenant();
  const response = await execute(tenant.token, executeBody({ text }));
  expect(response.status).toBe(200);
  return tenant;
}

describe('retention', () => {
  it('archives expired events and requests’ bodies before removing them; a second run does nothing more', async () => {
    const old = await workspaceWithHistory('An old question about invoices.');
    const events = () => count('SELECT COUNT(*) AS n FROM events WHERE workspace_id = ?', old.workspaceId);
    const eventsBefore = await events();
    expect(eventsBefore).toBeGreaterThan(0);
    moveClockForTests(91 * DAY);
    const fresh = await workspaceWithHistory('A fresh question about invoices.');
    await housekeeping();

    expect(await events()).toBe(0);
    const archivedEvents = await archived(old.workspaceId, 'events');
    expect(archivedEvents).toHaveLength(eventsBefore);
    expect(archivedEvents[0]).toMatchObject({ id: expect.stringMatching(/^evt_/), type: expect.any(String) });
    // The request's body went to the archive; the demand and its execution stay (the ledger names them).
    expect(await archived(old.workspaceId, 'executions')).toEqual([
      expect.objectContaining({ text: 'An old question about invoices.' }),
    ]);
    expect(
      await platformDb.prepare('SELECT text FROM demands WHERE workspace_id = ?').bind(old.workspaceId).all(),
    ).toMatchObject({ results: [{ text: null }] });
    expect(await count('SELECT COUNT(*) AS n FROM executions WHERE workspace_id = ?', old.workspaceId)).toBe(1);
    // The fresh workspace keeps everything; audit rows stay 400 days.
    expect(
      await count('SELECT COUNT(*) AS n FROM demands WHERE workspace_id = ? AND text IS NOT NULL', fresh.workspaceId),
    ).toBe(1);
    expect(await count('SELECT COUNT(*) AS n FROM audit_log WHERE workspace_id = ?', old.workspaceId)).toBeGreaterThan(
      0,
    );

    const objects = await count('SELECT COUNT(*) AS n FROM archive_objects');
    const again = await archiveExpired(workerDb(), env.ARCHIVE, retentionFrom({}), clock.now());
    expect(again).toEqual({ events: 0, audit: 0, executions: 0, conversations: 0, refused: 0 });
    expect(await count('SELECT COUNT(*) AS n FROM archive_objects')).toBe(objects);

    moveClockForTests(310 * DAY);
    await housekeeping();
    expect(await count('SELECT COUNT(*) AS n FROM audit_log WHERE workspace_id = ?', old.workspaceId)).toBe(0);
    expect((await archived(old.workspaceId, 'audit')).length).toBeGreaterThan(0);
  });

  it('an archive that refuses removes nothing; a tick is bounded', async () => {
    const tenant = await workspaceWithHistory('A question kept while R2 is down.');
    for (let index = 0; index < 3; index++)
      expect((await execute(tenant.token, executeBody({ text: `More ${index}` }))).status).toBe(200);
    moveClockForTests(91 * DAY);
    const db = workerDb();
    const events = () => count('SELECT COUNT(*) AS n FROM events WHERE workspace_id = ?', tenant.workspaceId);
    const before = await events();
    const refusing = { put: () => Promise.reject(new Error('R2 is down')), get: async () => null };
    const refused = await archiveExpired(db, refusing, retentionFrom({}), clock.now());
    expect(refused.refused).toBeGreaterThan(0);
    expect([refused.events, refused.executions]).toEqual([0, 0]);
    expect(await events()).toBe(before);
    expect(
      await count('SELECT COUNT(*) AS n FROM demands WHERE workspace_id = ? AND text IS NOT NULL', tenant.workspaceId),
    ).toBe(4);

    const bounded = await archiveExpired(db, env.ARCHIVE, retentionFrom({}), clock.now(), 2);
    expect(bounded.events + bounded.audit + bounded.executions).toBeLessThanOrEqual(2);
    expect(await events()).toBe(before - bounded.events);
  });

  it('takes its periods from the settings, within bounds', () => {
    expect(retentionFrom({ RETENTION_EVENTS_DAYS: 7, RETENTION_AUDIT_DAYS: 0 })).toMatchObject({
      events: 7,
      audit: 400,
    });
  });
});

const ledgerFootprint = async (workspaceId: string) => ({
  entries: await platformDb.prepare('SELECT COUNT(*) AS n, SUM(amount_minor) AS total FROM ledger_entries').first(),
  rollups: (
    await platformDb
      .prepare('SELECT * FROM daily_rollups WHERE workspace_id = ? ORDER BY 1, 2, 3')
      .bind(workspaceId)
      .all()
  ).results,
});

describe('a visitor’s erasure and the workspace’s export', () => {
  it('erases the texts and contact from every table and archive that held them; money and counts stay', async () => {
    const context = await channelWithExpert();
    const lead = await claimedLeadWithContact(context);
    const workspaceId = context.tenant.workspaceId;
    moveClockForTests(91 * DAY);
    await housekeeping(); // its events and request's words go to the archive first
    expect((await archived(workspaceId, 'executions')).length).toBeGreaterThan(0);
    const before = await ledgerFootprint(workspaceId);

    const ask = () =>
      call(`/api/privacy/erasures?workspace_id=${workspaceId}`, {
        token: ADMIN_TOKEN,
        body: { contact_email: lead.email.toUpperCase() },
      });
    const asked = await ask();
    expect(asked.status).toBe(202);
    const request = await json(asked);
    const done = await settled(request.id, workspaceId);
    expect(done.result).toMatchObject({ conversations: 1, leads: 1 });
    // The workspace's list has it, newest first, done.
    const listed = await json(await call(`/api/privacy/requests?workspace_id=${workspaceId}`, { token: ADMIN_TOKEN }));
    expect(listed.data[0]).toMatchObject({ id: request.id, kind: 'erasure', status: 'done' });
    // Asked again once it is done: it runs again, as a request of its own, over what the address
    // has now (nothing more here; privacy.cases.ts has a visitor who came back).
    const again = await json(await ask());
    expect(again.id).not.toBe(request.id);
    expect((await settled(again.id, workspaceId)).result).toMatchObject({ conversations: 0, leads: 0 });

    const texts = await platformDb
      .prepare('SELECT DISTINCT text FROM messages WHERE conversation_id = ?')
      .bind(lead.conversationId)
      .all();
    expect(texts.results).toEqual([{ text: ERASED }]);
    expect(
      await platformDb
        .prepare('SELECT contact_email, contact_name, summary FROM leads WHERE id = ?')
        .bind(lead.leadId)
        .first(),
    ).toEqual({ contact_email: null, contact_name: ERASED, summary: ERASED });
    const everywhere = JSON.stringify([
      (await platformDb.prepare('SELECT data FROM events WHERE workspace_id = ?').bind(workspaceId).all()).results,
      (await platformDb.prepare('SELECT * FROM demands WHERE workspace_id = ?').bind(workspaceId).all()).results,
      (await platformDb.prepare('SELECT target FROM privacy_requests WHERE id = ?').bind(request.id).all()).results,
      await archived(workspaceId, 'events'),
      await archived(workspaceId, 'executions'),
    ]).toLowerCase();
    expect(everywhere).not.toContain(lead.email.toLowerCase());
    expect(everywhere).not.toContain('i need help with my payroll');
    expect(await ledgerFootprint(workspaceId)).toEqual(before);

    // Another workspace's conversation is not found.
    const other = await createTenant();
    const foreign = await call(`/api/privacy/erasures?workspace_id=${other.workspaceId}`, {
      token: ADMIN_TOKEN,
      body: { conversation_id: lead.conversationId },
    });
    expect(foreign.status).toBe(404);
    const elsewhere = await call(`/api/privacy/requests/${request.id}?workspace_id=${other.workspaceId}`, {
      token: ADMIN_TOKEN,
    });
    expect(elsewhere.status).toBe(404);
  });

  it('exports the workspace as gzip NDJSON behind a link signed for 24 hours', async () => {
    const context = await channelWithExpert();
    const lead = await claimedLeadWithContact(context);
    const workspaceId = context.tenant.workspaceId;
    const asked = await call(`/api/privacy/exports?workspace_id=${workspaceId}`, { token: ADMIN_TOKEN, body: {} });
    expect(asked.status).toBe(202);
    const done = await settled((await json(asked)).id, workspaceId);
    const url = new URL(done.download_url, 'http://gateway.test');
    const download = await workerFetch(url.href);
    expect(download.headers.get('Content-Type')).toBe('application/gzip');
    const lines = await gunzipNdjson(await download.arrayBuffer());
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ table: 'channels', id: context.channelKey }),
        expect.objectContaining({ table: 'conversations', id: lead.conversationId }),
        expect.objectContaining({ table: 'leads', id: lead.leadId, contact_email: lead.email }),
        expect.objectContaining({ table: 'messages', conversation_id: lead.conversationId }),
      ]),
    );
    // Erased data is not in a later export: the marker is.
    const erasure = await call(`/api/privacy/erasures?workspace_id=${workspaceId}`, {
      token: ADMIN_TOKEN,
      body: { conversation_id: lead.conversationId },
    });
    await settled((await json(erasure)).id, workspaceId);
    const again = await settled(
      (await json(await call(`/api/privacy/exports?workspace_id=${workspaceId}`, { token: ADMIN_TOKEN, body: {} }))).id,
      workspaceId,
    );
    const after = await gunzipNdjson(
      await (await workerFetch(new URL(again.download_url, 'http://gateway.test').href)).arrayBuffer(),
    );
    expect(JSON.stringify(after)).not.toContain(lead.email);
    expect(after.filter((line) => line.table === 'messages').every((line) => line.text === ERASED)).toBe(true);
    const tampered = new URL(url);
    tampered.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 1));
    expect((await workerFetch(tampered.href)).status).toBe(403);
    moveClockForTests(24 * 60 * 60 * 1000 + 1000);
    expect((await workerFetch(url.href)).status).toBe(403);
  });

  it('a large export goes up to R2 in parts, and downloads whole as R2 streams it', async () => {
    const context = await channelWithExpert();
    const lead = await claimedLeadWithContact(context);
    const workspaceId = context.tenant.workspaceId;
    // 11,000 messages of 1,000 random hex digits: 11 MB of text that gzip about halves, so more
    // than one part of R2's smallest size (the local R2 holds parts to R2's rules).
    const bulk = 11_000;
    await platformDb
      .prepare(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${bulk})
       INSERT INTO messages (id, conversation_id, role, text, created_at)
       SELECT printf('msg_zz_bulk_%05d', i), ?, 'visitor', hex(randomblob(500)), ? FROM n`,
      )
      .bind(lead.conversationId, clock.now())
      .run();
    const asked = await call(`/api/privacy/exports?workspace_id=${workspaceId}`, { token: ADMIN_TOKEN, body: {} });
    const done = await settled((await json(asked)).id, workspaceId);
    expect(done.result.bytes).toBeGreaterThan(EXPORT_PART_BYTES);
    const download = await workerFetch(new URL(done.download_url, 'http://gateway.test').href);
    expect(download.headers.get('Content-Length')).toBe(String(done.result.bytes));
    const lines = await gunzipNdjson(await download.arrayBuffer());
    expect(lines).toHaveLength(done.result.rows);
    const bulkLines = lines.filter((line) => String(line.id).startsWith('msg_zz_bulk_'));
    expect(bulkLines).toHaveLength(bulk);
    expect(bulkLines.at(-1)).toMatchObject({ table: 'messages', conversation_id: lead.conversationId });
    expect(String(bulkLines.at(-1)!.text)).toMatch(/^[0-9A-F]{1000}$/);
  });

  it('a job that fails its last attempt marks the request failed, and an erasure asked again runs anew', async () => {
    const context = await channelWithExpert();
    const lead = await claimedLeadWithContact(context);
    const workspaceId = context.tenant.workspaceId;
    // Rows written as the routes write them, so that only what this test runs runs them.
    const request = (id: string, kind: string, targetKind: string, target: string, hash: string, state: string) =>
      platformDb
        .prepare(
          'INSERT INTO privacy_requests (id, workspace_id, kind, target_kind, target, target_hash, status, ' +
            "requested_by, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'admin:test', ?)",
        )
        .bind(id, workspaceId, kind, targetKind, target, hash, state, clock.now())
        .run();
    await request('pvr_failing_export', 'export', 'workspace', workspaceId, 'export-hash', 'queued');
    // Storage that refuses every write: R2 down, with an error that quotes an address.
    const broken = {
      put: async () => {
        throw new Error(`R2 refused the object of ${lead.email}`);
      },
    };
    const run = async (attempts: number) => {
      const body = { kind: 'privacy.run', request_id: 'pvr_failing_export' };
      const batch = createMessageBatch('events', [{ id: 'export', timestamp: new Date(), attempts, body }]);
      const execution = createExecutionContext();
      await worker.queue(batch, { ...env, ARCHIVE: broken as unknown as R2Bucket }, execution);
      return getQueueResult(batch, execution);
    };
    const row = (id: string) =>
      platformDb.prepare('SELECT status, target, result FROM privacy_requests WHERE id = ?').bind(id).first<any>();

    // Before the last attempt: retried, still queued.
    expect(await run(1)).toMatchObject({ retryMessages: [{ msgId: 'export' }], explicitAcks: [] });
    expect((await row('pvr_failing_export')).status).toBe('queued');
    // The last one: acknowledged and failed, with a reason that names no address.
    expect(await run(4)).toMatchObject({ retryMessages: [], explicitAcks: ['export'] });
    const failed = await row('pvr_failing_export');
    expect(failed.status).toBe('failed');
    expect(JSON.parse(failed.result).error).toMatch(/^R2 refused the object of \S+\*\*\*/);
    expect(failed.result).not.toContain(lead.email);
    const shown = await call(`/api/privacy/requests/pvr_failing_export?workspace_id=${workspaceId}`, {
      token: ADMIN_TOKEN,
    });
    expect(await json(shown)).toMatchObject({ status: 'failed' });

    // A failed erasure (its address kept only as its hash), asked again, runs anew and is done.
    const contactHash = await sha256Hex(`contact:${lead.email.toLowerCase()}`);
    await request('pvr_failed_erasure', 'erasure', 'contact', contactHash, contactHash, 'failed');
    const again = await call(`/api/privacy/erasures?workspace_id=${workspaceId}`, {
      token: ADMIN_TOKEN,
      body: { contact_email: lead.email },
    });
    expect(again.status).toBe(202);
    const anew = (await json(again)).id;
    expect(anew).not.toBe('pvr_failed_erasure');
    expect((await settled(anew, workspaceId)).result).toMatchObject({ leads: 1 });
    expect((await row(anew)).target).toBe(contactHash);
    expect((await row('pvr_failed_erasure')).status).toBe('failed');
  });
});

describe('the privacy page', () => {
  it('lets an owner export the workspace, erase a visitor by address, and follow each request', async () => {
    const owner = await signUpOwner();
    const ws = `?ws=${owner.workspaceId}`;
    const created = await postForm(`/integrations/channels${ws}`, { name: 'Shop', domain: 'consultation' }, owner);
    expect(created.status).toBe(303);
    const page = await getPage(`/integrations/privacy${ws}`, owner.cookie);
    expect(page.status).toBe(200);
    const empty = await page.text();
    expect(empty).toContain('No requests yet.');
    expect(empty).toMatch(/<a[^>]*href="\/integrations\/privacy\?ws=[^"]*"[^>]*aria-current="page"/);

    // Bad input is shown on the page, and nothing is asked.
    const refused = await postForm(`/integrations/privacy/erasures${ws}`, { contact_email: 'not an address' }, owner);
    expect(refused.status).toBe(422);
    const refusedText = await refused.text();
    expect(refusedText).toContain('Enter the address the visitor left');
    expect(refusedText).toContain('Tick the box to confirm');
    expect(await count('SELECT COUNT(*) AS n FROM privacy_requests WHERE workspace_id = ?', owner.workspaceId)).toBe(0);

    const exported = await postForm(`/integrations/privacy/exports${ws}`, {}, owner);
    expect(exported.status).toBe(303);
    expect(exported.headers.get('Location')).toContain('notice=export_requested');
    const erased = await postForm(
      `/integrations/privacy/erasures${ws}`,
      { contact_email: 'Gone@Example.com', confirm: 'yes' },
      owner,
    );
    expect(erased.headers.get('Location')).toContain('notice=contact_erased');

    // Both run on the queue; the page shows them done, the export with its download.
    let text = '';
    await vi.waitUntil(
      async () => {
        text = await (await getPage(`/integrations/privacy${ws}`, owner.cookie)).text();
        return (text.match(/status-done/g) ?? []).length === 2;
      },
      { timeout: 10_000, interval: 50 },
    );
    expect(text).toContain('Export of the workspace');
    expect(text).toContain('Erasure of a contact’s data');
    expect(text).toContain('0 conversations, 0 leads erased');
    // The export's rows and its compressed size, as read back from the request.
    expect(text).toMatch(/1 row, \d+ B</);
    // The erased address is not shown, nor kept.
    expect(text.toLowerCase()).not.toContain('gone@example.com');
    const download = text.match(/href="(\/integrations\/privacy\/exports\/pvr_[^"]+)"/)![1]!.replace(/&amp;/g, '&');
    const signed = await getPage(download, owner.cookie);
    expect(signed.status).toBe(303);
    const file = await workerFetch(new URL(signed.headers.get('Location')!, 'http://gateway.test').href);
    expect(file.status).toBe(200);
    const lines = await gunzipNdjson(await file.arrayBuffer());
    expect(lines).toEqual([expect.objectContaining({ table: 'channels', name: 'Shop' })]);

    // Another workspace's export is not found through this one.
    const other = await signUpOwner();
    expect((await getPage(download.replace(owner.workspaceId, other.workspaceId), other.cookie)).status).toBe(404);
  });
});

describe('conversation retention', () => {
  it('archives a conversation with its messages after its workspace’s period since the last message', async () => {
    const keeps = async (days: number) => {
      const tenant = await createTenant({ scopes: ['execute', 'channels:write'] });
      const channelKey = await createChannel(tenant.token);
      const said = await visitorSays(channelKey, { message: { text: `Kept ${days} days: my boiler leaks.` } });
      // The workspace's setting (the console's settings form writes the same column).
      await platformDb
        .prepare('UPDATE workspaces SET conversation_retention_days = ? WHERE id = ?')
        .bind(days, tenant.workspaceId)
        .run();
      const conversation = await platformDb
        .prepare('SELECT conversation_id AS id FROM demands WHERE id = ?')
        .bind(said.demand_id)
        .first<{ id: string }>();
      return { workspaceId: tenant.workspaceId, conversationId: conversation!.id };
    };
    const short = await keeps(30);
    const long = await keeps(400);
    moveClockForTests(31 * DAY);
    await housekeeping();
    const messages = (id: string) => count('SELECT COUNT(*) AS n FROM messages WHERE conversation_id = ?', id);
    expect(await messages(short.conversationId)).toBe(0);
    expect(await messages(long.conversationId)).toBeGreaterThan(0);
    expect(
      await platformDb
        .prepare('SELECT archived_at IS NOT NULL AS archived FROM conversations WHERE id = ?')
        .bind(short.conversationId)
        .first(),
    ).toEqual({ archived: 1 });
    const [line] = await archived(short.workspaceId, 'conversations');
    expect(line).toMatchObject({ id: short.conversationId });
    expect(JSON.stringify(line)).toContain('Kept 30 days: my boiler leaks.');
  });
});

describe('the size of the database', () => {
  it('lists each table’s rows and estimated bytes, largest first, for administrators', async () => {
    const tenant = await workspaceWithHistory('A question that takes some room.');
    const response = await call('/api/admin/storage', { token: ADMIN_TOKEN });
    expect(response.status).toBe(200);
    const body = await json(response);
    const executions = body.tables.find((table: { table: string }) => table.table === 'executions');
    expect(executions.rows).toBeGreaterThan(0);
    expect(executions.estimated_bytes).toBeGreaterThan(executions.rows * 50);
    const bytes = body.tables.map((table: { estimated_bytes: number }) => table.estimated_bytes);
    expect(bytes).toEqual([...bytes].sort((a, b) => b - a));
    expect((await call('/api/admin/storage', { token: tenant.token })).status).toBe(403);
  });
});

import './privacy.cases';
import { platformDb } from './platform-db';
