ALTER TABLE `conversations` ADD `knowledge_answered_at` integer;--> statement-breakpoint
ALTER TABLE `messages` ADD `sources` text;