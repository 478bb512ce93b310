-- The insights funnel (docs/design/insights.md): each step counts a visitor's conversation once, on
-- the day it began; leads of API calls are counted apart. The sweep counts these from now on; this
-- counts what it had already passed (the rows up to each source's cursor), by day and by month.
INSERT INTO daily_rollups (workspace_id, day, metric, channel_key, key_id, value)
  SELECT f.workspace_id, f.day, f.metric, f.channel_key, '', count(*) FROM (
    SELECT c.workspace_id, strftime('%Y-%m-%d', c.created_at / 1000, 'unixepoch') AS day,
      'funnel.conversations' AS metric, coalesce((SELECT channel_key FROM channels WHERE id = c.channel_id), '') AS channel_key
    FROM conversations c
    WHERE c.channel_id IS NOT NULL AND c.rowid <= coalesce((SELECT last_seq FROM rollup_cursors WHERE source = 'conversations'), 0)
  ) AS f WHERE f.metric IS NOT NULL
  GROUP BY f.workspace_id, f.day, f.metric, f.channel_key
  ON CONFLICT (workspace_id, day, metric, channel_key, key_id) DO UPDATE SET value = value + excluded.value;
--> statement-breakpoint
INSERT INTO daily_rollups (workspace_id, day, metric, channel_key, key_id, value)
  SELECT f.workspace_id, substr(f.day, 1, 7), f.metric, f.channel_key, '', count(*) FROM (
    SELECT c.workspace_id, strftime('%Y-%m-%d', c.created_at / 1000, 'unixepoch') AS day,
      'funnel.conversations' AS metric, coalesce((SELECT channel_key FROM channels WHERE id = c.channel_id), '') AS channel_key
    FROM conversations c
    WHERE c.channel_id IS NOT NULL AND c.rowid <= coalesce((SELECT last_seq FROM rollup_cursors WHERE source = 'conversations'), 0)
  ) AS f WHERE f.metric IS NOT NULL
  GROUP BY f.workspace_id, substr(f.day, 1, 7), f.metric, f.channel_key
  ON CONFLICT (workspace_id, day, metric, channel_key, key_id) DO UPDATE SET value = value + excluded.value;
--> statement-breakpoint
INSERT INTO daily_rollups (workspace_id, day, metric, channel_key, key_id, value)
  SELECT f.workspace_id, f.day, f.metric, f.channel_key, '', count(*) FROM (
    SELECT c.workspace_id, strftime('%Y-%m-%d', c.created_at / 1000, 'unixepoch') AS day,
      CASE WHEN le.from_status IS NULL THEN 'funnel.leads'
        WHEN le.to_status = 'claimed' AND le.created_at = l.first_claimed_at THEN 'funnel.claimed'
        WHEN le.to_status = 'contacted' AND le.created_at = l.first_contacted_at THEN 'funnel.replied'
        WHEN le.to_status = 'won' AND le.from_status <> 'won' THEN 'funnel.won' END AS metric,
      coalesce((SELECT channel_key FROM channels WHERE id = c.channel_id), '') AS channel_key
    FROM lead_events le JOIN leads l ON l.id = le.lead_id
      JOIN conversations c ON c.id = l.conversation_id AND c.channel_id IS NOT NULL
    WHERE le.rowid <= coalesce((SELECT last_seq FROM rollup_cursors WHERE source = 'lead_events'), 0)
  ) AS f WHERE f.metric IS NOT NULL
  GROUP BY f.workspace_id, f.day, f.metric, f.channel_key
  ON CONFLICT (workspace_id, day, metric, channel_key, key_id) DO UPDATE SET value = value + excluded.value;
--> statement-breakpoint
INSERT INTO daily_rollups (workspace_id, day, metric, channel_key, key_id, value)
  SELECT f.workspace_id, substr(f.day, 1, 7), f.metric, f.channel_key, '', count(*) FROM (
    SELECT c.workspace_id, strftime('%Y-%m-%d', c.created_at / 1000, 'unixepoch') AS day,
      CASE WHEN le.from_status IS NULL THEN 'funnel.leads'
        WHEN le.to_status = 'claimed' AND le.created_at = l.first_claimed_at THEN 'funnel.claimed'
        WHEN le.to_status = 'contacted' AND le.created_at = l.first_contacted_at THEN 'funnel.replied'
        WHEN le.to_status = 'won' AND le.from_status <> 'won' THEN 'funnel.won' END AS metric,
      coalesce((SELECT channel_key FROM channels WHERE id = c.channel_id), '') AS channel_key
    FROM lead_events le JOIN leads l ON l.id = le.lead_id
      JOIN conversations c ON c.id = l.conversation_id AND c.channel_id IS NOT NULL
    WHERE le.rowid <= coalesce((SELECT last_seq FROM rollup_cursors WHERE source = 'lead_events'), 0)
  ) AS f WHERE f.metric IS NOT NULL
  GROUP BY f.workspace_id, substr(f.day, 1, 7), f.metric, f.channel_key
  ON CONFLICT (workspace_id, day, metric, channel_key, key_id) DO UPDATE SET value = value + excluded.value;
--> statement-breakpoint
INSERT INTO daily_rollups (workspace_id, day, metric, channel_key, key_id, value)
  SELECT f.workspace_id, f.day, f.metric, f.channel_key, '', count(*) FROM (
    SELECT l.workspace_id, strftime('%Y-%m-%d', l.created_at / 1000, 'unixepoch') AS day,
      'api_leads' AS metric, '' AS channel_key
    FROM lead_events le JOIN leads l ON l.id = le.lead_id
    WHERE le.from_status IS NULL AND l.channel_id IS NULL
      AND le.rowid <= coalesce((SELECT last_seq FROM rollup_cursors WHERE source = 'lead_events'), 0)
  ) AS f WHERE f.metric IS NOT NULL
  GROUP BY f.workspace_id, f.day, f.metric, f.channel_key
  ON CONFLICT (workspace_id, day, metric, channel_key, key_id) DO UPDATE SET value = value + excluded.value;
--> statement-breakpoint
INSERT INTO daily_rollups (workspace_id, day, metric, channel_key, key_id, value)
  SELECT f.workspace_id, substr(f.day, 1, 7), f.metric, f.channel_key, '', count(*) FROM (
    SELECT l.workspace_id, strftime('%Y-%m-%d', l.created_at / 1000, 'unixepoch') AS day,
      'api_leads' AS metric, '' AS channel_key
    FROM lead_events le JOIN leads l ON l.id = le.lead_id
    WHERE le.from_status IS NULL AND l.channel_id IS NULL
      AND le.rowid <= coalesce((SELECT last_seq FROM rollup_cursors WHERE source = 'lead_events'), 0)
  ) AS f WHERE f.metric IS NOT NULL
  GROUP BY f.workspace_id, substr(f.day, 1, 7), f.metric, f.channel_key
  ON CONFLICT (workspace_id, day, metric, channel_key, key_id) DO UPDATE SET value = value + excluded.value;
--> statement-breakpoint
INSERT INTO daily_rollups (workspace_id, day, metric, channel_key, key_id, value)
  SELECT f.workspace_id, f.day, f.metric, f.channel_key, '', count(*) FROM (
    SELECT c.workspace_id, strftime('%Y-%m-%d', c.created_at / 1000, 'unixepoch') AS day,
      'funnel.answered' AS metric, coalesce((SELECT channel_key FROM channels WHERE id = c.channel_id), '') AS channel_key
    FROM agent_attempts a JOIN messages msg ON msg.execution_id = a.execution_id AND msg.role = 'agent'
      JOIN conversations c ON c.id = msg.conversation_id AND c.channel_id IS NOT NULL
    WHERE a.outcome = 'success' AND a.rowid <= coalesce((SELECT last_seq FROM rollup_cursors WHERE source = 'agent_attempts'), 0)
      AND NOT EXISTS (SELECT 1 FROM messages earlier WHERE earlier.conversation_id = msg.conversation_id
        AND earlier.role = 'agent' AND earlier.id < msg.id)
  ) AS f WHERE f.metric IS NOT NULL
  GROUP BY f.workspace_id, f.day, f.metric, f.channel_key
  ON CONFLICT (workspace_id, day, metric, channel_key, key_id) DO UPDATE SET value = value + excluded.value;
--> statement-breakpoint
INSERT INTO daily_rollups (workspace_id, day, metric, channel_key, key_id, value)
  SELECT f.workspace_id, substr(f.day, 1, 7), f.metric, f.channel_key, '', count(*) FROM (
    SELECT c.workspace_id, strftime('%Y-%m-%d', c.created_at / 1000, 'unixepoch') AS day,
      'funnel.answered' AS metric, coalesce((SELECT channel_key FROM channels WHERE id = c.channel_id), '') AS channel_key
    FROM agent_attempts a JOIN messages msg ON msg.execution_id = a.execution_id AND msg.role = 'agent'
      JOIN conversations c ON c.id = msg.conversation_id AND c.channel_id IS NOT NULL
    WHERE a.outcome = 'success' AND a.rowid <= coalesce((SELECT last_seq FROM rollup_cursors WHERE source = 'agent_attempts'), 0)
      AND NOT EXISTS (SELECT 1 FROM messages earlier WHERE earlier.conversation_id = msg.conversation_id
        AND earlier.role = 'agent' AND earlier.id < msg.id)
  ) AS f WHERE f.metric IS NOT NULL
  GROUP BY f.workspace_id, substr(f.day, 1, 7), f.metric, f.channel_key
  ON CONFLICT (workspace_id, day, metric, channel_key, key_id) DO UPDATE SET value = value + excluded.value;
