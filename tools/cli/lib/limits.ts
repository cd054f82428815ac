/**
 * How `ext limits show` prints the limits endpoint's body: usage, human units. How a deploy reads the same
 * body is tools/deploy/limits.ts.
 */
import type { Limits, LimitUsage } from "../../../client";
import { formatBytes } from "../../../common/text/format";
import { isLimitKey, type LimitKey } from "../../../server";

/** Which count of the body's `usage` each limit is checked against; the others have no usage there. */
const USAGE_OF: Partial<Record<LimitKey, keyof LimitUsage>> = {
  max_extensions_per_account: "extensions",
  max_versions_per_extension: "versions",
  max_secrets_per_extension: "secrets",
  max_api_keys: "apiKeys",
  max_team_members: "teamMembers",
};

/** A limit's current use from the limits body, or null where the endpoint counts none. */
export function usageOf(body: Limits, key: string): number | null {
  const field = isLimitKey(key) ? USAGE_OF[key] : undefined;
  return field === undefined ? null : body.usage[field];
}

const PER: Record<string, string> = { per_minute: "/ min", per_second: "/ s", per_hour: "/ h" };

/** A limit's value as people read it: "100.0 MB", "300 s", "60 / min", "25" (`--json` keeps the number). */
export function humanValue(value: number, unit: string): string {
  if (unit === "bytes") return formatBytes(value);
  if (unit === "seconds") return `${value} s`;
  const per = PER[unit];
  return per ? `${value} ${per}` : String(value);
}
