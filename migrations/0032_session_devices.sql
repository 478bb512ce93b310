ALTER TABLE `user_sessions` ADD `device` text;--> statement-breakpoint
ALTER TABLE `user_sessions` ADD `place` text;--> statement-breakpoint
ALTER TABLE `user_sessions` ADD `last_seen_at` integer;