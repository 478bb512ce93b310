CREATE TABLE `invitations` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`email` text NOT NULL,
	`role` text NOT NULL,
	`status` text NOT NULL,
	`invited_by` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`responded_at` integer,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `invitations_pending_idx` ON `invitations` (`workspace_id`,`email`) WHERE status = 'pending';--> statement-breakpoint
CREATE INDEX `invitations_email_idx` ON `invitations` (`email`,`status`);--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_rate_limit_windows` (
	`key_id` text PRIMARY KEY NOT NULL,
	`window_start` integer NOT NULL,
	`count` integer NOT NULL,
	`max_count` integer,
	CONSTRAINT "within_window_limit" CHECK("__new_rate_limit_windows"."max_count" IS NULL OR "__new_rate_limit_windows"."count" <= "__new_rate_limit_windows"."max_count")
);
--> statement-breakpoint
INSERT INTO `__new_rate_limit_windows`("key_id", "window_start", "count") SELECT "key_id", "window_start", "count" FROM `rate_limit_windows`;--> statement-breakpoint
DROP TABLE `rate_limit_windows`;--> statement-breakpoint
ALTER TABLE `__new_rate_limit_windows` RENAME TO `rate_limit_windows`;--> statement-breakpoint
PRAGMA foreign_keys=ON;