-- The scopes are in scope_bits now (0042).
ALTER TABLE `executions` DROP COLUMN `granted_scopes`;