ALTER TABLE `conversations` ADD `archived_at` integer;--> statement-breakpoint
ALTER TABLE `workspaces` ADD `conversation_retention_days` integer DEFAULT 365 NOT NULL;