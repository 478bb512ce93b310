-- An execution's granted scopes as bits of KNOWN_SCOPES (worker/platform/access/schemas.ts), in place of a JSON list.
ALTER TABLE `executions` ADD `scope_bits` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE `executions` SET `scope_bits` = (SELECT coalesce(sum(1 << k.`key`), 0)
  FROM json_each(`executions`.`granted_scopes`) g
  JOIN json_each('["execute","leads:write","agents:invoke","memory:read","memory:write","channels:read","channels:write","knowledge:read","knowledge:write"]') k
    ON k.`value` = g.`value`);--> statement-breakpoint
-- An offer is found by its lead and expert: the table is that key's own tree (no second copy of it as an index).
-- drizzle-kit does not write WITHOUT ROWID: a later migration that rebuilds this table must keep it.
CREATE TABLE `lead_offers_keyed` (
	`lead_id` text NOT NULL,
	`provider_id` text NOT NULL,
	`wave` integer NOT NULL,
	`offered_at` integer NOT NULL,
	`cooldown_until` integer,
	PRIMARY KEY(`lead_id`, `provider_id`)
) WITHOUT ROWID;--> statement-breakpoint
INSERT INTO `lead_offers_keyed` SELECT `lead_id`, `provider_id`, `wave`, `offered_at`, `cooldown_until` FROM `lead_offers`;--> statement-breakpoint
DROP TABLE `lead_offers`;--> statement-breakpoint
ALTER TABLE `lead_offers_keyed` RENAME TO `lead_offers`;--> statement-breakpoint
CREATE INDEX `lead_offers_provider_idx` ON `lead_offers` (`provider_id`,`lead_id`);
