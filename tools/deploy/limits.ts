/**
 * The limits a deploy is checked against, read from the limits endpoint (spec §4: "used by the
 * command-line tool before deploying"). They are turned into the same BundleLimits the server inspects
 * uploads with, so `ext deploy` and the server can never disagree. A key the endpoint does not give falls
 * back to the platform default.
 */
import type { Limits } from "../../client";
import { REASON_MIN } from "../../common/api-rules";
import {
  type BundleLimitKey,
  type BundleLimits,
  bundleLimitsFrom,
  isLimitKey,
  type LimitKey,
  type LimitSource,
  limitDefinition,
} from "../../server";

export interface ResolvedLimits {
  bundle: BundleLimits;
  /** Where each value came from: extension_override, developer_override or platform_default. */
  source(key: LimitKey): LimitSource;
  buildTimeSeconds: number;
  /** Any limit's resolved value (the platform default when the endpoint does not give it). */
  value(key: LimitKey): number;
}

interface Entry {
  value: number;
  source: LimitSource;
}

/**
 * Reads the limits endpoint's body as the generated client types it (`limits.<category>.<key>.{value,
 * source}` and the `sounds` summary). A key the body does not give is the platform default.
 */
export function parseLimitsBody(body: Limits): ResolvedLimits {
  const found = new Map<string, Entry>();
  // A server that answers with less (the platform's body is "not shown" in the spec) leaves the defaults.
  const { limits = {}, sounds } = body as Partial<Limits>;
  for (const category of Object.values(limits))
    for (const [key, l] of Object.entries(category ?? {})) if (isLimitKey(key)) found.set(key, l);
  // The spec's named summary wins for the sound limit: sounds.resolvedLimit and sounds.source.
  if (sounds) found.set("max_sounds_per_extension", { value: sounds.resolvedLimit, source: sounds.source });
  const get = (key: LimitKey): Entry =>
    found.get(key) ?? { value: limitDefinition(key).default, source: "platform_default" };
  return {
    bundle: bundleLimitsFrom((k: BundleLimitKey) => get(k).value),
    source: (key) => get(key).source,
    buildTimeSeconds: get("build_time_seconds").value,
    value: (key) => get(key).value,
  };
}

const SOURCE_WORDS: Record<LimitSource, string> = {
  extension_override: "an override set for this extension",
  developer_override: "an override set for your developer account",
  platform_default: "the platform default",
};

/** What to add to a limit problem: where the value comes from and how to raise it. */
export function explainLimit(key: LimitKey, source: LimitSource): string {
  return (
    `The ${key} limit comes from ${SOURCE_WORDS[source]} (source: ${source}). ` +
    `To raise it, submit a limit increase request for this extension or for your developer account ` +
    `(developer limits page, with a reason of at least ${REASON_MIN} characters); it applies once an admin approves it.`
  );
}
