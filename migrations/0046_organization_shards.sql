-- The directory's map from an organisation to the shard that holds its rows (docs/design/scale.md).
CREATE TABLE `organization_shards` (
	`organization_id` text PRIMARY KEY NOT NULL,
	`shard` integer NOT NULL,
	`placed_at` integer NOT NULL,
	`moving_to` integer,
	`move_step` text,
	`move_updated_at` integer
);
--> statement-breakpoint
CREATE INDEX `organization_shards_moving_idx` ON `organization_shards` (`moving_to`) WHERE "organization_shards"."moving_to" IS NOT NULL;
--> statement-breakpoint
-- Organisations that existed before the shards start on the first one.
INSERT INTO `organization_shards` (`organization_id`, `shard`, `placed_at`) SELECT `id`, 0, `created_at` FROM `organizations`;
