-- A2A tasks (docs/design/callers.md): threads of executions an agent reads back with GetTask and ListTasks;
-- a workspace's default domain, for a demand that names none and whose words match none.
CREATE TABLE `a2a_tasks` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`context_id` text NOT NULL,
	`state` text NOT NULL,
	`history` text NOT NULL,
	`artifacts` text NOT NULL,
	`last_execution_id` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `a2a_tasks_context_idx` ON `a2a_tasks` (`workspace_id`,`context_id`,`updated_at`);--> statement-breakpoint
CREATE INDEX `a2a_tasks_recent_idx` ON `a2a_tasks` (`workspace_id`,`updated_at`);--> statement-breakpoint
ALTER TABLE `workspaces` ADD `default_domain` text;