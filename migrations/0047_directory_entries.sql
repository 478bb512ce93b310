-- The directory's maps from a workspace, a key and a channel to their organisation (docs/design/scale.md).
CREATE TABLE `directory_entries` (
	`kind` text NOT NULL,
	`value` text NOT NULL,
	`organization_id` text NOT NULL,
	PRIMARY KEY(`kind`, `value`)
);
--> statement-breakpoint
CREATE INDEX `directory_entries_organization_idx` ON `directory_entries` (`organization_id`);
--> statement-breakpoint
-- What exists already (in the one database before the shards, which becomes the directory).
INSERT INTO `directory_entries` (`kind`, `value`, `organization_id`) SELECT 'workspace', `id`, `organization_id` FROM `workspaces`;
--> statement-breakpoint
INSERT INTO `directory_entries` (`kind`, `value`, `organization_id`)
  SELECT 'key', k.`id`, w.`organization_id` FROM `api_keys` k JOIN `workspaces` w ON w.`id` = k.`workspace_id`;
--> statement-breakpoint
INSERT INTO `directory_entries` (`kind`, `value`, `organization_id`)
  SELECT 'key_hash', k.`token_hash`, w.`organization_id` FROM `api_keys` k JOIN `workspaces` w ON w.`id` = k.`workspace_id`;
--> statement-breakpoint
INSERT INTO `directory_entries` (`kind`, `value`, `organization_id`)
  SELECT 'channel', c.`channel_key`, w.`organization_id` FROM `channels` c JOIN `workspaces` w ON w.`id` = c.`workspace_id`;
