-- Data migration (hand-written): visitor sessions become conversations, with nothing lost.
-- A session's first demand becomes the conversation's one demand; later demands of the same
-- session stay as they were (their texts are the conversation's messages too).
INSERT INTO `conversations` (`id`, `workspace_id`, `kind`, `channel_id`, `token_hash`, `external_session_id`, `attribution`, `demand_id`, `lead_id`, `created_at`, `last_seen_at`)
SELECT vs.`id`, vs.`workspace_id`, 'channel', vs.`channel_id`, vs.`token_hash`, NULL, vs.`attribution`,
  (SELECT d.`id` FROM `demands` d WHERE d.`visitor_session_id` = vs.`id` ORDER BY d.`id` LIMIT 1),
  vs.`lead_id`, vs.`created_at`, vs.`last_seen_at`
FROM `visitor_sessions` vs
WHERE vs.`id` NOT IN (SELECT `id` FROM `conversations`);
--> statement-breakpoint
INSERT INTO `messages` (`id`, `conversation_id`, `role`, `text`, `author_id`, `execution_id`, `created_at`)
SELECT vm.`id`, vm.`visitor_session_id`, CASE vm.`role` WHEN 'assistant' THEN 'system' ELSE vm.`role` END, vm.`text`, NULL, NULL, vm.`created_at`
FROM `visitor_messages` vm
WHERE vm.`id` NOT IN (SELECT `id` FROM `messages`);
--> statement-breakpoint
UPDATE `demands` SET `conversation_id` = `visitor_session_id` WHERE `visitor_session_id` IS NOT NULL AND `conversation_id` IS NULL;
--> statement-breakpoint
-- A lead now belongs to its conversation's demand; its summary is the conversation's first message.
UPDATE `leads` SET
  `conversation_id` = `visitor_session_id`,
  `demand_id` = COALESCE((SELECT c.`demand_id` FROM `conversations` c WHERE c.`id` = `leads`.`visitor_session_id`), `demand_id`),
  `domain` = COALESCE((SELECT d.`domain` FROM `demands` d WHERE d.`id` = `leads`.`demand_id`), `domain`),
  `summary` = COALESCE(substr((SELECT d.`text` FROM `demands` d WHERE d.`id` = (SELECT c.`demand_id` FROM `conversations` c WHERE c.`id` = `leads`.`visitor_session_id`)), 1, 140),
                       substr((SELECT d.`text` FROM `demands` d WHERE d.`id` = `leads`.`demand_id`), 1, 140), ''),
  `updated_at` = `created_at`
WHERE `conversation_id` IS NULL;
--> statement-breakpoint
-- Every existing lead starts its history with its creation.
INSERT INTO `lead_events` (`id`, `lead_id`, `from_status`, `to_status`, `actor_kind`, `actor_id`, `note`, `created_at`)
SELECT 'lev_' || substr(l.`id`, 6), l.`id`, NULL, 'open', 'system', NULL, 'migrated', l.`created_at`
FROM `leads` l
WHERE NOT EXISTS (SELECT 1 FROM `lead_events` e WHERE e.`lead_id` = l.`id`);
--> statement-breakpoint
-- The catalog starts with the domain every existing channel and execution names.
INSERT INTO `domains` (`slug`, `name`, `description`, `created_at`)
VALUES ('consultation', 'Consultation', 'General requests for expert help.', 0)
ON CONFLICT (`slug`) DO NOTHING;
