-- The owner's numbers per day (daily_rollups), rolled up by the cron sweep from the event outbox
-- and the ledger, with a cursor per source. The ledger's once-only indexes move to escrows only:
-- the platform's revenue and funding accounts take many legs with one reference (a lead's fee
-- from two experts, one invoice number credited to two escrows).
CREATE TABLE `daily_rollups` (
	`workspace_id` text NOT NULL,
	`day` text NOT NULL,
	`metric` text NOT NULL,
	`channel_key` text DEFAULT '' NOT NULL,
	`key_id` text DEFAULT '' NOT NULL,
	`value` integer NOT NULL,
	PRIMARY KEY(`workspace_id`, `day`, `metric`, `channel_key`, `key_id`)
);
--> statement-breakpoint
CREATE TABLE `rollup_cursors` (
	`source` text PRIMARY KEY NOT NULL,
	`last_seq` integer NOT NULL
);
--> statement-breakpoint
DROP INDEX `ledger_credit_once`;--> statement-breakpoint
DROP INDEX `ledger_fee_once`;--> statement-breakpoint
DROP INDEX `ledger_refund_once`;--> statement-breakpoint
CREATE UNIQUE INDEX `ledger_escrow_once` ON `ledger_entries` (`account`,`kind`,`ref`) WHERE "ledger_entries"."account_kind" = 'escrow' AND "ledger_entries"."kind" <> 'charge';