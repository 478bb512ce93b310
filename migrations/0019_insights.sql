-- Insights (docs/design/insights.md): a move to won may carry its value; an index for an expert's own numbers.
ALTER TABLE `lead_events` ADD `value_minor` integer;--> statement-breakpoint
ALTER TABLE `lead_events` ADD `value_currency` text;--> statement-breakpoint
CREATE INDEX `lead_events_actor_idx` ON `lead_events` (`actor_id`,`created_at`);