-- The outbox's fan-out (PRODUCT.md section 10): every new event becomes one pending delivery for
-- each active endpoint of its workspace that subscribes to its type, inside the same statement
-- as the event itself, so an event and its deliveries exist together or not at all.
CREATE TRIGGER `events_fan_out` AFTER INSERT ON `events`
BEGIN
  INSERT INTO `webhook_deliveries` (`event_id`, `endpoint_id`, `workspace_id`, `status`, `attempts`, `next_attempt_at`, `created_at`, `updated_at`)
  SELECT NEW.`id`, e.`id`, NEW.`workspace_id`, 'pending', 0, NEW.`created_at`, NEW.`created_at`, NEW.`created_at`
  FROM `webhook_endpoints` e
  WHERE e.`workspace_id` = NEW.`workspace_id` AND e.`status` = 'active'
    AND EXISTS (SELECT 1 FROM json_each(e.`event_types`) t WHERE t.`value` = NEW.`type`);
END;
