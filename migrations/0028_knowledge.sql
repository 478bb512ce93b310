CREATE TABLE `knowledge_chunks` (
	`id` integer PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`source_id` text NOT NULL,
	`title` text NOT NULL,
	`headings` text NOT NULL,
	`body` text NOT NULL,
	`url` text,
	`language` text
);
--> statement-breakpoint
CREATE INDEX `knowledge_chunks_source_idx` ON `knowledge_chunks` (`source_id`);--> statement-breakpoint
CREATE TABLE `knowledge_gaps` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`normalized` text NOT NULL,
	`question` text NOT NULL,
	`count` integer DEFAULT 1 NOT NULL,
	`last_conversation_id` text,
	`expert_answer` text,
	`resolved_source_id` text,
	`last_asked_at` integer NOT NULL,
	`created_at` integer NOT NULL,
	CONSTRAINT "knowledge_gap_counted" CHECK("knowledge_gaps"."count" >= 1)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `knowledge_gaps_question` ON `knowledge_gaps` (`workspace_id`,`normalized`);--> statement-breakpoint
CREATE INDEX `knowledge_gaps_recent_idx` ON `knowledge_gaps` (`workspace_id`,`last_asked_at`);--> statement-breakpoint
CREATE TABLE `knowledge_sources` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`kind` text NOT NULL,
	`title` text NOT NULL,
	`url` text,
	`content_type` text,
	`content` text,
	`language` text,
	`crawl_mode` text,
	`max_pages` integer,
	`status` text NOT NULL,
	`error` text,
	`documents` integer DEFAULT 0 NOT NULL,
	`chunks` integer DEFAULT 0 NOT NULL,
	`bytes` integer DEFAULT 0 NOT NULL,
	`etag` text,
	`last_modified` text,
	`indexed_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `knowledge_sources_workspace_idx` ON `knowledge_sources` (`workspace_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `knowledge_sources_sync_idx` ON `knowledge_sources` (`kind`,`indexed_at`);--> statement-breakpoint
CREATE TABLE `knowledge_spaces` (
	`ordinal` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`workspace_id` text NOT NULL,
	`next_chunk` integer DEFAULT 0 NOT NULL,
	`max_sources` integer DEFAULT 1000 NOT NULL,
	`max_bytes` integer DEFAULT 20971520 NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `knowledge_spaces_workspace` ON `knowledge_spaces` (`workspace_id`);--> statement-breakpoint
ALTER TABLE `channels` ADD `knowledge` text;--> statement-breakpoint
-- The index: FTS5 over the chunks (external content, so the text is stored once), kept in step
-- by the triggers below. A chunk's id carries its workspace's ordinal in its high bits (id >> 24),
-- which the database checks, so a search names its workspace's id range and reads nothing else.
CREATE VIRTUAL TABLE `knowledge_fts` USING fts5(`title`, `headings`, `body`, content='knowledge_chunks',
  content_rowid='id', tokenize='porter unicode61 remove_diacritics 2');--> statement-breakpoint
CREATE TRIGGER `knowledge_chunks_in_their_range` BEFORE INSERT ON `knowledge_chunks`
WHEN NEW.`id` IS NULL OR (SELECT `ordinal` FROM `knowledge_spaces` WHERE `workspace_id` = NEW.`workspace_id`)
  IS NOT (NEW.`id` >> 24)
BEGIN
  SELECT RAISE(ABORT, 'knowledge_chunk_range: a chunk''s id is its workspace''s ordinal × 2^24 plus a counter');
END;--> statement-breakpoint
CREATE TRIGGER `knowledge_chunks_indexed` AFTER INSERT ON `knowledge_chunks`
BEGIN
  INSERT INTO `knowledge_fts` (`rowid`, `title`, `headings`, `body`)
    VALUES (NEW.`id`, NEW.`title`, NEW.`headings`, NEW.`body`);
END;--> statement-breakpoint
CREATE TRIGGER `knowledge_chunks_unindexed` AFTER DELETE ON `knowledge_chunks`
BEGIN
  INSERT INTO `knowledge_fts` (`knowledge_fts`, `rowid`, `title`, `headings`, `body`)
    VALUES ('delete', OLD.`id`, OLD.`title`, OLD.`headings`, OLD.`body`);
END;--> statement-breakpoint
CREATE TRIGGER `knowledge_chunks_unchanged` BEFORE UPDATE ON `knowledge_chunks`
BEGIN
  SELECT RAISE(ABORT, 'knowledge_chunk_unchanged: a chunk is replaced (deleted and written again), not changed');
END;
