CREATE TABLE `knowledge_crawl_pages` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`source_id` text NOT NULL,
	`url` text NOT NULL,
	`document` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `knowledge_crawl_pages_source_idx` ON `knowledge_crawl_pages` (`source_id`);--> statement-breakpoint
CREATE TABLE `knowledge_crawls` (
	`source_id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`cursor` text NOT NULL,
	`slices` integer DEFAULT 0 NOT NULL,
	`lease_until` integer,
	`started_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
DROP INDEX `privacy_requests_erasure_idx`;--> statement-breakpoint
ALTER TABLE `privacy_requests` ADD `subjects` text;--> statement-breakpoint
ALTER TABLE `privacy_requests` ADD `started_at` integer;--> statement-breakpoint
CREATE UNIQUE INDEX `privacy_requests_pending_erasure_idx` ON `privacy_requests` (`workspace_id`,`target_hash`) WHERE kind = 'erasure' AND status IN ('queued', 'running');--> statement-breakpoint
ALTER TABLE `user_sessions` ADD `confirmed_at` integer;--> statement-breakpoint
ALTER TABLE `knowledge_spaces` ADD `max_chunks` integer DEFAULT 20000 NOT NULL;--> statement-breakpoint
ALTER TABLE `archive_objects` ADD `subjects` text;--> statement-breakpoint
-- The workspace's knowledge limits, kept by the database (docs/design/knowledge.md#limits): a source
-- whose bytes or passages grow past what the workspace has left is refused with its whole batch, so
-- crawls running side by side cannot together pass a limit that each checked alone.
CREATE TRIGGER `knowledge_sources_within_limits_on_insert` BEFORE INSERT ON `knowledge_sources`
WHEN NEW.`bytes` > 0 OR NEW.`chunks` > 0
BEGIN
  SELECT RAISE(ABORT, 'knowledge_bytes_limit: the workspace''s knowledge would pass its size limit')
  WHERE (SELECT coalesce(sum(`bytes`), 0) FROM `knowledge_sources` WHERE `workspace_id` = NEW.`workspace_id`)
    + NEW.`bytes` > coalesce((SELECT `max_bytes` FROM `knowledge_spaces` WHERE `workspace_id` = NEW.`workspace_id`), 20971520);
  SELECT RAISE(ABORT, 'knowledge_chunks_limit: the workspace''s knowledge would pass its passage limit')
  WHERE (SELECT coalesce(sum(`chunks`), 0) FROM `knowledge_sources` WHERE `workspace_id` = NEW.`workspace_id`)
    + NEW.`chunks` > coalesce((SELECT `max_chunks` FROM `knowledge_spaces` WHERE `workspace_id` = NEW.`workspace_id`), 20000);
END;--> statement-breakpoint
CREATE TRIGGER `knowledge_sources_within_limits_on_update` BEFORE UPDATE OF `bytes`, `chunks` ON `knowledge_sources`
WHEN NEW.`bytes` > OLD.`bytes` OR NEW.`chunks` > OLD.`chunks`
BEGIN
  SELECT RAISE(ABORT, 'knowledge_bytes_limit: the workspace''s knowledge would pass its size limit')
  WHERE NEW.`bytes` > OLD.`bytes` AND (SELECT coalesce(sum(`bytes`), 0) FROM `knowledge_sources`
      WHERE `workspace_id` = NEW.`workspace_id` AND `id` <> NEW.`id`)
    + NEW.`bytes` > coalesce((SELECT `max_bytes` FROM `knowledge_spaces` WHERE `workspace_id` = NEW.`workspace_id`), 20971520);
  SELECT RAISE(ABORT, 'knowledge_chunks_limit: the workspace''s knowledge would pass its passage limit')
  WHERE NEW.`chunks` > OLD.`chunks` AND (SELECT coalesce(sum(`chunks`), 0) FROM `knowledge_sources`
      WHERE `workspace_id` = NEW.`workspace_id` AND `id` <> NEW.`id`)
    + NEW.`chunks` > coalesce((SELECT `max_chunks` FROM `knowledge_spaces` WHERE `workspace_id` = NEW.`workspace_id`), 20000);
END;
