ALTER TABLE `knowledge_chunks` ADD `title_tokens` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `knowledge_chunks` ADD `heading_tokens` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `knowledge_chunks` ADD `body_tokens` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `knowledge_spaces` ADD `passages` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `knowledge_spaces` ADD `title_tokens` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `knowledge_spaces` ADD `heading_tokens` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `knowledge_spaces` ADD `body_tokens` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `knowledge_spaces` ADD `language` text;--> statement-breakpoint
-- The workspaces' statistics for ranking, from the passages they hold. A passage written before its
-- lengths were counted (a chunk is never updated: it is written again when its source is) counts its
-- words by its spaces until then; index writes sum the same way (indexing.ts: statsWrite).
UPDATE `knowledge_spaces` SET
  `passages` = (SELECT count(*) FROM `knowledge_chunks` c
    WHERE c.`id` >= `knowledge_spaces`.`ordinal` * 16777216 AND c.`id` < (`knowledge_spaces`.`ordinal` + 1) * 16777216),
  `title_tokens` = (SELECT coalesce(sum(length(c.`title`) - length(replace(c.`title`, ' ', '')) + 1), 0)
    FROM `knowledge_chunks` c
    WHERE c.`id` >= `knowledge_spaces`.`ordinal` * 16777216 AND c.`id` < (`knowledge_spaces`.`ordinal` + 1) * 16777216),
  `heading_tokens` = (SELECT coalesce(sum(length(c.`headings`) - length(replace(c.`headings`, ' ', '')) + 1), 0)
    FROM `knowledge_chunks` c
    WHERE c.`id` >= `knowledge_spaces`.`ordinal` * 16777216 AND c.`id` < (`knowledge_spaces`.`ordinal` + 1) * 16777216),
  `body_tokens` = (SELECT coalesce(sum(length(c.`body`) - length(replace(c.`body`, ' ', '')) + 1), 0)
    FROM `knowledge_chunks` c
    WHERE c.`id` >= `knowledge_spaces`.`ordinal` * 16777216 AND c.`id` < (`knowledge_spaces`.`ordinal` + 1) * 16777216),
  `language` = (SELECT c.`language` FROM `knowledge_chunks` c
    WHERE c.`id` >= `knowledge_spaces`.`ordinal` * 16777216 AND c.`id` < (`knowledge_spaces`.`ordinal` + 1) * 16777216
    GROUP BY c.`language` ORDER BY count(*) DESC LIMIT 1);
