CREATE TABLE `privacy_requests` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`kind` text NOT NULL,
	`target_kind` text NOT NULL,
	`target` text NOT NULL,
	`target_hash` text NOT NULL,
	`status` text NOT NULL,
	`result` text,
	`requested_by` text NOT NULL,
	`created_at` integer NOT NULL,
	`completed_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `privacy_requests_erasure_idx` ON `privacy_requests` (`workspace_id`,`target_hash`) WHERE kind = 'erasure';--> statement-breakpoint
CREATE INDEX `privacy_requests_workspace_idx` ON `privacy_requests` (`workspace_id`,`created_at`);