/**
 * Erasures and exports under the conditions a probe found them wanting (docs/design/data-lifecycle.md):
 * a visitor who comes back after an erasure, an export made before one, an open lead of an erased
 * visitor, two erasures at once, a crash in the middle of one, a declined question asked twice, and
 * the archive's own bookkeeping (every audit row archived once over many batches; an erasure opens
 * only the objects that name its visitor; a conversation written to after its archive is archived
 * again). After each erasure, every table of D1 and every R2 object of the workspace is scanned
 * for what was erased, and the books still balance.
 */
import { createExecutionContext, createMessageBatch, env, getQueueResult } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import worker from '../../worker/index';
import { clock, moveClockForTests } from '../../worker/lib/clock';
import { archiveExpired, ERASED, gunzipNdjson, PRIVACY_STUCK_AFTER_MS } from '../../worker/platform/lifecycle';
import { eraseInArchive, erasureSubjects } from '../../worker/platform/lifecycle/erasure';
import { credit, expectBalancedBooks } from './billing-helpers';
import { channelWithExpert, claimedLeadWithContact, rows, VISITOR } from './email-fixtures';
import { ADMIN_TOKEN, call, json, servicesIn, workerDb } from './helpers';
import { archived, housekeeping, settled } from './lifecycle-helpers';
import { createActiveExpert, createChannel, sessionCall, visitorSays } from './provider-helpers';
import { workerFetch } from './self';
import { platformDb } from './platform-db';

const DAY = 24 * 60 * 60 * 1000;
const erase = (workspaceId: string, body: Record<string, string>) =>
  call(`/api/privacy/erasures?workspace_id=${workspaceId}`, { token: ADMIN_TOKEN, body });
const exportOf = (workspaceId: string) =>
  call(`/api/privacy/exports?workspace_id=${workspaceId}`, { token: ADMIN_TOKEN, body: {} });

/** Tables that hold no visitor data of their own, or only indexes of what the scan reads elsewhere. */
const SKIPPED_TABLE = /^(sqlite_|_cf_|d1_migrations$|knowledge_fts)/;

/**
 * The erasure scan: no row of any D1 table, and no archived or exported object of the workspace,
 * holds any of `needles` (an address, the words a visitor wrote).
 */
async function expectErasedEverywhere(workspaceId: string, needles: string[]) {
  const lowered = needles.map((needle) => needle.toLowerCase());
  const tables = await platformDb.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all<{
    name: string;
  }>();
  for (const { name } of tables.results) {
    if (SKIPPED_TABLE.test(name)) continue;
    const text = JSON.stringify((await platformDb.prepare(`SELECT * FROM "${name}"`).all()).results).toLowerCase();
    for (const needle of lowered) expect(text.includes(needle), `${needle} in table ${name}`).toBe(false);
  }
  for (const prefix of [`archive/${workspaceId}/`, `exports/${workspaceId}/`]) {
    const listed = await env.ARCHIVE.list({ prefix });
    for (const object of listed.objects) {
      const text = JSON.stringify(
        await gunzipNdjson(await (await env.ARCHIVE.get(object.key))!.arrayBuffer()),
      ).toLowerCase();
      for (const needle of lowered) expect(text.includes(needle), `${needle} in ${object.key}`).toBe(false);
    }
  }
  await expectBalancedBooks();
}

/** A visitor of the channel who leaves this address, in a conversation of their own: the lead, open. */
async function visitorWithAddress(channelKey: string, email: string, text: string, ip: string) {
  const first = await visitorSays(channelKey, { message: { text } }, ip);
  const done = await visitorSays(
    channelKey,
    { session_id: first.session_id, trigger: 'lead_capture', contact: { ...VISITOR, email } },
    ip,
  );
  return { leadId: done.lead_id as string, session: first.session_id as string };
}

describe('erasure, again', () => {
  it('an erasure asked after the visitor came back erases what they left since', async () => {
    const context = await channelWithExpert();
    const lead = await claimedLeadWithContact(context);
    const workspaceId = context.tenant.workspaceId;
    const first = await settled((await json(await erase(workspaceId, { contact_email: lead.email }))).id, workspaceId);
    expect(first.result).toMatchObject({ leads: 1 });
    // The visitor comes back with the same address and asks something new.
    const back = await visitorWithAddress(
      context.channelKey,
      lead.email,
      'Back again about my pension plan.',
      '198.18.7.1',
    );
    const second = await json(await erase(workspaceId, { contact_email: lead.email.toUpperCase() }));
    expect(second.id).not.toBe(first.id);
    expect((await settled(second.id, workspaceId)).result).toMatchObject({ leads: 1, conversations: 1 });
    const [row] = await rows('SELECT contact_email, summary, status FROM leads WHERE id = ?', back.leadId);
    expect(row).toMatchObject({ contact_email: null, summary: ERASED });
    await expectErasedEverywhere(workspaceId, [lead.email, 'my pension plan', 'help with my payroll']);
  });

  it('an erasure deletes the exports made before it; an export is kept 7 days', async () => {
    const context = await channelWithExpert();
    const lead = await claimedLeadWithContact(context);
    const workspaceId = context.tenant.workspaceId;
    const made = await settled((await json(await exportOf(workspaceId))).id, workspaceId);
    const link = new URL(made.download_url, 'http://gateway.test').href;
    expect((await workerFetch(link)).status).toBe(200);
    await settled((await json(await erase(workspaceId, { contact_email: lead.email }))).id, workspaceId);
    // The old export held the address: gone, and its link says so.
    const after = await json(
      await call(`/api/privacy/requests/${made.id}?workspace_id=${workspaceId}`, { token: ADMIN_TOKEN }),
    );
    expect(after).toMatchObject({ status: 'expired' });
    expect(after.download_url).toBeUndefined();
    expect((await workerFetch(link)).status).toBe(404);
    await expectErasedEverywhere(workspaceId, [lead.email, 'help with my payroll']);

    // A later export is kept 7 days, then housekeeping deletes it.
    const later = await settled((await json(await exportOf(workspaceId))).id, workspaceId);
    expect(await env.ARCHIVE.head(`exports/${workspaceId}/${later.id}.ndjson.gz`)).not.toBeNull();
    moveClockForTests(6 * DAY);
    await housekeeping();
    expect(await env.ARCHIVE.head(`exports/${workspaceId}/${later.id}.ndjson.gz`)).not.toBeNull();
    moveClockForTests(DAY + 60_000);
    await housekeeping();
    expect(await env.ARCHIVE.head(`exports/${workspaceId}/${later.id}.ndjson.gz`)).toBeNull();
    const expired = await call(`/api/privacy/requests/${later.id}?workspace_id=${workspaceId}`, { token: ADMIN_TOKEN });
    expect(await json(expired)).toMatchObject({ status: 'expired' });
  });

  it('an erased visitor’s open lead is withdrawn, and a fee paid for an erased lead comes back', async () => {
    const domain = `fee-${Math.random().toString(36).slice(2, 9)}`;
    const created = await call('/api/admin/domains', {
      token: ADMIN_TOKEN,
      body: { domain, name: domain, lead_price_minor: 250 },
    });
    expect(created.status).toBe(201);
    const context = await channelWithExpert();
    const channelKey = await createChannel(context.tenant.token, { domain, leadCapture: { email: 'required' } });
    const expert = await createActiveExpert({ domains: [domain] });
    const escrowId = (await json(await sessionCall(expert.cookie, '/api/provider/credits'))).escrow_id;
    await credit(escrowId, 1_000);
    const email = `erased.${crypto.randomUUID().slice(0, 8)}@example.org`;
    const paid = await visitorWithAddress(channelKey, email, 'First question about invoices.', '198.18.7.2');
    const claimed = await sessionCall(expert.cookie, `/api/provider/workbench/leads/${paid.leadId}/claim`, {
      method: 'POST',
    });
    expect(claimed.status).toBe(200);
    const open = await visitorWithAddress(channelKey, email, 'Second question about receipts.', '198.18.7.3');
    const balance = async () => (await json(await sessionCall(expert.cookie, '/api/provider/credits'))).balance_minor;
    expect(await balance()).toBe(750);

    const workspaceId = context.tenant.workspaceId;
    await settled((await json(await erase(workspaceId, { contact_email: email }))).id, workspaceId);
    // The open lead is withdrawn: not offered, not claimable, its history says why.
    const [withdrawn] = await rows('SELECT status FROM leads WHERE id = ?', open.leadId);
    expect(withdrawn).toEqual({ status: 'lost' });
    const available = await json(await sessionCall(expert.cookie, '/api/provider/workbench/leads?tab=available'));
    expect(JSON.stringify(available)).not.toContain(open.leadId);
    const refused = await sessionCall(expert.cookie, `/api/provider/workbench/leads/${open.leadId}/claim`, {
      method: 'POST',
    });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(await rows('SELECT note FROM lead_events WHERE lead_id = ? AND to_status = ?', open.leadId, 'lost')).toEqual(
      [{ note: 'Withdrawn: the visitor’s data was erased.' }],
    );
    // The fee of the claimed one is given back, once, whatever runs again.
    expect(await balance()).toBe(1_000);
    await settled((await json(await erase(workspaceId, { contact_email: email }))).id, workspaceId);
    expect(await balance()).toBe(1_000);
    await expectErasedEverywhere(workspaceId, [email, 'question about invoices', 'question about receipts']);
  });
});

describe('erasures at once, and a crash in the middle', () => {
  /** Runs privacy messages as one queue batch, with the bucket given. */
  async function runBatch(ids: string[], bucket: R2Bucket = env.ARCHIVE, attempts = 1) {
    const messages = ids.map((id) => ({
      id,
      timestamp: new Date(),
      attempts,
      body: { kind: 'privacy.run', request_id: id },
    }));
    const batch = createMessageBatch('events', messages);
    const execution = createExecutionContext();
    await worker.queue(batch, { ...env, ARCHIVE: bucket }, execution);
    return getQueueResult(batch, execution);
  }

  /** A request row as the route writes it, whose message the test sends itself (or loses). */
  const queuedErasure = async (id: string, workspaceId: string, email: string) =>
    platformDb
      .prepare(
        'INSERT INTO privacy_requests (id, workspace_id, kind, target_kind, ' +
          'target, target_hash, status, requested_by, ' +
          "started_at, created_at) VALUES (?, ?, 'erasure', 'contact', ?, ?, 'queued', 'admin:test', ?, ?)",
      )
      .bind(id, workspaceId, email, `hash-${id}`, clock.now(), clock.now())
      .run();

  it('two erasures in one batch both hold in the archive objects they share', async () => {
    const context = await channelWithExpert();
    const workspaceId = context.tenant.workspaceId;
    const one = await claimedLeadWithContact(context);
    const two = await claimedLeadWithContact(context);
    // Both visitors' events go to the archive, in the objects of the same day.
    moveClockForTests(91 * DAY);
    await housekeeping();
    const events = await archived(workspaceId, 'events');
    expect(JSON.stringify(events)).toContain(one.leadId);
    expect(JSON.stringify(events)).toContain(two.leadId);
    await queuedErasure('pvr_concurrent_one', workspaceId, one.email);
    await queuedErasure('pvr_concurrent_two', workspaceId, two.email);
    await runBatch(['pvr_concurrent_one', 'pvr_concurrent_two']);
    for (const id of ['pvr_concurrent_one', 'pvr_concurrent_two'])
      expect((await rows('SELECT status FROM privacy_requests WHERE id = ?', id))[0]).toEqual({ status: 'done' });
    const after = JSON.stringify(await archived(workspaceId, 'events'));
    expect(after).not.toContain('help with my payroll');
    await expectErasedEverywhere(workspaceId, [one.email, two.email, 'help with my payroll']);
  });

  it('an erasure whose run died in the middle is finished by housekeeping, keeping only the hash', async () => {
    const context = await channelWithExpert();
    const workspaceId = context.tenant.workspaceId;
    const lead = await claimedLeadWithContact(context);
    moveClockForTests(91 * DAY);
    await housekeeping();
    await queuedErasure('pvr_crashed', workspaceId, lead.email);
    // The run dies after the database's part, as R2 fails under it; its message is then lost.
    const dying = {
      get: async () => {
        throw new Error('the isolate died');
      },
      list: env.ARCHIVE.list.bind(env.ARCHIVE),
      delete: env.ARCHIVE.delete.bind(env.ARCHIVE),
      put: env.ARCHIVE.put.bind(env.ARCHIVE),
    } as unknown as R2Bucket;
    await runBatch(['pvr_crashed'], dying);
    const [taken] = await rows('SELECT status, target FROM privacy_requests WHERE id = ?', 'pvr_crashed');
    // Taken: its subjects kept, the address no longer.
    expect(taken).toEqual({ status: 'running', target: 'hash-pvr_crashed' });
    expect(JSON.stringify(await archived(workspaceId, 'events'))).toContain(lead.leadId);
    // Before the wait, housekeeping leaves it; after, it sends it again and the run finishes.
    await housekeeping();
    expect((await rows('SELECT status FROM privacy_requests WHERE id = ?', 'pvr_crashed'))[0]).toEqual({
      status: 'running',
    });
    moveClockForTests(PRIVACY_STUCK_AFTER_MS + 60_000);
    await housekeeping();
    await settled('pvr_crashed', workspaceId);
    await expectErasedEverywhere(workspaceId, [lead.email, 'help with my payroll']);
  });
});

describe('the archive’s bookkeeping', () => {
  it('every audit row of a workspace-day leaves D1 into R2 exactly once, over many batches', async () => {
    const workspaceId = `ws_audit_${crypto.randomUUID().slice(0, 8)}`;
    const day = clock.now() - 500 * DAY;
    const ids: string[] = [];
    const statements = [];
    for (let index = 0; index < 120; index++) {
      const id = `aud_0${String(index).padStart(3, '0')}${crypto.randomUUID().replaceAll('-', '').slice(0, 22)}`;
      ids.push(id);
      statements.push(
        platformDb
          .prepare(
            'INSERT INTO audit_log (id, workspace_id, actor_kind, actor_id, ' +
              'action, target_id, request_id, created_at) ' +
              "VALUES (?, ?, 'system', 'test', 'test.action', ?, 'req_test', ?)",
          )
          .bind(id, workspaceId, `target-${index}`, day + index),
      );
    }
    await platformDb.batch(statements);
    const db = workerDb();
    const retention = { deliveries: 30, events: 90, emails: 90, executionBodies: 90, audit: 400 };
    // Forty rows a tick over the whole platform: the workspace-day takes several batches.
    for (let tick = 0; tick < 20; tick++) {
      const outcome = await archiveExpired(db, env.ARCHIVE, retention, clock.now(), 40);
      if (outcome.audit === 0 && outcome.events === 0 && outcome.executions === 0) break;
    }
    const left = await rows('SELECT id FROM audit_log WHERE workspace_id = ?', workspaceId);
    expect(left).toEqual([]);
    const inR2 = (await archived(workspaceId, 'audit')).map((row) => row.id);
    expect(inR2.toSorted()).toEqual(ids.toSorted());
    const manifest = await rows(
      'SELECT SUM(rows) AS n, COUNT(*) AS objects FROM archive_objects WHERE workspace_id = ?',
      workspaceId,
    );
    expect(manifest[0]).toMatchObject({ n: 120 });
    expect(manifest[0]!.objects).toBeGreaterThan(1);
  });

  it('an erasure opens only the archived objects that name its visitor', async () => {
    const context = await channelWithExpert();
    const workspaceId = context.tenant.workspaceId;
    const erased = await claimedLeadWithContact(context);
    moveClockForTests(2 * DAY);
    const kept = await claimedLeadWithContact(context);
    moveClockForTests(91 * DAY);
    await housekeeping();
    const { db } = await servicesIn(workspaceId);
    const subjects = await erasureSubjects(db, workspaceId, { contactEmail: erased.email });
    const ids = [...subjects.conversationIds, ...subjects.leadIds, ...subjects.demandIds];
    const objects = await rows(
      "SELECT key, subjects FROM archive_objects WHERE workspace_id = ? AND kind IN ('events', 'executions')",
      workspaceId,
    );
    expect(objects.length).toBeGreaterThan(1);
    const naming = objects.filter((object) => ids.some((id) => String(object.subjects).includes(id)));
    expect(naming.length).toBeGreaterThan(0);
    expect(naming.length).toBeLessThan(objects.length);
    const opened: string[] = [];
    const counting = {
      get: async (key: string) => {
        opened.push(key);
        return env.ARCHIVE.get(key);
      },
      put: env.ARCHIVE.put.bind(env.ARCHIVE),
    };
    await eraseInArchive(db, counting, workspaceId, subjects);
    expect(opened.toSorted()).toEqual(naming.map((object) => object.key).toSorted());
    expect(JSON.stringify(await archived(workspaceId, 'events'))).toContain(kept.leadId);
  });

  it('messages written into an archived conversation are archived in their turn, beside the first object', async () => {
    const context = await channelWithExpert();
    const workspaceId = context.tenant.workspaceId;
    const lead = await claimedLeadWithContact(context);
    moveClockForTests(366 * DAY);
    await housekeeping();
    const first = await rows(
      "SELECT key FROM archive_objects WHERE workspace_id = ? AND kind = 'conversations'",
      workspaceId,
    );
    expect(first).toHaveLength(1);
    expect(await rows('SELECT id FROM messages WHERE conversation_id = ?', lead.conversationId)).toEqual([]);
    // The visitor writes into it again.
    await visitorSays(context.channelKey, {
      session_id: lead.session,
      message: { text: 'Writing again a year later.' },
    });
    expect(
      (await rows('SELECT id FROM messages WHERE conversation_id = ?', lead.conversationId)).length,
    ).toBeGreaterThan(0);
    moveClockForTests(366 * DAY);
    await housekeeping();
    expect(await rows('SELECT id FROM messages WHERE conversation_id = ?', lead.conversationId)).toEqual([]);
    const objects = await rows(
      "SELECT key FROM archive_objects WHERE workspace_id = ? AND kind = 'conversations'",
      workspaceId,
    );
    expect(objects).toHaveLength(2);
    const lines = JSON.stringify(await archived(workspaceId, 'conversations'));
    expect(lines).toContain('help with my payroll');
    expect(lines).toContain('Writing again a year later.');
  });
});
