ALTER TABLE `leads` ADD `held_at` integer;--> statement-breakpoint
CREATE INDEX `leads_held_idx` ON `leads` (`held_at`) WHERE held_at IS NOT NULL;