CREATE TABLE `provisioning_requests` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`kind` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`details` text NOT NULL,
	`requested_by` text NOT NULL,
	`decided_by` text,
	`decided_at` integer,
	`decision_note` text,
	`result_id` text,
	`sealed_secret` text,
	`secret_shown_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `provisioning_requests_status_idx` ON `provisioning_requests` (`status`,`created_at`);--> statement-breakpoint
CREATE INDEX `provisioning_requests_workspace_idx` ON `provisioning_requests` (`workspace_id`,`created_at`);--> statement-breakpoint
ALTER TABLE `emails` ADD `link_path` text;