-- A claim of a lead crosses databases: the expert's limits and fee are held in the directory, then the lead is claimed on its shard.
CREATE TABLE `claim_reservations` (
	`change_id` text PRIMARY KEY NOT NULL,
	`lead_id` text NOT NULL,
	`provider_id` text NOT NULL,
	`workspace_id` text NOT NULL,
	`fee_minor` integer NOT NULL,
	`fee_currency` text,
	`fee_transfer_id` text NOT NULL,
	`window_start` integer NOT NULL,
	`state` text NOT NULL,
	`created_at` integer NOT NULL,
	`settled_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `claim_reservations_one_per_lead` ON `claim_reservations` (`lead_id`) WHERE state = 'reserved';--> statement-breakpoint
CREATE INDEX `claim_reservations_open_idx` ON `claim_reservations` (`created_at`) WHERE state = 'reserved';--> statement-breakpoint
CREATE INDEX `claim_reservations_provider_idx` ON `claim_reservations` (`provider_id`) WHERE state = 'reserved';