DROP INDEX `api_keys_active_name_idx`;--> statement-breakpoint
CREATE INDEX `api_keys_active_name_account_idx` ON `api_keys` (`name`,`account_id`) WHERE "api_keys"."revoked_at" IS NULL;