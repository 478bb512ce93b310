CREATE TABLE `execution_guards` (
	`id` text PRIMARY KEY NOT NULL,
	`key_usable` integer,
	`tenant_active` integer NOT NULL,
	`channel_active` integer,
	`quota_left` integer,
	CONSTRAINT "guard_key_usable" CHECK("execution_guards"."key_usable" IS NULL OR "execution_guards"."key_usable" = 1),
	CONSTRAINT "guard_tenant_active" CHECK("execution_guards"."tenant_active" = 1),
	CONSTRAINT "guard_channel_active" CHECK("execution_guards"."channel_active" IS NULL OR "execution_guards"."channel_active" = 1),
	CONSTRAINT "guard_quota_left" CHECK("execution_guards"."quota_left" IS NULL OR "execution_guards"."quota_left" > 0)
);
--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_idempotency_records` (
	`key_id` text NOT NULL,
	`idempotency_key` text NOT NULL,
	`fingerprint` text NOT NULL,
	`state` text NOT NULL,
	`response_status` integer,
	`response_body` text,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	PRIMARY KEY(`key_id`, `idempotency_key`),
	CONSTRAINT "idempotency_key_free" CHECK("__new_idempotency_records"."state" IN ('in_progress', 'completed'))
);
--> statement-breakpoint
INSERT INTO `__new_idempotency_records`("key_id", "idempotency_key", "fingerprint", "state", "response_status", "response_body", "created_at", "expires_at") SELECT "key_id", "idempotency_key", "fingerprint", "state", "response_status", "response_body", "created_at", "expires_at" FROM `idempotency_records`;--> statement-breakpoint
DROP TABLE `idempotency_records`;--> statement-breakpoint
ALTER TABLE `__new_idempotency_records` RENAME TO `idempotency_records`;--> statement-breakpoint
PRAGMA foreign_keys=ON;