-- Half the bytes per record (docs/design/scale.md): indexes only over the rows their queries ask for, and an execution keeps what its audit entry needs (the entry is the row itself).
DROP INDEX `demands_channel_idx`;--> statement-breakpoint
CREATE INDEX `demands_channel_idx` ON `demands` (`channel_id`,`created_at`) WHERE channel_id IS NOT NULL;--> statement-breakpoint
DROP INDEX `emails_conversation_idx`;--> statement-breakpoint
CREATE INDEX `emails_conversation_idx` ON `emails` (`conversation_id`,`kind`,`created_at`) WHERE conversation_id IS NOT NULL;--> statement-breakpoint
DROP INDEX `lead_events_actor_idx`;--> statement-breakpoint
CREATE INDEX `lead_events_actor_idx` ON `lead_events` (`actor_id`,`created_at`) WHERE actor_kind = 'provider';--> statement-breakpoint
DROP INDEX `leads_deadline_idx`;--> statement-breakpoint
DROP INDEX `leads_channel_idx`;--> statement-breakpoint
DROP INDEX `leads_claimer_idx`;--> statement-breakpoint
CREATE INDEX `leads_deadline_idx` ON `leads` (`status`,`claim_deadline`) WHERE claim_deadline IS NOT NULL;--> statement-breakpoint
CREATE INDEX `leads_channel_idx` ON `leads` (`channel_id`,`created_at`) WHERE channel_id IS NOT NULL;--> statement-breakpoint
CREATE INDEX `leads_claimer_idx` ON `leads` (`claimed_by`,`id`) WHERE claimed_by IS NOT NULL;--> statement-breakpoint
ALTER TABLE `executions` ADD `via` text;--> statement-breakpoint
ALTER TABLE `executions` ADD `gateway_request_id` text;