CREATE TABLE `account_overrides` (
	`account_id` text NOT NULL,
	`limit_key` text NOT NULL,
	`value` integer NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`account_id`, `limit_key`),
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `accounts` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`name` text NOT NULL,
	`key_hash` text NOT NULL,
	`key_prefix` text NOT NULL,
	`scopes` text NOT NULL,
	`created_at` text NOT NULL,
	`revoked_at` text,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_hash_idx` ON `api_keys` (`key_hash`);--> statement-breakpoint
CREATE INDEX `api_keys_account_idx` ON `api_keys` (`account_id`);--> statement-breakpoint
CREATE TABLE `extension_overrides` (
	`extension_id` text NOT NULL,
	`limit_key` text NOT NULL,
	`value` integer NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`extension_id`, `limit_key`),
	FOREIGN KEY (`extension_id`) REFERENCES `extensions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `extensions` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`slug` text NOT NULL,
	`name` text NOT NULL,
	`short_description` text DEFAULT '' NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`pricing` text NOT NULL,
	`visibility` text DEFAULT 'private' NOT NULL,
	`status` text DEFAULT 'draft' NOT NULL,
	`current_version_id` text,
	`rating_count` integer DEFAULT 0 NOT NULL,
	`listed_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `extensions_slug_idx` ON `extensions` (`slug`);--> statement-breakpoint
CREATE INDEX `extensions_account_idx` ON `extensions` (`account_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `installs` (
	`id` text PRIMARY KEY NOT NULL,
	`extension_id` text NOT NULL,
	`version_id` text NOT NULL,
	`installed_at` text NOT NULL,
	`uninstalled_at` text,
	FOREIGN KEY (`extension_id`) REFERENCES `extensions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `installs_extension_idx` ON `installs` (`extension_id`,`uninstalled_at`);--> statement-breakpoint
CREATE TABLE `limit_requests` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`scope` text NOT NULL,
	`extension_id` text,
	`limits` text NOT NULL,
	`reason` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`decision_reason` text,
	`created_at` text NOT NULL,
	`decided_at` text,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`extension_id`) REFERENCES `extensions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `limit_requests_account_idx` ON `limit_requests` (`account_id`);--> statement-breakpoint
CREATE TABLE `secrets` (
	`extension_id` text NOT NULL,
	`name` text NOT NULL,
	`ciphertext` blob NOT NULL,
	`iv` blob NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`extension_id`, `name`),
	FOREIGN KEY (`extension_id`) REFERENCES `extensions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `team_members` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`email` text NOT NULL,
	`role` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `team_members_account_email_idx` ON `team_members` (`account_id`,`email`);--> statement-breakpoint
CREATE TABLE `versions` (
	`id` text PRIMARY KEY NOT NULL,
	`extension_id` text NOT NULL,
	`seq` integer NOT NULL,
	`version` text NOT NULL,
	`changelog` text DEFAULT '' NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`bundle_blob_id` text NOT NULL,
	`bundle_size_bytes` integer NOT NULL,
	`bundle_sha256` text NOT NULL,
	`sound_count` integer DEFAULT 0 NOT NULL,
	`warnings` text DEFAULT '[]' NOT NULL,
	`reject_reason` text,
	`submitted_at` text NOT NULL,
	`approved_at` text,
	`rejected_at` text,
	`archived_at` text,
	FOREIGN KEY (`extension_id`) REFERENCES `extensions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `versions_extension_label_idx` ON `versions` (`extension_id`,`version`);--> statement-breakpoint
CREATE UNIQUE INDEX `versions_extension_seq_idx` ON `versions` (`extension_id`,`seq`);--> statement-breakpoint
CREATE INDEX `versions_blob_idx` ON `versions` (`bundle_blob_id`);