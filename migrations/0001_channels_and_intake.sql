CREATE TABLE `channels` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`channel_key` text NOT NULL,
	`workspace_id` text NOT NULL,
	`name` text NOT NULL,
	`domain` text NOT NULL,
	`allowed_origins` text NOT NULL,
	`first_party_origins` text NOT NULL,
	`status` text DEFAULT 'active' NOT NULL,
	`widget_config` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `channels_channel_key_unique` ON `channels` (`channel_key`);--> statement-breakpoint
CREATE INDEX `channels_workspace_idx` ON `channels` (`workspace_id`);--> statement-breakpoint
CREATE TABLE `leads` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`demand_id` text NOT NULL,
	`channel_id` integer,
	`visitor_session_id` text,
	`status` text DEFAULT 'open' NOT NULL,
	`trigger` text NOT NULL,
	`contact_name` text,
	`contact_email` text,
	`contact_phone` text,
	`attribution` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `leads_workspace_idx` ON `leads` (`workspace_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `leads_channel_idx` ON `leads` (`channel_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `visitor_messages` (
	`id` text PRIMARY KEY NOT NULL,
	`visitor_session_id` text NOT NULL,
	`role` text NOT NULL,
	`text` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `visitor_messages_session_idx` ON `visitor_messages` (`visitor_session_id`,`id`);--> statement-breakpoint
CREATE TABLE `visitor_sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`channel_id` integer NOT NULL,
	`workspace_id` text NOT NULL,
	`token_hash` text NOT NULL,
	`attribution` text,
	`lead_id` text,
	`created_at` integer NOT NULL,
	`last_seen_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `visitor_sessions_token_hash_unique` ON `visitor_sessions` (`token_hash`);--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_executions` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`workspace_id` text NOT NULL,
	`key_id` text,
	`actor_kind` text NOT NULL,
	`actor_id` text NOT NULL,
	`domain` text NOT NULL,
	`status` text NOT NULL,
	`request_id` text NOT NULL,
	`trace_id` text NOT NULL,
	`idempotency_key` text,
	`project_id` text,
	`user_id` text,
	`session_id` text,
	`granted_scopes` text NOT NULL,
	`exact_bridge` text,
	`source_record` text NOT NULL,
	`audit_id` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
INSERT INTO `__new_executions`("id", "organization_id", "workspace_id", "key_id", "actor_kind", "actor_id", "domain", "status", "request_id", "trace_id", "idempotency_key", "project_id", "user_id", "session_id", "granted_scopes", "exact_bridge", "source_record", "audit_id", "created_at") SELECT "id", "organization_id", "workspace_id", "key_id", "actor_kind", "actor_id", "domain", "status", "request_id", "trace_id", "idempotency_key", "project_id", "user_id", "session_id", "granted_scopes", "exact_bridge", "source_record", "audit_id", "created_at" FROM `executions`;--> statement-breakpoint
DROP TABLE `executions`;--> statement-breakpoint
ALTER TABLE `__new_executions` RENAME TO `executions`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `executions_workspace_idx` ON `executions` (`workspace_id`,`created_at`);--> statement-breakpoint
ALTER TABLE `demands` ADD `channel_id` integer;--> statement-breakpoint
ALTER TABLE `demands` ADD `visitor_session_id` text;--> statement-breakpoint
ALTER TABLE `demands` ADD `trigger` text;--> statement-breakpoint
ALTER TABLE `demands` ADD `attribution` text;--> statement-breakpoint
CREATE INDEX `demands_channel_idx` ON `demands` (`channel_id`,`created_at`);