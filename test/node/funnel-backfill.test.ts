/**
 * The funnel's backfill (migrations/0025): what the rollups' sweep had already counted before the
 * funnel existed is counted into it once, by the conversation's day and month; rows past the
 * cursors are left to the sweep.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyMigration, localD1, migrationFiles as files, type LocalD1 } from './d1';

let db: LocalD1;
let close: () => Promise<void>;
const DAY = Date.parse('2026-10-01T10:00:00Z');

beforeAll(async () => {
  ({ db, close } = await localD1());
  for (const file of files.filter((name) => name < '0025')) await applyMigration(db, file);
  await db.batch(
    [
      "INSERT INTO organizations VALUES ('org_f', 'F', 'active', 1)",
      `INSERT INTO workspaces (id, organization_id, name, status, created_at)
        VALUES ('ws_f', 'org_f', 'W', 'active', 1)`,
      `INSERT INTO channels (channel_key, workspace_id, name, domain, allowed_origins, first_party_origins, status,
        widget_config, created_at, updated_at)
        VALUES ('ch_f', 'ws_f', 'C', 'consultation', '[]', '[]', 'active', '{}', 1, 1)`,
      // Two visitors' conversations and an API session; a lead in the first (claimed), one of the API.
      `INSERT INTO conversations (id, workspace_id, kind, channel_id, created_at, last_seen_at) VALUES
        ('cnv_1', 'ws_f', 'channel', 1, ${DAY}, ${DAY}), ('cnv_2', 'ws_f', 'channel', 1, ${DAY}, ${DAY})`,
      `INSERT INTO leads (id, workspace_id, demand_id, channel_id, conversation_id, status, trigger, first_claimed_at,
        created_at) VALUES ('lead_1', 'ws_f', 'dem_1', 1, 'cnv_1', 'claimed', 'consultation', ${DAY + 60_000}, ${DAY}),
        ('lead_api', 'ws_f', 'dem_2', NULL, NULL, 'open', 'consultation', NULL, ${DAY})`,
      `INSERT INTO lead_events (id, lead_id, from_status, to_status, actor_kind, created_at) VALUES
        ('lev_1', 'lead_1', NULL, 'open', 'system', ${DAY}),
        ('lev_2', 'lead_1', 'open', 'claimed', 'system', ${DAY + 60_000}),
        ('lev_3', 'lead_api', NULL, 'open', 'system', ${DAY})`,
      // An agent answered twice in the second conversation.
      `INSERT INTO agent_attempts (id, execution_id, provider_id, workspace_id, outcome, duration_ms, created_at)
        VALUES ('att_1', 'exe_1', 'prv_a', 'ws_f', 'success', 5, ${DAY}),
          ('att_2', 'exe_2', 'prv_a', 'ws_f', 'success', 5, ${DAY})`,
      `INSERT INTO messages (id, conversation_id, role, text, author_id, execution_id, created_at) VALUES
        ('msg_1', 'cnv_2', 'agent', 'a', 'prv_a', 'exe_1', ${DAY}),
        ('msg_2', 'cnv_2', 'agent', 'b', 'prv_a', 'exe_2', ${DAY})`,
      // The sweep had counted every row but the second conversation's.
      `INSERT INTO rollup_cursors (source, last_seq) VALUES ('conversations', 1), ('lead_events', 3),
        ('agent_attempts', 2)`,
    ].map((statement) => db.prepare(statement)),
  );
  await applyMigration(db, files.find((name) => name.startsWith('0025'))!);
});
afterAll(() => close());

describe('the funnel backfill', () => {
  it('counts what the sweep had passed, by day and by month, once per conversation', async () => {
    const rows = await db
      .prepare(
        "SELECT day, metric, channel_key, value FROM daily_rollups WHERE workspace_id = 'ws_f' ORDER BY day, metric",
      )
      .all<{ day: string; metric: string; channel_key: string; value: number }>();
    const of = (day: string) =>
      Object.fromEntries(rows.results.filter((row) => row.day === day).map((row) => [row.metric, row.value]));
    const expected = {
      'funnel.conversations': 1,
      'funnel.leads': 1,
      'funnel.claimed': 1,
      'funnel.answered': 1,
      api_leads: 1,
    };
    expect(of('2026-10-01')).toEqual(expected);
    expect(of('2026-10')).toEqual(expected);
    expect(
      rows.results.filter((row) => row.metric.startsWith('funnel.')).every((row) => row.channel_key === 'ch_f'),
    ).toBe(true);
  });
});
