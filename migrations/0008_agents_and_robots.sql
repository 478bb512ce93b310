CREATE TABLE `agent_attempts` (
	`id` text PRIMARY KEY NOT NULL,
	`execution_id` text NOT NULL,
	`provider_id` text NOT NULL,
	`workspace_id` text NOT NULL,
	`outcome` text NOT NULL,
	`http_status` integer,
	`duration_ms` integer NOT NULL,
	`error` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `agent_attempts_provider_idx` ON `agent_attempts` (`provider_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `agent_attempts_execution_idx` ON `agent_attempts` (`execution_id`);--> statement-breakpoint
CREATE TABLE `provider_health` (
	`provider_id` text PRIMARY KEY NOT NULL,
	`consecutive_failures` integer DEFAULT 0 NOT NULL,
	`open_until` integer DEFAULT 0 NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `providers` ADD `signing_secret` text;--> statement-breakpoint
ALTER TABLE `providers` ADD `previous_signing_secret` text;--> statement-breakpoint
ALTER TABLE `providers` ADD `previous_signing_secret_until` integer;--> statement-breakpoint
ALTER TABLE `providers` ADD `signing_secret_shown_at` integer;--> statement-breakpoint
ALTER TABLE `providers` ADD `bearer_token` text;--> statement-breakpoint
ALTER TABLE `providers` ADD `agent_card` text;--> statement-breakpoint
ALTER TABLE `providers` ADD `timeout_ms` integer DEFAULT 10000 NOT NULL;