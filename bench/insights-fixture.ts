/**
 * A year of one workspace's history for `npm run bench -- insights`, as SQL statements: `leads`
 * leads spread over 365 days on one channel, each with its conversation, its moves (created, and
 * for most claimed, replied, qualified, won with a value or lost), its events (the execution and
 * the lead), and for a third an agent's answer. Rows as the API would write them, without its time.
 */

/** Rows numbered 1…count by a recursive CTE. */
const numbers = (count: number) => `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${count})`;

const TOPICS = ['billing', 'vat', 'payroll', 'crm', 'hiring', 'contracts', 'taxes', 'general'];

/** The statements of the fixture. */
export function insightsFixture(options: {
  tag: string;
  leads: number;
  workspaceId: string;
  channelKey: string;
  now: number;
}): string[] {
  const { tag, leads, workspaceId, channelKey, now } = options;
  const rows = numbers(leads);
  // Lead i: created (i mod 365) days ago at a spread time of day; its fate by i mod 20.
  const created = `(${now} - (i % 365) * 86400000 - (i * 7919 % 86400) * 1000)`;
  const fate = `(i % 20)`;
  const status = `CASE WHEN ${fate} < 3 THEN 'won' WHEN ${fate} < 5 THEN 'lost' WHEN ${fate} < 10 THEN 'contacted'
    WHEN ${fate} < 14 THEN 'claimed' ELSE 'open' END`;
  const claimedAt = `(${created} + ((i % 600) + 30) * 1000)`;
  const contactedAt = `(${created} + ((i % 3600) + 120) * 1000)`;
  const topic = `json_extract('${JSON.stringify(TOPICS)}', '$[' || (i % ${TOPICS.length}) || ']')`;
  const channel = `(SELECT id FROM channels WHERE channel_key = '${channelKey}')`;
  const move = (suffix: string, from: string, to: string, at: string, where: string, value = 'NULL') =>
    `${rows} INSERT INTO lead_events (id, lead_id, from_status, to_status, actor_kind, created_at, value_minor,
        value_currency)
      SELECT 'lev_${tag}_' || i || '_${suffix}', 'lead_${tag}_' || i, ${from}, '${to}', 'system', ${at}, ${value},
        CASE WHEN ${value} IS NULL THEN NULL ELSE 'EUR' END FROM n WHERE ${where}`;
  return [
    `${rows} INSERT INTO conversations (id, workspace_id, kind, channel_id, created_at, last_seen_at)
      SELECT 'cnv_${tag}_' || i, '${workspaceId}', 'channel', ${channel}, ${created}, ${created} FROM n`,
    `${rows} INSERT INTO leads (id, workspace_id, demand_id, channel_id, status, trigger, topic, first_claimed_at,
        first_contacted_at, created_at, updated_at)
      SELECT 'lead_${tag}_' || i, '${workspaceId}', 'dem_${tag}_' || i, ${channel}, ${status}, 'handoff', ${topic},
        CASE WHEN ${fate} < 14 THEN ${claimedAt} END, CASE WHEN ${fate} < 10 THEN ${contactedAt} END, ${created},
        ${created} FROM n`,
    move('0', 'NULL', 'open', created, '1'),
    move('1', `'open'`, 'claimed', claimedAt, `${fate} < 14`),
    move('2', `'claimed'`, 'contacted', contactedAt, `${fate} < 10`),
    move('3', `'contacted'`, 'qualified', `${contactedAt} + 1000`, `${fate} < 5`),
    move('4', `'qualified'`, 'won', `${contactedAt} + 2000`, `${fate} < 3`, '((i % 50) + 1) * 10000'),
    move('5', `'qualified'`, 'lost', `${contactedAt} + 2000`, `${fate} >= 3 AND ${fate} < 5`),
    `${rows} INSERT INTO events (id, workspace_id, type, data, created_at)
      SELECT 'evt_${tag}_' || i || '_x', '${workspaceId}', 'execution.completed',
        json_object('channel_key', '${channelKey}', 'disposition', 'routed', 'handled_by',
          CASE WHEN i % 3 = 0 THEN json_object('kind', 'agent') END), ${created} FROM n`,
    `${rows} INSERT INTO events (id, workspace_id, type, data, created_at)
      SELECT 'evt_${tag}_' || i || '_l', '${workspaceId}', 'lead.created',
        json_object('lead_id', 'lead_${tag}_' || i, 'channel_key', '${channelKey}', 'topic', ${topic}), ${created}
      FROM n`,
    `${rows} INSERT INTO agent_attempts (id, execution_id, provider_id, workspace_id, outcome, duration_ms, created_at)
      SELECT 'att_${tag}_' || i, 'exe_${tag}_' || i, 'prv_demo_agent', '${workspaceId}',
        CASE WHEN i % 9 = 0 THEN 'declined' ELSE 'success' END, 40, ${created} FROM n WHERE i % 3 = 0`,
  ];
}
