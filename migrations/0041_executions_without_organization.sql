-- An execution's organisation is its workspace's: not copied into every row.
ALTER TABLE `executions` DROP COLUMN `organization_id`;