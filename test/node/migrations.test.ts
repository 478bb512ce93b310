/**
 * The conversations migration keeps what was stored: visitor sessions, their messages, their
 * demands and their leads, on a real D1 (Miniflare) that had the earlier migrations and data.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyMigration, localD1, migrationFiles as files, type LocalD1 } from './d1';

let db: LocalD1;
let close: () => Promise<void>;
const apply = (file: string) => applyMigration(db, file);

beforeAll(async () => {
  ({ db, close } = await localD1());
  const before = files.filter((file) => file < '0005');
  for (const file of before) await apply(file);
  // Data as the platform stored it before conversations: a session with three messages, two demands
  // (the old model made one per message), a lead from the handoff, and an API demand.
  await db.batch(
    [
      "INSERT INTO organizations VALUES ('org_m', 'Migrated', 'active', 1)",
      "INSERT INTO workspaces (id, organization_id, name, status, created_at) VALUES ('ws_m', 'org_m', 'W', " +
        "'active', 1)",
      `INSERT INTO channels (channel_key, workspace_id, name, domain, allowed_origins, first_party_origins, status, ` +
        `widget_config, created_at, updated_at) VALUES ('ch_m', 'ws_m', 'C', 'consultation', '[]', '[]', 'active', ` +
        `'{}', 1, 1)`,
      `INSERT INTO visitor_sessions VALUES ('vs_m1', 1, 'ws_m', 'hash-m1', ` +
        `'{"source_site":"https://shop.example.com"}', 'lead_m1', 10, 30)`,
      "INSERT INTO visitor_messages VALUES ('msg_m1', 'vs_m1', 'visitor', 'Hello there', 10), ('msg_m2', 'vs_m1', " +
        "'assistant', 'Thanks, D-AAAAAA is in.', 11), ('msg_m3', 'vs_m1', 'visitor', 'Can I talk to someone?', 20)",
      'INSERT INTO demands (id, workspace_id, execution_id, channel_id, visitor_session_id, trigger, domain, text, ' +
        "status, created_at) VALUES ('dem_m1', 'ws_m', 'exe_m1', 1, 'vs_m1', 'consultation', 'consultation', 'Hello " +
        "there', 'open', 10), ('dem_m2', 'ws_m', 'exe_m2', 1, 'vs_m1', 'handoff', 'consultation', 'Can I talk to " +
        "someone?', 'open', 20), ('dem_m3', 'ws_m', 'exe_m3', NULL, NULL, NULL, 'consultation', 'From the API', " +
        "'open', 25)",
      'INSERT INTO leads (id, workspace_id, demand_id, channel_id, visitor_session_id, status, trigger, ' +
        "contact_name, contact_email, contact_phone, created_at) VALUES ('lead_m1', 'ws_m', 'dem_m2', 1, 'vs_m1', " +
        "'open', 'handoff', 'Ada', 'ada@example.com', NULL, 20)",
    ].map((statement) => db.prepare(statement)),
  );
  for (const file of files.filter((name) => name >= '0005')) await apply(file);
});

afterAll(async () => {
  await close?.();
});

describe('migrating visitor sessions to conversations', () => {
  it('the session is a conversation with its first demand and its lead', async () => {
    const conversation = await db.prepare('SELECT * FROM conversations WHERE id = ?').bind('vs_m1').first();
    expect(conversation).toMatchObject({
      workspace_id: 'ws_m',
      kind: 'channel',
      channel_id: 1,
      token_hash: 'hash-m1',
      demand_id: 'dem_m1',
      lead_id: 'lead_m1',
      created_at: 10,
      last_seen_at: 30,
    });
    expect(JSON.parse(String(conversation!.attribution))).toEqual({ source_site: 'https://shop.example.com' });
  });

  it('every message is kept, in order; the assistant’s become the platform’s', async () => {
    const messages = await db
      .prepare('SELECT id, role, text FROM messages WHERE conversation_id = ? ORDER BY id')
      .bind('vs_m1')
      .all();
    expect(messages.results).toEqual([
      { id: 'msg_m1', role: 'visitor', text: 'Hello there' },
      { id: 'msg_m2', role: 'system', text: 'Thanks, D-AAAAAA is in.' },
      { id: 'msg_m3', role: 'visitor', text: 'Can I talk to someone?' },
    ]);
  });

  it('every demand is kept (the API one too); the lead belongs to the conversation, with its contact', async () => {
    const demands = await db.prepare('SELECT id, conversation_id, text FROM demands ORDER BY id').all();
    // The old model made a demand per message. 0013 makes one demand per conversation a
    // constraint: the later row is kept, but only the conversation's first demand stays linked.
    expect(demands.results).toEqual([
      { id: 'dem_m1', conversation_id: 'vs_m1', text: 'Hello there' },
      { id: 'dem_m2', conversation_id: null, text: 'Can I talk to someone?' },
      { id: 'dem_m3', conversation_id: null, text: 'From the API' },
    ]);
    const lead = await db.prepare('SELECT * FROM leads WHERE id = ?').bind('lead_m1').first();
    expect(lead).toMatchObject({
      conversation_id: 'vs_m1',
      demand_id: 'dem_m1',
      domain: 'consultation',
      summary: 'Hello there',
      status: 'open',
      contact_name: 'Ada',
      contact_email: 'ada@example.com',
    });
    const history = await db
      .prepare('SELECT to_status, actor_kind FROM lead_events WHERE lead_id = ?')
      .bind('lead_m1')
      .all();
    expect(history.results).toEqual([{ to_status: 'open', actor_kind: 'system' }]);
  });

  it('the catalog has the domain existing records name; the old tables are gone', async () => {
    expect(await db.prepare("SELECT slug FROM domains WHERE slug = 'consultation'").first()).toEqual({
      slug: 'consultation',
    });
    const tables = await db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'visitor_%'")
      .all();
    expect(tables.results).toEqual([]);
  });
});
