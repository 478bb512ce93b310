-- The visitor's language: the channel's setting (auto: the visitor's browser), and the language each conversation keeps.
ALTER TABLE `channels` ADD `language` text DEFAULT 'auto' NOT NULL;--> statement-breakpoint
ALTER TABLE `conversations` ADD `language` text;
