/**
 * The limits a deploy is checked against, read from the limits endpoint (spec §4: "used by the
 * command-line tool before deploying"). They are turned into the same BundleLimits the server inspects
 * uploads with, so `ext deploy` and the server can never disagree. A key the endpoint does not give falls
 * back to the platform default.
 */
import { type BundleLimitKey, type BundleLimits, bundleLimitsFrom } from "../../src/bundles/bundle-limits";
import { REASON_MIN } from "../../src/limit-requests/model";
import { isLimitKey, type LimitKey, limitDefinition } from "../../src/limits/catalog";
import type { LimitSource } from "../../src/limits/service";

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

const SOURCES: LimitSource[] = ["extension_override", "developer_override", "platform_default"];

function entryOf(raw: unknown): Entry | null {
  if (typeof raw === "number") return { value: raw, source: "platform_default" };
  if (!raw || typeof raw !== "object") return null;
  const r = raw as Record<string, unknown>;
  const value = [r.value, r.resolved, r.resolvedLimit, r.limit].find((v) => typeof v === "number") as
    | number
    | undefined;
  if (value === undefined) return null;
  const source = SOURCES.includes(r.source as LimitSource) ? (r.source as LimitSource) : "platform_default";
  return { value, source };
}

/**
 * Reads the emulator's body (src/limits/model.ts: `limits.<category>.<key>.{value, source}` and the
 * `sounds` summary), and also tolerates an array of {key, value, source}: the real platform's body is
 * "not shown" in the spec.
 */
export function parseLimitsBody(body: unknown): ResolvedLimits {
  const found = new Map<string, Entry>();
  const visit = (node: unknown, depth: number) => {
    if (depth > 4 || !node || typeof node !== "object") return;
    if (Array.isArray(node)) {
      for (const item of node) {
        const key = (item as { key?: unknown } | null)?.key;
        const entry = entryOf(item);
        if (typeof key === "string" && isLimitKey(key) && entry) found.set(key, entry);
        else visit(item, depth + 1);
      }
      return;
    }
    for (const [k, v] of Object.entries(node as Record<string, unknown>)) {
      const entry = isLimitKey(k) ? entryOf(v) : null;
      if (entry) found.set(k, entry);
      else visit(v, depth + 1);
    }
  };
  visit(body, 0);
  // The spec's named summary wins for the sound limit: sounds.resolvedLimit and sounds.source.
  const sounds = (body as { sounds?: { resolvedLimit?: unknown; source?: unknown } } | null)?.sounds;
  if (sounds && typeof sounds.resolvedLimit === "number") {
    found.set("max_sounds_per_extension", {
      value: sounds.resolvedLimit,
      source: SOURCES.includes(sounds.source as LimitSource) ? (sounds.source as LimitSource) : "platform_default",
    });
  }
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
