-- Issue 17. A conversation has one demand and at most one lead, as constraints. Rows that earlier
-- races made twice are kept, but only the first of each conversation stays linked to it, so that
-- the unique indexes can be built.
UPDATE `demands` SET `conversation_id` = NULL
WHERE `conversation_id` IS NOT NULL
  AND `id` NOT IN (SELECT MIN(`id`) FROM `demands` WHERE `conversation_id` IS NOT NULL GROUP BY `conversation_id`);--> statement-breakpoint
UPDATE `leads` SET `conversation_id` = NULL
WHERE `conversation_id` IS NOT NULL
  AND `id` NOT IN (SELECT MIN(`id`) FROM `leads` WHERE `conversation_id` IS NOT NULL GROUP BY `conversation_id`);--> statement-breakpoint
DROP INDEX `demands_conversation_idx`;--> statement-breakpoint
CREATE UNIQUE INDEX `demands_conversation_idx` ON `demands` (`conversation_id`) WHERE conversation_id IS NOT NULL;--> statement-breakpoint
ALTER TABLE `leads` ADD `change_id` text;--> statement-breakpoint
CREATE UNIQUE INDEX `leads_conversation_idx` ON `leads` (`conversation_id`) WHERE conversation_id IS NOT NULL;--> statement-breakpoint
ALTER TABLE `providers` ADD `profile_version` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE `providers` ADD `change_id` text;--> statement-breakpoint
ALTER TABLE `webhook_endpoints` ADD `change_id` text;--> statement-breakpoint
-- The outbox's fan-out keeps events for a disabled endpoint as paused deliveries (delivered when
-- it is enabled again, within the 3-day retry window) instead of dropping them.
DROP TRIGGER `events_fan_out`;--> statement-breakpoint
CREATE TRIGGER `events_fan_out` AFTER INSERT ON `events`
BEGIN
  INSERT INTO `webhook_deliveries` (`event_id`, `endpoint_id`, `workspace_id`, `status`, `attempts`, `next_attempt_at`, `created_at`, `updated_at`)
  SELECT NEW.`id`, e.`id`, NEW.`workspace_id`, CASE e.`status` WHEN 'active' THEN 'pending' ELSE 'paused' END, 0, NEW.`created_at`, NEW.`created_at`, NEW.`created_at`
  FROM `webhook_endpoints` e
  WHERE e.`workspace_id` = NEW.`workspace_id`
    AND EXISTS (SELECT 1 FROM json_each(e.`event_types`) t WHERE t.`value` = NEW.`type`);
END;
