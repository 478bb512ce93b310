-- A contract's monthly meters join the API keys' in usage_meters (`kind` = contract), so an
-- execution counts every meter it moves in one statement; contract_usage's rows move there. The
-- overage of a priced meter is written to the ledger by the database, in that same statement
-- (the triggers below): the escrow's leg and the revenue's, each with its balance read as it is
-- written, so a unit past the allowance is never counted without being paid, nor paid twice.
ALTER TABLE `usage_meters` ADD `kind` text DEFAULT 'key' NOT NULL;--> statement-breakpoint
ALTER TABLE `usage_meters` ADD `included` integer;--> statement-breakpoint
ALTER TABLE `usage_meters` ADD `unit_price_minor` integer;--> statement-breakpoint
ALTER TABLE `usage_meters` ADD `escrow_id` text;--> statement-breakpoint
ALTER TABLE `usage_meters` ADD `currency` text;--> statement-breakpoint
ALTER TABLE `usage_meters` ADD `last_ref` text;--> statement-breakpoint
ALTER TABLE `usage_meters` ADD `notified_percent` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `usage_meters` ADD `updated_at` integer;--> statement-breakpoint
CREATE INDEX `usage_meters_contract_period_idx` ON `usage_meters` (`kind`,`period`,`notified_percent`);--> statement-breakpoint
INSERT INTO `usage_meters` (`key_id`, `meter`, `period`, `used`, `quota`, `kind`, `included`, `unit_price_minor`,
  `escrow_id`, `currency`, `notified_percent`, `updated_at`)
SELECT u.`contract_id`, u.`meter`, u.`period`, u.`used`, CASE WHEN u.`unit_price_minor` IS NULL THEN u.`included` END,
  'contract', u.`included`, u.`unit_price_minor`, c.`escrow_id`, c.`currency`, u.`notified_percent`, u.`updated_at`
FROM `contract_usage` u JOIN `contracts` c ON c.`id` = u.`contract_id`;--> statement-breakpoint
DROP TABLE `contract_usage`;--> statement-breakpoint
CREATE TRIGGER `usage_meters_overage_on_insert` AFTER INSERT ON `usage_meters`
WHEN NEW.`kind` = 'contract' AND NEW.`unit_price_minor` IS NOT NULL AND NEW.`used` > NEW.`included`
BEGIN
  INSERT INTO `ledger_entries` (`id`, `transfer_id`, `account`, `account_kind`, `amount_minor`, `balance_after`,
    `currency`, `kind`, `meter`, `quantity`, `ref`, `workspace_id`, `created_at`)
  VALUES ('led_' || lower(hex(randomblob(13))), 'trf_' || NEW.`last_ref` || '_' || NEW.`meter`, NEW.`escrow_id`,
    'escrow', -(NEW.`used` - NEW.`included`) * NEW.`unit_price_minor`,
    coalesce((SELECT `balance_after` FROM `ledger_entries` WHERE `account` = NEW.`escrow_id` ORDER BY `seq` DESC
      LIMIT 1), 0) - (NEW.`used` - NEW.`included`) * NEW.`unit_price_minor`,
    NEW.`currency`, 'charge', NEW.`meter`, NEW.`used` - NEW.`included`, NEW.`last_ref`,
    (SELECT `owner_id` FROM `escrows` WHERE `id` = NEW.`escrow_id`), NEW.`updated_at`);
  INSERT INTO `ledger_entries` (`id`, `transfer_id`, `account`, `account_kind`, `amount_minor`, `balance_after`,
    `currency`, `kind`, `meter`, `quantity`, `ref`, `workspace_id`, `created_at`)
  VALUES ('led_' || lower(hex(randomblob(13))), 'trf_' || NEW.`last_ref` || '_' || NEW.`meter`,
    'platform:revenue:' || NEW.`currency`, 'revenue', (NEW.`used` - NEW.`included`) * NEW.`unit_price_minor`,
    coalesce((SELECT `balance_after` FROM `ledger_entries` WHERE `account` = 'platform:revenue:' || NEW.`currency`
      ORDER BY `seq` DESC LIMIT 1), 0) + (NEW.`used` - NEW.`included`) * NEW.`unit_price_minor`,
    NEW.`currency`, 'charge', NEW.`meter`, NEW.`used` - NEW.`included`, NEW.`last_ref`,
    (SELECT `owner_id` FROM `escrows` WHERE `id` = NEW.`escrow_id`), NEW.`updated_at`);
END;--> statement-breakpoint
CREATE TRIGGER `usage_meters_overage_on_update` AFTER UPDATE OF `used` ON `usage_meters`
WHEN NEW.`kind` = 'contract' AND NEW.`unit_price_minor` IS NOT NULL AND NEW.`used` > max(OLD.`used`, NEW.`included`)
BEGIN
  INSERT INTO `ledger_entries` (`id`, `transfer_id`, `account`, `account_kind`, `amount_minor`, `balance_after`,
    `currency`, `kind`, `meter`, `quantity`, `ref`, `workspace_id`, `created_at`)
  VALUES ('led_' || lower(hex(randomblob(13))), 'trf_' || NEW.`last_ref` || '_' || NEW.`meter`, NEW.`escrow_id`,
    'escrow', -(NEW.`used` - max(OLD.`used`, NEW.`included`)) * NEW.`unit_price_minor`,
    coalesce((SELECT `balance_after` FROM `ledger_entries` WHERE `account` = NEW.`escrow_id` ORDER BY `seq` DESC
      LIMIT 1), 0) - (NEW.`used` - max(OLD.`used`, NEW.`included`)) * NEW.`unit_price_minor`,
    NEW.`currency`, 'charge', NEW.`meter`, NEW.`used` - max(OLD.`used`, NEW.`included`), NEW.`last_ref`,
    (SELECT `owner_id` FROM `escrows` WHERE `id` = NEW.`escrow_id`), NEW.`updated_at`);
  INSERT INTO `ledger_entries` (`id`, `transfer_id`, `account`, `account_kind`, `amount_minor`, `balance_after`,
    `currency`, `kind`, `meter`, `quantity`, `ref`, `workspace_id`, `created_at`)
  VALUES ('led_' || lower(hex(randomblob(13))), 'trf_' || NEW.`last_ref` || '_' || NEW.`meter`,
    'platform:revenue:' || NEW.`currency`, 'revenue', (NEW.`used` - max(OLD.`used`, NEW.`included`)) *
      NEW.`unit_price_minor`,
    coalesce((SELECT `balance_after` FROM `ledger_entries` WHERE `account` = 'platform:revenue:' || NEW.`currency`
      ORDER BY `seq` DESC LIMIT 1), 0) + (NEW.`used` - max(OLD.`used`, NEW.`included`)) * NEW.`unit_price_minor`,
    NEW.`currency`, 'charge', NEW.`meter`, NEW.`used` - max(OLD.`used`, NEW.`included`), NEW.`last_ref`,
    (SELECT `owner_id` FROM `escrows` WHERE `id` = NEW.`escrow_id`), NEW.`updated_at`);
END;
