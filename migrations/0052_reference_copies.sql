-- The reference tables' change log, which each shard's copy follows, written by triggers; every existing row logged once, so the copies start whole.
CREATE TABLE `reference_changes` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`table_name` text NOT NULL,
	`row_key` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `reference_copies` (
	`shard` integer PRIMARY KEY NOT NULL,
	`last_seq` integer NOT NULL,
	`copied_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `reference_copy_lease` (
	`id` integer PRIMARY KEY NOT NULL,
	`held_until` integer NOT NULL
);--> statement-breakpoint
CREATE TRIGGER `domains_logged_on_insert` AFTER INSERT ON `domains`
BEGIN
  INSERT INTO `reference_changes` (`table_name`, `row_key`) VALUES ('domains', json_array(NEW.`slug`));
END;--> statement-breakpoint
CREATE TRIGGER `domains_logged_on_update` AFTER UPDATE ON `domains`
BEGIN
  INSERT INTO `reference_changes` (`table_name`, `row_key`) VALUES ('domains', json_array(NEW.`slug`));
END;--> statement-breakpoint
CREATE TRIGGER `domains_logged_on_delete` AFTER DELETE ON `domains`
BEGIN
  INSERT INTO `reference_changes` (`table_name`, `row_key`) VALUES ('domains', json_array(OLD.`slug`));
END;--> statement-breakpoint
CREATE TRIGGER `providers_logged_on_insert` AFTER INSERT ON `providers`
BEGIN
  INSERT INTO `reference_changes` (`table_name`, `row_key`) VALUES ('providers', json_array(NEW.`id`));
END;--> statement-breakpoint
CREATE TRIGGER `providers_logged_on_update` AFTER UPDATE ON `providers`
BEGIN
  INSERT INTO `reference_changes` (`table_name`, `row_key`) VALUES ('providers', json_array(NEW.`id`));
END;--> statement-breakpoint
CREATE TRIGGER `providers_logged_on_delete` AFTER DELETE ON `providers`
BEGIN
  INSERT INTO `reference_changes` (`table_name`, `row_key`) VALUES ('providers', json_array(OLD.`id`));
END;--> statement-breakpoint
CREATE TRIGGER `provider_domains_logged_on_insert` AFTER INSERT ON `provider_domains`
BEGIN
  INSERT INTO `reference_changes` (`table_name`, `row_key`) VALUES ('provider_domains', json_array(NEW.`provider_id`, NEW.`domain`));
END;--> statement-breakpoint
CREATE TRIGGER `provider_domains_logged_on_update` AFTER UPDATE ON `provider_domains`
BEGIN
  INSERT INTO `reference_changes` (`table_name`, `row_key`) VALUES ('provider_domains', json_array(NEW.`provider_id`, NEW.`domain`));
END;--> statement-breakpoint
CREATE TRIGGER `provider_domains_logged_on_delete` AFTER DELETE ON `provider_domains`
BEGIN
  INSERT INTO `reference_changes` (`table_name`, `row_key`) VALUES ('provider_domains', json_array(OLD.`provider_id`, OLD.`domain`));
END;--> statement-breakpoint
CREATE TRIGGER `memberships_logged_on_insert` AFTER INSERT ON `memberships`
BEGIN
  INSERT INTO `reference_changes` (`table_name`, `row_key`) VALUES ('memberships', json_array(NEW.`user_id`, NEW.`workspace_id`));
END;--> statement-breakpoint
CREATE TRIGGER `memberships_logged_on_update` AFTER UPDATE ON `memberships`
BEGIN
  INSERT INTO `reference_changes` (`table_name`, `row_key`) VALUES ('memberships', json_array(NEW.`user_id`, NEW.`workspace_id`));
END;--> statement-breakpoint
CREATE TRIGGER `memberships_logged_on_delete` AFTER DELETE ON `memberships`
BEGIN
  INSERT INTO `reference_changes` (`table_name`, `row_key`) VALUES ('memberships', json_array(OLD.`user_id`, OLD.`workspace_id`));
END;--> statement-breakpoint
INSERT INTO `reference_changes` (`table_name`, `row_key`) SELECT 'domains', json_array(`slug`) FROM `domains`;--> statement-breakpoint
INSERT INTO `reference_changes` (`table_name`, `row_key`) SELECT 'providers', json_array(`id`) FROM `providers`;--> statement-breakpoint
INSERT INTO `reference_changes` (`table_name`, `row_key`) SELECT 'provider_domains', json_array(`provider_id`, `domain`) FROM `provider_domains`;--> statement-breakpoint
INSERT INTO `reference_changes` (`table_name`, `row_key`) SELECT 'memberships', json_array(`user_id`, `workspace_id`) FROM `memberships`;
