-- The execution's guard moves into its rate-limit row (the guard_* columns), so an execution
-- writes two rows fewer. drizzle-kit copied the new columns from the old table too; only the
-- existing ones are copied here.
DROP TABLE `execution_guards`;--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_rate_limit_windows` (
	`key_id` text PRIMARY KEY NOT NULL,
	`window_start` integer NOT NULL,
	`count` integer NOT NULL,
	`max_count` integer,
	`key_usable` integer,
	`tenant_active` integer,
	`channel_active` integer,
	`quota_left` integer,
	CONSTRAINT "guard_key_usable" CHECK("__new_rate_limit_windows"."key_usable" IS NULL OR "__new_rate_limit_windows"."key_usable" = 1),
	CONSTRAINT "guard_tenant_active" CHECK("__new_rate_limit_windows"."tenant_active" IS NULL OR "__new_rate_limit_windows"."tenant_active" = 1),
	CONSTRAINT "guard_channel_active" CHECK("__new_rate_limit_windows"."channel_active" IS NULL OR "__new_rate_limit_windows"."channel_active" = 1),
	CONSTRAINT "within_window_limit" CHECK("__new_rate_limit_windows"."max_count" IS NULL OR "__new_rate_limit_windows"."count" <= "__new_rate_limit_windows"."max_count"),
	CONSTRAINT "guard_quota_left" CHECK("__new_rate_limit_windows"."quota_left" IS NULL OR "__new_rate_limit_windows"."quota_left" > 0)
);
--> statement-breakpoint
INSERT INTO `__new_rate_limit_windows`("key_id", "window_start", "count", "max_count") SELECT "key_id", "window_start", "count", "max_count" FROM `rate_limit_windows`;--> statement-breakpoint
DROP TABLE `rate_limit_windows`;--> statement-breakpoint
ALTER TABLE `__new_rate_limit_windows` RENAME TO `rate_limit_windows`;--> statement-breakpoint
PRAGMA foreign_keys=ON;