-- Data migration: one counter row per (extension, version) from the install rows, before they are dropped.
INSERT INTO `install_counters` (`extension_id`, `version_id`, `installed`, `active`, `first_installed_at`)
SELECT i.`extension_id`, i.`version_id`, COUNT(*), SUM(i.`uninstalled_at` IS NULL), MIN(i.`installed_at`)
FROM `installs` i JOIN `versions` v ON v.`id` = i.`version_id` AND v.`extension_id` = i.`extension_id`
GROUP BY i.`extension_id`, i.`version_id`;
--> statement-breakpoint
DROP TABLE `installs`;
