-- The ledger (docs/design/billing.md): contracts, escrows, the double-entry ledger, a contract's
-- monthly meters, statements and lead-fee refund requests; a lead price per domain; two more guard
-- columns in the execution's rate-limit row. drizzle-kit copied the new guard columns from the old
-- table too; only the existing ones are copied here. Providers approved before this migration get
-- their escrow here (approval opens it from now on).
CREATE TABLE `contract_usage` (
	`contract_id` text NOT NULL,
	`meter` text NOT NULL,
	`period` text NOT NULL,
	`used` integer NOT NULL,
	`included` integer NOT NULL,
	`unit_price_minor` integer,
	`notified_percent` integer DEFAULT 0 NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`contract_id`, `meter`, `period`),
	CONSTRAINT "contract_allowance_left" CHECK("contract_usage"."unit_price_minor" IS NOT NULL OR "contract_usage"."used" <= "contract_usage"."included")
);
--> statement-breakpoint
CREATE INDEX `contract_usage_period_idx` ON `contract_usage` (`period`,`notified_percent`);--> statement-breakpoint
CREATE TABLE `contracts` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`plan` text NOT NULL,
	`currency` text NOT NULL,
	`starts_at` integer NOT NULL,
	`ends_at` integer,
	`reference` text,
	`allowances` text NOT NULL,
	`overage` text NOT NULL,
	`escrow_id` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `contracts_workspace_idx` ON `contracts` (`workspace_id`,`starts_at`);--> statement-breakpoint
CREATE TABLE `escrows` (
	`id` text PRIMARY KEY NOT NULL,
	`owner_kind` text NOT NULL,
	`owner_id` text NOT NULL,
	`contract_id` text,
	`currency` text NOT NULL,
	`low_balance_minor` integer NOT NULL,
	`low_balance_notified` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `escrows_owner_idx` ON `escrows` (`owner_kind`,`owner_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `escrows_one_per_provider` ON `escrows` (`owner_id`) WHERE "escrows"."owner_kind" = 'provider';--> statement-breakpoint
CREATE TABLE `lead_refund_requests` (
	`id` text PRIMARY KEY NOT NULL,
	`lead_id` text NOT NULL,
	`provider_id` text NOT NULL,
	`escrow_id` text NOT NULL,
	`amount_minor` integer NOT NULL,
	`currency` text NOT NULL,
	`reason` text NOT NULL,
	`note` text,
	`status` text NOT NULL,
	`decision_note` text,
	`decided_by` text,
	`decided_at` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `lead_refund_once` ON `lead_refund_requests` (`lead_id`,`provider_id`);--> statement-breakpoint
CREATE INDEX `lead_refund_status_idx` ON `lead_refund_requests` (`status`,`created_at`);--> statement-breakpoint
CREATE INDEX `lead_refund_provider_idx` ON `lead_refund_requests` (`provider_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `ledger_entries` (
	`seq` integer PRIMARY KEY NOT NULL,
	`id` text NOT NULL,
	`transfer_id` text NOT NULL,
	`account` text NOT NULL,
	`account_kind` text NOT NULL,
	`amount_minor` integer NOT NULL,
	`balance_after` integer NOT NULL,
	`currency` text NOT NULL,
	`kind` text NOT NULL,
	`meter` text,
	`quantity` integer,
	`ref` text NOT NULL,
	`workspace_id` text,
	`created_at` integer NOT NULL,
	CONSTRAINT "escrow_funds_left" CHECK("ledger_entries"."account_kind" <> 'escrow' OR "ledger_entries"."balance_after" >= 0)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `ledger_entries_id_unique` ON `ledger_entries` (`id`);--> statement-breakpoint
CREATE INDEX `ledger_account_idx` ON `ledger_entries` (`account`,`seq`);--> statement-breakpoint
CREATE INDEX `ledger_account_time_idx` ON `ledger_entries` (`account`,`created_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `ledger_credit_once` ON `ledger_entries` (`account`,`ref`) WHERE "ledger_entries"."kind" = 'credit';--> statement-breakpoint
CREATE UNIQUE INDEX `ledger_fee_once` ON `ledger_entries` (`account`,`ref`) WHERE "ledger_entries"."kind" = 'lead_fee';--> statement-breakpoint
CREATE UNIQUE INDEX `ledger_refund_once` ON `ledger_entries` (`account`,`ref`) WHERE "ledger_entries"."kind" = 'refund';--> statement-breakpoint
CREATE TABLE `statements` (
	`id` text PRIMARY KEY NOT NULL,
	`escrow_id` text NOT NULL,
	`owner_kind` text NOT NULL,
	`owner_id` text NOT NULL,
	`contract_id` text,
	`period` text NOT NULL,
	`currency` text NOT NULL,
	`opening_minor` integer NOT NULL,
	`credits_minor` integer NOT NULL,
	`charges_minor` integer NOT NULL,
	`fees_minor` integer NOT NULL,
	`refunds_minor` integer NOT NULL,
	`closing_minor` integer NOT NULL,
	`meters` text NOT NULL,
	`issued_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `statements_once` ON `statements` (`escrow_id`,`period`);--> statement-breakpoint
CREATE INDEX `statements_owner_idx` ON `statements` (`owner_kind`,`owner_id`,`period`);--> statement-breakpoint
ALTER TABLE `domains` ADD `lead_price_minor` integer;--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_rate_limit_windows` (
	`key_id` text PRIMARY KEY NOT NULL,
	`window_start` integer NOT NULL,
	`count` integer NOT NULL,
	`max_count` integer,
	`key_usable` integer,
	`tenant_active` integer,
	`channel_active` integer,
	`quota_left` integer,
	`contract_current` integer,
	`allowance_left` integer,
	CONSTRAINT "guard_key_usable" CHECK("__new_rate_limit_windows"."key_usable" IS NULL OR "__new_rate_limit_windows"."key_usable" = 1),
	CONSTRAINT "guard_tenant_active" CHECK("__new_rate_limit_windows"."tenant_active" IS NULL OR "__new_rate_limit_windows"."tenant_active" = 1),
	CONSTRAINT "guard_channel_active" CHECK("__new_rate_limit_windows"."channel_active" IS NULL OR "__new_rate_limit_windows"."channel_active" = 1),
	CONSTRAINT "within_window_limit" CHECK("__new_rate_limit_windows"."max_count" IS NULL OR "__new_rate_limit_windows"."count" <= "__new_rate_limit_windows"."max_count"),
	CONSTRAINT "guard_quota_left" CHECK("__new_rate_limit_windows"."quota_left" IS NULL OR "__new_rate_limit_windows"."quota_left" > 0),
	CONSTRAINT "guard_contract_current" CHECK("__new_rate_limit_windows"."contract_current" IS NULL OR "__new_rate_limit_windows"."contract_current" = 1),
	CONSTRAINT "guard_allowance_left" CHECK("__new_rate_limit_windows"."allowance_left" IS NULL OR "__new_rate_limit_windows"."allowance_left" = 1)
);
--> statement-breakpoint
INSERT INTO `__new_rate_limit_windows`("key_id", "window_start", "count", "max_count", "key_usable", "tenant_active", "channel_active", "quota_left") SELECT "key_id", "window_start", "count", "max_count", "key_usable", "tenant_active", "channel_active", "quota_left" FROM `rate_limit_windows`;--> statement-breakpoint
DROP TABLE `rate_limit_windows`;--> statement-breakpoint
ALTER TABLE `__new_rate_limit_windows` RENAME TO `rate_limit_windows`;--> statement-breakpoint
PRAGMA foreign_keys=ON;
--> statement-breakpoint
INSERT INTO `escrows` (`id`, `owner_kind`, `owner_id`, `contract_id`, `currency`, `low_balance_minor`, `low_balance_notified`, `created_at`)
SELECT 'esc_' || lower(hex(randomblob(13))), 'provider', `id`, NULL, 'EUR', 1000, 0, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)
FROM `providers` WHERE `status` IN ('active', 'suspended');
