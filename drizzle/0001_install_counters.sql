CREATE TABLE `install_counters` (
	`extension_id` text NOT NULL,
	`version_id` text NOT NULL,
	`installed` integer DEFAULT 0 NOT NULL,
	`active` integer DEFAULT 0 NOT NULL,
	`first_installed_at` text NOT NULL,
	PRIMARY KEY(`extension_id`, `version_id`),
	FOREIGN KEY (`extension_id`) REFERENCES `extensions`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`version_id`) REFERENCES `versions`(`id`) ON UPDATE no action ON DELETE cascade
);
