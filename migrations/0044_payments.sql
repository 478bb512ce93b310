-- Money in (docs/design/billing.md#card-top-ups): card top-ups through Stripe Checkout, the webhook events about them, and holds.
CREATE TABLE `payment_events` (
	`id` text PRIMARY KEY NOT NULL,
	`stripe_event_id` text,
	`type` text NOT NULL,
	`payment_id` text,
	`outcome` text NOT NULL,
	`detail` text,
	`amount_minor` integer,
	`currency` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `payment_events_stripe_idx` ON `payment_events` (`stripe_event_id`);--> statement-breakpoint
CREATE INDEX `payment_events_time_idx` ON `payment_events` (`created_at`);--> statement-breakpoint
CREATE TABLE `payments` (
	`id` text PRIMARY KEY NOT NULL,
	`escrow_id` text NOT NULL,
	`workspace_id` text,
	`provider_id` text,
	`user_id` text NOT NULL,
	`amount_minor` integer NOT NULL,
	`currency` text NOT NULL,
	`status` text NOT NULL,
	`checkout_session_id` text,
	`payment_intent_id` text,
	`refunded_minor` integer DEFAULT 0 NOT NULL,
	`receipt_url` text,
	`paid_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `payments_session_idx` ON `payments` (`checkout_session_id`);--> statement-breakpoint
CREATE INDEX `payments_intent_idx` ON `payments` (`payment_intent_id`);--> statement-breakpoint
CREATE INDEX `payments_escrow_idx` ON `payments` (`escrow_id`,`id`);--> statement-breakpoint
ALTER TABLE `escrows` ADD `held_at` integer;--> statement-breakpoint
-- A held escrow (a card payment into it is disputed) pays no charge and no lead fee: refused in the
-- words of the funds CHECK, so every caller already answers it as a want of funds (402, the claim's refusal).
CREATE TRIGGER `transfers_refuse_held_escrow` BEFORE INSERT ON `transfers`
WHEN NEW.`kind` IN ('charge', 'lead_fee')
  AND EXISTS (SELECT 1 FROM `escrows` WHERE `id` = NEW.`from_account` AND `held_at` IS NOT NULL)
BEGIN
  SELECT RAISE(ABORT, 'CHECK constraint failed: escrow_funds_left (held: a card payment into it is disputed)');
END;
