CREATE TABLE `conversation_keys` (
	`key_hash` text PRIMARY KEY NOT NULL,
	`conversation_id` text NOT NULL,
	`purpose` text NOT NULL,
	`expires_at` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `conversation_keys_conversation_idx` ON `conversation_keys` (`conversation_id`);--> statement-breakpoint
CREATE TABLE `email_suppressions` (
	`address_hash` text PRIMARY KEY NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `emails` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`kind` text NOT NULL,
	`status` text NOT NULL,
	`provider_id` text,
	`lead_id` text,
	`conversation_id` text,
	`subject` text NOT NULL,
	`link_origin` text NOT NULL,
	`digest_id` text,
	`up_to_message_id` text,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`last_error` text,
	`sent_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `emails_due_idx` ON `emails` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `emails_provider_idx` ON `emails` (`provider_id`,`kind`,`created_at`);--> statement-breakpoint
CREATE INDEX `emails_conversation_idx` ON `emails` (`conversation_id`,`kind`,`created_at`);--> statement-breakpoint
CREATE INDEX `emails_workspace_idx` ON `emails` (`workspace_id`,`id`);--> statement-breakpoint
ALTER TABLE `conversations` ADD `visitor_read_up_to` text;--> statement-breakpoint
ALTER TABLE `providers` ADD `availability` text DEFAULT 'available' NOT NULL;--> statement-breakpoint
ALTER TABLE `providers` ADD `lead_alerts` text DEFAULT 'instant' NOT NULL;--> statement-breakpoint
ALTER TABLE `providers` ADD `max_open_claims` integer DEFAULT 20 NOT NULL;