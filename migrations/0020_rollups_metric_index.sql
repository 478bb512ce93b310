-- A chart's few metrics day by day, without reading the day's other metrics (docs/design/insights.md).
CREATE INDEX `daily_rollups_metric_idx` ON `daily_rollups` (`workspace_id`,`metric`,`day`);