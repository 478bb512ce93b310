CREATE TABLE `lead_offers` (
	`lead_id` text NOT NULL,
	`provider_id` text NOT NULL,
	`wave` integer NOT NULL,
	`offered_at` integer NOT NULL,
	`cooldown_until` integer,
	PRIMARY KEY(`lead_id`, `provider_id`)
);
--> statement-breakpoint
CREATE INDEX `lead_offers_provider_idx` ON `lead_offers` (`provider_id`,`lead_id`);--> statement-breakpoint
ALTER TABLE `channels` ADD `routing` text;--> statement-breakpoint
ALTER TABLE `emails` ADD `user_id` text;--> statement-breakpoint
ALTER TABLE `leads` ADD `wave` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE `leads` ADD `widen_at` integer;--> statement-breakpoint
ALTER TABLE `leads` ADD `escalate_at` integer;--> statement-breakpoint
ALTER TABLE `leads` ADD `escalated_at` integer;--> statement-breakpoint
ALTER TABLE `leads` ADD `claim_sla_ms` integer DEFAULT 3600000 NOT NULL;--> statement-breakpoint
ALTER TABLE `leads` ADD `claim_deadline` integer;--> statement-breakpoint
ALTER TABLE `leads` ADD `first_claimed_at` integer;--> statement-breakpoint
ALTER TABLE `leads` ADD `first_contacted_at` integer;--> statement-breakpoint
ALTER TABLE `leads` ADD `language` text;--> statement-breakpoint
ALTER TABLE `leads` ADD `region` text;--> statement-breakpoint
ALTER TABLE `leads` ADD `console_origin` text;--> statement-breakpoint
CREATE INDEX `leads_widen_idx` ON `leads` (`status`,`wave`,`widen_at`);--> statement-breakpoint
CREATE INDEX `leads_escalate_idx` ON `leads` (`status`,`escalated_at`,`escalate_at`);--> statement-breakpoint
CREATE INDEX `leads_deadline_idx` ON `leads` (`status`,`claim_deadline`);--> statement-breakpoint
ALTER TABLE `providers` ADD `last_claimed_at` integer;--> statement-breakpoint
ALTER TABLE `providers` ADD `contact_reveals` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Leads open before offers existed stay visible: offered to every expert of their domain (the workbench's scope still applies).
INSERT OR IGNORE INTO `lead_offers` (`lead_id`, `provider_id`, `wave`, `offered_at`)
  SELECT l.`id`, d.`provider_id`, 2, l.`created_at` FROM `leads` l JOIN `provider_domains` d ON d.`domain` = l.`domain`
  WHERE l.`status` = 'open';--> statement-breakpoint
UPDATE `leads` SET `wave` = 2 WHERE `status` = 'open';
