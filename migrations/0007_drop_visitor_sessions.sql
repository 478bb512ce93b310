DROP TABLE `visitor_messages`;--> statement-breakpoint
DROP TABLE `visitor_sessions`;--> statement-breakpoint
ALTER TABLE `demands` DROP COLUMN `visitor_session_id`;--> statement-breakpoint
ALTER TABLE `leads` DROP COLUMN `visitor_session_id`;