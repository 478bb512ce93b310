-- Foreign keys that would cross databases go (docs/design/scale.md#the-layout): a membership and an invitation
-- name a workspace on its organisation's shard; the providers are copied into shards, where the users are not.
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_invitations` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`email` text NOT NULL,
	`role` text NOT NULL,
	`status` text NOT NULL,
	`invited_by` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`responded_at` integer
);
--> statement-breakpoint
INSERT INTO `__new_invitations`("id", "workspace_id", "email", "role", "status", "invited_by", "created_at", "expires_at", "responded_at") SELECT "id", "workspace_id", "email", "role", "status", "invited_by", "created_at", "expires_at", "responded_at" FROM `invitations`;--> statement-breakpoint
DROP TABLE `invitations`;--> statement-breakpoint
ALTER TABLE `__new_invitations` RENAME TO `invitations`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE UNIQUE INDEX `invitations_pending_idx` ON `invitations` (`workspace_id`,`email`) WHERE status = 'pending';--> statement-breakpoint
CREATE INDEX `invitations_email_idx` ON `invitations` (`email`,`status`);--> statement-breakpoint
CREATE TABLE `__new_memberships` (
	`user_id` text NOT NULL,
	`workspace_id` text NOT NULL,
	`role` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`user_id`, `workspace_id`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
INSERT INTO `__new_memberships`("user_id", "workspace_id", "role", "created_at") SELECT "user_id", "workspace_id", "role", "created_at" FROM `memberships`;--> statement-breakpoint
DROP TABLE `memberships`;--> statement-breakpoint
ALTER TABLE `__new_memberships` RENAME TO `memberships`;--> statement-breakpoint
CREATE INDEX `memberships_workspace_idx` ON `memberships` (`workspace_id`);--> statement-breakpoint
CREATE TABLE `__new_providers` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`status` text DEFAULT 'registered' NOT NULL,
	`referred_by_channel_key` text,
	`kind` text,
	`display_name` text,
	`headline` text,
	`bio` text,
	`accepted_domains` text DEFAULT '[]' NOT NULL,
	`accepted_topics` text DEFAULT '[]' NOT NULL,
	`languages` text DEFAULT '[]' NOT NULL,
	`regions` text DEFAULT '[]' NOT NULL,
	`endpoint_url` text,
	`agent_card_url` text,
	`priority` integer DEFAULT 0 NOT NULL,
	`review_note` text,
	`submitted_at` integer,
	`signing_secret` text,
	`previous_signing_secret` text,
	`previous_signing_secret_until` integer,
	`signing_secret_shown_at` integer,
	`bearer_token` text,
	`agent_card` text,
	`timeout_ms` integer DEFAULT 10000 NOT NULL,
	`profile_version` integer DEFAULT 1 NOT NULL,
	`availability` text DEFAULT 'available' NOT NULL,
	`lead_alerts` text DEFAULT 'instant' NOT NULL,
	`max_open_claims` integer DEFAULT 20 NOT NULL,
	`last_claimed_at` integer,
	`contact_reveals` integer DEFAULT 0 NOT NULL,
	`change_id` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
INSERT INTO `__new_providers`("id", "user_id", "status", "referred_by_channel_key", "kind", "display_name", "headline", "bio", "accepted_domains", "accepted_topics", "languages", "regions", "endpoint_url", "agent_card_url", "priority", "review_note", "submitted_at", "signing_secret", "previous_signing_secret", "previous_signing_secret_until", "signing_secret_shown_at", "bearer_token", "agent_card", "timeout_ms", "profile_version", "availability", "lead_alerts", "max_open_claims", "last_claimed_at", "contact_reveals", "change_id", "created_at", "updated_at") SELECT "id", "user_id", "status", "referred_by_channel_key", "kind", "display_name", "headline", "bio", "accepted_domains", "accepted_topics", "languages", "regions", "endpoint_url", "agent_card_url", "priority", "review_note", "submitted_at", "signing_secret", "previous_signing_secret", "previous_signing_secret_until", "signing_secret_shown_at", "bearer_token", "agent_card", "timeout_ms", "profile_version", "availability", "lead_alerts", "max_open_claims", "last_claimed_at", "contact_reveals", "change_id", "created_at", "updated_at" FROM `providers`;--> statement-breakpoint
DROP TABLE `providers`;--> statement-breakpoint
ALTER TABLE `__new_providers` RENAME TO `providers`;--> statement-breakpoint
CREATE UNIQUE INDEX `providers_user_id_unique` ON `providers` (`user_id`);