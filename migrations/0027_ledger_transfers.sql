CREATE TABLE `ledger_accounts` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`currency` text NOT NULL,
	`created_at` integer NOT NULL,
	CONSTRAINT "ledger_account_currency" CHECK(length("ledger_accounts"."currency") = 3)
);
--> statement-breakpoint
CREATE TABLE `transfers` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`currency` text NOT NULL,
	`from_account` text NOT NULL,
	`to_account` text NOT NULL,
	`amount_minor` integer NOT NULL,
	`meter` text,
	`quantity` integer,
	`ref` text NOT NULL,
	`workspace_id` text,
	`created_at` integer NOT NULL,
	CONSTRAINT "transfer_amount_positive" CHECK("transfers"."amount_minor" > 0),
	CONSTRAINT "transfer_between_two_accounts" CHECK("transfers"."from_account" <> "transfers"."to_account")
);
--> statement-breakpoint
CREATE INDEX `transfers_ref_idx` ON `transfers` (`ref`,`kind`);--> statement-breakpoint
ALTER TABLE `domains` ADD `lead_price_currency` text;--> statement-breakpoint
-- The ledger's rules move into the database (docs/design/billing.md): a transfer is one row, and
-- the triggers below refuse an unknown account or a currency that is not the accounts', write its
-- two entries (so it sums to zero by construction), refuse any entry that is not one of them or
-- breaks its account's balance chain, and keep both tables append-only. The accounts: every
-- escrow, and the platform's revenue and funding accounts of each currency an escrow is in.
UPDATE `domains` SET `lead_price_currency` = 'EUR' WHERE `lead_price_minor` IS NOT NULL;--> statement-breakpoint
INSERT INTO `ledger_accounts` (`id`, `kind`, `currency`, `created_at`)
  SELECT `id`, 'escrow', `currency`, `created_at` FROM `escrows`;--> statement-breakpoint
INSERT OR IGNORE INTO `ledger_accounts` (`id`, `kind`, `currency`, `created_at`)
  SELECT 'platform:revenue:' || `currency`, 'revenue', `currency`, min(`created_at`) FROM `escrows` GROUP BY `currency`
  UNION ALL
  SELECT 'platform:funding:' || `currency`, 'funding', `currency`, min(`created_at`) FROM `escrows` GROUP BY `currency`;--> statement-breakpoint
INSERT OR IGNORE INTO `ledger_accounts` (`id`, `kind`, `currency`, `created_at`)
  SELECT DISTINCT `account`, `account_kind`, `currency`, 0 FROM `ledger_entries` WHERE `account_kind` <> 'escrow';--> statement-breakpoint
INSERT INTO `transfers` (`id`, `kind`, `currency`, `from_account`, `to_account`, `amount_minor`, `meter`, `quantity`,
    `ref`, `workspace_id`, `created_at`)
  SELECT f.`transfer_id`, f.`kind`, f.`currency`, f.`account`, t.`account`, t.`amount_minor`, f.`meter`, f.`quantity`,
    f.`ref`, coalesce(f.`workspace_id`, t.`workspace_id`), f.`created_at`
  FROM `ledger_entries` f JOIN `ledger_entries` t ON t.`transfer_id` = f.`transfer_id` AND t.`amount_minor` > 0
  WHERE f.`amount_minor` < 0;--> statement-breakpoint
CREATE TRIGGER `escrows_open_account` AFTER INSERT ON `escrows`
BEGIN
  INSERT INTO `ledger_accounts` (`id`, `kind`, `currency`, `created_at`)
    VALUES (NEW.`id`, 'escrow', NEW.`currency`, NEW.`created_at`);
  INSERT OR IGNORE INTO `ledger_accounts` (`id`, `kind`, `currency`, `created_at`)
    VALUES ('platform:revenue:' || NEW.`currency`, 'revenue', NEW.`currency`, NEW.`created_at`),
      ('platform:funding:' || NEW.`currency`, 'funding', NEW.`currency`, NEW.`created_at`);
END;--> statement-breakpoint
CREATE TRIGGER `transfers_refuse_unknown_account` BEFORE INSERT ON `transfers`
WHEN NOT EXISTS (SELECT 1 FROM `ledger_accounts` WHERE `id` = NEW.`from_account`)
  OR NOT EXISTS (SELECT 1 FROM `ledger_accounts` WHERE `id` = NEW.`to_account`)
BEGIN
  SELECT RAISE(ABORT, 'ledger_unknown_account: a transfer names an account that does not exist');
END;--> statement-breakpoint
CREATE TRIGGER `transfers_refuse_other_currency` BEFORE INSERT ON `transfers`
WHEN EXISTS (SELECT 1 FROM `ledger_accounts` WHERE `id` IN (NEW.`from_account`, NEW.`to_account`)
  AND `currency` <> NEW.`currency`)
BEGIN
  SELECT RAISE(ABORT, 'ledger_currency_mismatch: a transfer moves money in a currency its accounts are not in');
END;--> statement-breakpoint
CREATE TRIGGER `transfers_post` AFTER INSERT ON `transfers`
BEGIN
  INSERT INTO `ledger_entries` (`id`, `transfer_id`, `account`, `account_kind`, `amount_minor`, `balance_after`,
      `currency`, `kind`, `meter`, `quantity`, `ref`, `workspace_id`, `created_at`)
    SELECT 'led_' || substr(NEW.`id`, 5) || '_1', NEW.`id`, a.`id`, a.`kind`, -NEW.`amount_minor`,
      coalesce((SELECT `balance_after` FROM `ledger_entries` WHERE `account` = a.`id` ORDER BY `seq` DESC LIMIT 1), 0)
        - NEW.`amount_minor`,
      NEW.`currency`, NEW.`kind`, NEW.`meter`, NEW.`quantity`, NEW.`ref`, NEW.`workspace_id`, NEW.`created_at`
    FROM `ledger_accounts` a WHERE a.`id` = NEW.`from_account`;
  INSERT INTO `ledger_entries` (`id`, `transfer_id`, `account`, `account_kind`, `amount_minor`, `balance_after`,
      `currency`, `kind`, `meter`, `quantity`, `ref`, `workspace_id`, `created_at`)
    SELECT 'led_' || substr(NEW.`id`, 5) || '_2', NEW.`id`, a.`id`, a.`kind`, NEW.`amount_minor`,
      coalesce((SELECT `balance_after` FROM `ledger_entries` WHERE `account` = a.`id` ORDER BY `seq` DESC LIMIT 1), 0)
        + NEW.`amount_minor`,
      NEW.`currency`, NEW.`kind`, NEW.`meter`, NEW.`quantity`, NEW.`ref`, NEW.`workspace_id`, NEW.`created_at`
    FROM `ledger_accounts` a WHERE a.`id` = NEW.`to_account`;
END;--> statement-breakpoint
CREATE TRIGGER `ledger_entries_refuse_without_transfer` BEFORE INSERT ON `ledger_entries`
WHEN NOT EXISTS (SELECT 1 FROM `transfers` t JOIN `ledger_accounts` a ON a.`id` = NEW.`account`
  WHERE t.`id` = NEW.`transfer_id` AND t.`currency` = NEW.`currency` AND t.`kind` = NEW.`kind` AND t.`ref` = NEW.`ref`
    AND a.`kind` = NEW.`account_kind`
    AND ((NEW.`id` = 'led_' || substr(t.`id`, 5) || '_1' AND NEW.`account` = t.`from_account`
        AND NEW.`amount_minor` = -t.`amount_minor`)
      OR (NEW.`id` = 'led_' || substr(t.`id`, 5) || '_2' AND NEW.`account` = t.`to_account`
        AND NEW.`amount_minor` = t.`amount_minor`)))
BEGIN
  SELECT RAISE(ABORT, 'ledger_entry_without_transfer: a ledger entry is written only as one leg of its transfer');
END;--> statement-breakpoint
CREATE TRIGGER `ledger_entries_refuse_broken_chain` BEFORE INSERT ON `ledger_entries`
WHEN NEW.`balance_after` IS NOT coalesce((SELECT `balance_after` FROM `ledger_entries` WHERE `account` = NEW.`account`
  ORDER BY `seq` DESC LIMIT 1), 0) + NEW.`amount_minor`
BEGIN
  SELECT RAISE(ABORT, 'ledger_balance_chain: an entry''s balance is its account''s last balance plus its amount');
END;--> statement-breakpoint
CREATE TRIGGER `transfers_append_only` BEFORE UPDATE ON `transfers`
BEGIN
  SELECT RAISE(ABORT, 'ledger_append_only: a transfer is never changed; a correction is a transfer back');
END;--> statement-breakpoint
CREATE TRIGGER `transfers_never_deleted` BEFORE DELETE ON `transfers`
BEGIN
  SELECT RAISE(ABORT, 'ledger_append_only: a transfer is never deleted; a correction is a transfer back');
END;--> statement-breakpoint
CREATE TRIGGER `ledger_entries_append_only` BEFORE UPDATE ON `ledger_entries`
BEGIN
  SELECT RAISE(ABORT, 'ledger_append_only: a ledger entry is never changed');
END;--> statement-breakpoint
CREATE TRIGGER `ledger_entries_never_deleted` BEFORE DELETE ON `ledger_entries`
BEGIN
  SELECT RAISE(ABORT, 'ledger_append_only: a ledger entry is never deleted');
END;--> statement-breakpoint
DROP TRIGGER `usage_meters_overage_on_insert`;--> statement-breakpoint
DROP TRIGGER `usage_meters_overage_on_update`;--> statement-breakpoint
CREATE TRIGGER `usage_meters_overage_on_insert` AFTER INSERT ON `usage_meters`
WHEN NEW.`kind` = 'contract' AND NEW.`unit_price_minor` IS NOT NULL AND NEW.`used` > NEW.`included`
BEGIN
  INSERT INTO `transfers` (`id`, `kind`, `currency`, `from_account`, `to_account`, `amount_minor`, `meter`, `quantity`,
      `ref`, `workspace_id`, `created_at`)
    SELECT 'trf_' || NEW.`last_ref` || '_' || NEW.`meter`, 'charge', NEW.`currency`, NEW.`escrow_id`,
      'platform:revenue:' || NEW.`currency`, (NEW.`used` - NEW.`included`) * NEW.`unit_price_minor`, NEW.`meter`,
      NEW.`used` - NEW.`included`, NEW.`last_ref`, (SELECT `owner_id` FROM `escrows` WHERE `id` = NEW.`escrow_id`),
      NEW.`updated_at`
    WHERE NEW.`unit_price_minor` > 0;
END;--> statement-breakpoint
CREATE TRIGGER `usage_meters_overage_on_update` AFTER UPDATE OF `used` ON `usage_meters`
WHEN NEW.`kind` = 'contract' AND NEW.`unit_price_minor` IS NOT NULL AND NEW.`used` > max(OLD.`used`, NEW.`included`)
BEGIN
  INSERT INTO `transfers` (`id`, `kind`, `currency`, `from_account`, `to_account`, `amount_minor`, `meter`, `quantity`,
      `ref`, `workspace_id`, `created_at`)
    SELECT 'trf_' || NEW.`last_ref` || '_' || NEW.`meter`, 'charge', NEW.`currency`, NEW.`escrow_id`,
      'platform:revenue:' || NEW.`currency`, (NEW.`used` - max(OLD.`used`, NEW.`included`)) * NEW.`unit_price_minor`,
      NEW.`meter`, NEW.`used` - max(OLD.`used`, NEW.`included`), NEW.`last_ref`,
      (SELECT `owner_id` FROM `escrows` WHERE `id` = NEW.`escrow_id`), NEW.`updated_at`
    WHERE NEW.`unit_price_minor` > 0;
END;
--> statement-breakpoint
-- The charged metrics carry their currency (`charged_minor.executions.EUR`): a sum never adds two.
UPDATE `daily_rollups` SET `metric` = `metric` || '.' || coalesce((SELECT c.`currency` FROM `contracts` c
    WHERE c.`workspace_id` = `daily_rollups`.`workspace_id` ORDER BY c.`starts_at` DESC LIMIT 1), 'EUR')
  WHERE `metric` LIKE 'charged_minor.%' AND `metric` NOT LIKE 'charged_minor.%.%';
