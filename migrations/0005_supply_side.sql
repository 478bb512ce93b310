CREATE TABLE `conversations` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`kind` text NOT NULL,
	`channel_id` integer,
	`token_hash` text,
	`external_session_id` text,
	`attribution` text,
	`demand_id` text,
	`lead_id` text,
	`created_at` integer NOT NULL,
	`last_seen_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `conversations_token_hash_unique` ON `conversations` (`token_hash`);--> statement-breakpoint
CREATE UNIQUE INDEX `conversations_external_session_idx` ON `conversations` (`workspace_id`,`external_session_id`) WHERE external_session_id IS NOT NULL;--> statement-breakpoint
CREATE TABLE `domains` (
	`slug` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `lead_events` (
	`id` text PRIMARY KEY NOT NULL,
	`lead_id` text NOT NULL,
	`from_status` text,
	`to_status` text NOT NULL,
	`actor_kind` text NOT NULL,
	`actor_id` text,
	`note` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `lead_events_lead_idx` ON `lead_events` (`lead_id`,`id`);--> statement-breakpoint
CREATE TABLE `messages` (
	`id` text PRIMARY KEY NOT NULL,
	`conversation_id` text NOT NULL,
	`role` text NOT NULL,
	`text` text NOT NULL,
	`author_id` text,
	`execution_id` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `messages_conversation_idx` ON `messages` (`conversation_id`,`id`);--> statement-breakpoint
CREATE TABLE `provider_domains` (
	`provider_id` text NOT NULL,
	`domain` text NOT NULL,
	PRIMARY KEY(`provider_id`, `domain`)
);
--> statement-breakpoint
CREATE INDEX `provider_domains_domain_idx` ON `provider_domains` (`domain`);--> statement-breakpoint
CREATE TABLE `provider_transitions` (
	`id` text PRIMARY KEY NOT NULL,
	`provider_id` text NOT NULL,
	`from_status` text,
	`to_status` text NOT NULL,
	`actor_kind` text NOT NULL,
	`actor_id` text,
	`note` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `provider_transitions_provider_idx` ON `provider_transitions` (`provider_id`,`id`);--> statement-breakpoint
ALTER TABLE `channels` ADD `routing_pool` text DEFAULT 'platform' NOT NULL;--> statement-breakpoint
ALTER TABLE `demands` ADD `conversation_id` text;--> statement-breakpoint
ALTER TABLE `demands` ADD `disposition` text DEFAULT 'routed' NOT NULL;--> statement-breakpoint
ALTER TABLE `demands` ADD `reasons` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `demands` ADD `topic` text DEFAULT 'general' NOT NULL;--> statement-breakpoint
ALTER TABLE `demands` ADD `urgency` text DEFAULT 'normal' NOT NULL;--> statement-breakpoint
CREATE INDEX `demands_conversation_idx` ON `demands` (`conversation_id`);--> statement-breakpoint
ALTER TABLE `leads` ADD `conversation_id` text;--> statement-breakpoint
ALTER TABLE `leads` ADD `domain` text DEFAULT 'consultation' NOT NULL;--> statement-breakpoint
ALTER TABLE `leads` ADD `topic` text DEFAULT 'general' NOT NULL;--> statement-breakpoint
ALTER TABLE `leads` ADD `urgency` text DEFAULT 'normal' NOT NULL;--> statement-breakpoint
ALTER TABLE `leads` ADD `routing_pool` text DEFAULT 'platform' NOT NULL;--> statement-breakpoint
ALTER TABLE `leads` ADD `summary` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `leads` ADD `claimed_by` text;--> statement-breakpoint
ALTER TABLE `leads` ADD `claimed_at` integer;--> statement-breakpoint
ALTER TABLE `leads` ADD `updated_at` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `leads_open_domain_idx` ON `leads` (`status`,`domain`,`id`);--> statement-breakpoint
CREATE INDEX `leads_claimer_idx` ON `leads` (`claimed_by`,`id`);--> statement-breakpoint
ALTER TABLE `providers` ADD `kind` text;--> statement-breakpoint
ALTER TABLE `providers` ADD `display_name` text;--> statement-breakpoint
ALTER TABLE `providers` ADD `headline` text;--> statement-breakpoint
ALTER TABLE `providers` ADD `bio` text;--> statement-breakpoint
ALTER TABLE `providers` ADD `accepted_domains` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `providers` ADD `accepted_topics` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `providers` ADD `languages` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `providers` ADD `regions` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `providers` ADD `endpoint_url` text;--> statement-breakpoint
ALTER TABLE `providers` ADD `agent_card_url` text;--> statement-breakpoint
ALTER TABLE `providers` ADD `priority` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `providers` ADD `review_note` text;--> statement-breakpoint
ALTER TABLE `providers` ADD `submitted_at` integer;--> statement-breakpoint
ALTER TABLE `users` ADD `is_platform_admin` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `workspaces` ADD `blocked_terms` text DEFAULT '[]' NOT NULL;