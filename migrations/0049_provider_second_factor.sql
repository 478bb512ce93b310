-- Whether a provider's account has a second factor, beside the provider (docs/design/scale.md#the-layout):
-- an organisation that requires one reads it on its shard, where the factors themselves never go.
ALTER TABLE `providers` ADD `second_factor` integer DEFAULT false NOT NULL;
--> statement-breakpoint
UPDATE `providers` SET `second_factor` = (EXISTS (SELECT 1 FROM `user_factors` f WHERE f.`user_id` = `providers`.`user_id`
  AND f.`confirmed_at` IS NOT NULL) OR EXISTS (SELECT 1 FROM `user_passkeys` k WHERE k.`user_id` = `providers`.`user_id`));
--> statement-breakpoint
CREATE TRIGGER `user_factors_mark_provider_on_insert` AFTER INSERT ON `user_factors`
BEGIN
  UPDATE `providers` SET `second_factor` = (EXISTS (SELECT 1 FROM `user_factors` f WHERE f.`user_id` = NEW.`user_id`
    AND f.`confirmed_at` IS NOT NULL) OR EXISTS (SELECT 1 FROM `user_passkeys` k WHERE k.`user_id` = NEW.`user_id`))
  WHERE `user_id` = NEW.`user_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `user_factors_mark_provider_on_update` AFTER UPDATE ON `user_factors`
BEGIN
  UPDATE `providers` SET `second_factor` = (EXISTS (SELECT 1 FROM `user_factors` f WHERE f.`user_id` = NEW.`user_id`
    AND f.`confirmed_at` IS NOT NULL) OR EXISTS (SELECT 1 FROM `user_passkeys` k WHERE k.`user_id` = NEW.`user_id`))
  WHERE `user_id` = NEW.`user_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `user_factors_mark_provider_on_delete` AFTER DELETE ON `user_factors`
BEGIN
  UPDATE `providers` SET `second_factor` = (EXISTS (SELECT 1 FROM `user_factors` f WHERE f.`user_id` = OLD.`user_id`
    AND f.`confirmed_at` IS NOT NULL) OR EXISTS (SELECT 1 FROM `user_passkeys` k WHERE k.`user_id` = OLD.`user_id`))
  WHERE `user_id` = OLD.`user_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `user_passkeys_mark_provider_on_insert` AFTER INSERT ON `user_passkeys`
BEGIN
  UPDATE `providers` SET `second_factor` = 1 WHERE `user_id` = NEW.`user_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `user_passkeys_mark_provider_on_delete` AFTER DELETE ON `user_passkeys`
BEGIN
  UPDATE `providers` SET `second_factor` = (EXISTS (SELECT 1 FROM `user_factors` f WHERE f.`user_id` = OLD.`user_id`
    AND f.`confirmed_at` IS NOT NULL) OR EXISTS (SELECT 1 FROM `user_passkeys` k WHERE k.`user_id` = OLD.`user_id`))
  WHERE `user_id` = OLD.`user_id`;
END;
