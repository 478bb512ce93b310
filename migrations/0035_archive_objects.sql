CREATE TABLE `archive_objects` (
	`key` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`kind` text NOT NULL,
	`day` text NOT NULL,
	`rows` integer NOT NULL,
	`bytes` integer NOT NULL,
	`sha256` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `archive_objects_workspace_idx` ON `archive_objects` (`workspace_id`,`kind`,`day`);--> statement-breakpoint
CREATE TABLE `lifecycle_cursors` (
	`kind` text PRIMARY KEY NOT NULL,
	`last_id` text NOT NULL
);
