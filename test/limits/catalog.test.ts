/**
 * The limits catalogue against the spec's section 8, value by value. The expectations below are copied
 * by hand from /work/shared/spec/developer-api.md (section 8, "Per-account limits" to "Hard limits"), in the
 * spec's own words ("100 MB", "5 minutes"), not read from common/limits-catalog.ts: a wrong default or hard
 * maximum in the catalogue fails here. (test/limits/routes.test.ts checks the endpoint serves the catalogue.)
 * Sizes: the emulator counts MB and KB in powers of 1024.
 */
import { describe, expect, test } from "bun:test";
import { LIMITS as CATALOGUE, type LimitDefinition } from "../../common/limits-catalog";

const LIMITS: readonly LimitDefinition[] = CATALOGUE;

/** "100 MB" → bytes, "5 minutes" → seconds, "30 seconds" → 30, "10,000" → 10000. */
function amount(text: string): number {
  const m = /^([\d,]+) ?(MB|KB|minutes|seconds)?$/.exec(text);
  if (!m) throw new Error(`cannot read "${text}"`);
  const n = Number(m[1]!.replaceAll(",", ""));
  const factor = { MB: 1024 * 1024, KB: 1024, minutes: 60, seconds: 1 }[m[2] ?? ""] ?? 1;
  return n * factor;
}

interface SpecLimit {
  category: string;
  /** The spec's "Default" column. */
  default: string;
  /** The spec's "Hard limits" table, where the resource appears there. */
  hard?: string;
}

const SPEC: Record<string, SpecLimit> = {
  // Per-account limits
  max_extensions_per_account: { category: "account", default: "25" },
  max_versions_per_extension: { category: "account", default: "100", hard: "500" },
  max_team_members: { category: "account", default: "10" },
  max_api_keys: { category: "account", default: "20" },
  max_secrets_per_extension: { category: "account", default: "20" },
  // Per-extension storage
  storage_global_bytes: { category: "storage", default: "100 MB" },
  storage_per_install_bytes: { category: "storage", default: "10 MB" },
  storage_keys_global: { category: "storage", default: "10,000" },
  storage_keys_per_install: { category: "storage", default: "1,000" },
  storage_value_bytes: { category: "storage", default: "64 KB", hard: "1 MB" },
  storage_key_name_bytes: { category: "storage", default: "255" },
  // Server functions
  max_actions_per_extension: { category: "serverFunctions", default: "50" },
  invocations_per_minute: { category: "serverFunctions", default: "300" },
  invocation_timeout_seconds: { category: "serverFunctions", default: "30 seconds", hard: "120 seconds" },
  fetches_per_invocation: { category: "serverFunctions", default: "10" },
  action_response_bytes: { category: "serverFunctions", default: "1 MB", hard: "10 MB" },
  max_allow_hosts: { category: "serverFunctions", default: "20" },
  // "Egress request timeout" appears only in the hard-limits table (30 seconds): its default is that value.
  egress_timeout_seconds: { category: "serverFunctions", default: "30 seconds", hard: "30 seconds" },
  // Real-time
  websocket_connections_per_install: { category: "realtime", default: "5" },
  pubsub_pushes_per_second: { category: "realtime", default: "100" },
  pubsub_message_bytes: { category: "realtime", default: "64 KB" },
  // Bundled sounds
  max_sounds_in_manifest: { category: "sounds", default: "200" },
  max_sounds_per_extension: { category: "sounds", default: "50" },
  sound_file_bytes: { category: "sounds", default: "10 MB" },
  sound_warning_bytes: { category: "sounds", default: "5 MB" },
  bundle_total_bytes: { category: "sounds", default: "50 MB" },
  // Build limits
  bundle_layer_gzip_bytes: { category: "build", default: "5 MB" },
  bundle_editor_gzip_bytes: { category: "build", default: "5 MB" },
  bundle_interactive_gzip_bytes: { category: "build", default: "5 MB" },
  static_assets_bytes: { category: "build", default: "20 MB" },
  build_time_seconds: { category: "build", default: "5 minutes" },
};

describe("limits catalogue = spec section 8", () => {
  test("the reader of the spec's amounts", () => {
    expect([
      amount("100 MB"),
      amount("64 KB"),
      amount("10,000"),
      amount("5 minutes"),
      amount("120 seconds"),
      amount("25"),
    ]).toEqual([104_857_600, 65_536, 10_000, 300, 120, 25]);
  });

  test("exactly the spec's limits, no more, no fewer", () => {
    expect(LIMITS.map((l) => l.key).sort()).toEqual(Object.keys(SPEC).sort());
  });

  test.each(Object.entries(SPEC))("%s: category, default and hard maximum as the spec gives them", (key, spec) => {
    const def = LIMITS.find((l) => l.key === key);
    // A missing definition shows as all three undefined. A limit outside the spec's hard-limits table has
    // no hard maximum at all.
    expect({ category: def?.category, default: def?.default, hardMax: def?.hardMax }).toEqual({
      category: spec.category as LimitDefinition["category"],
      default: amount(spec.default),
      hardMax: spec.hard === undefined ? undefined : amount(spec.hard),
    });
  });

  test("the spec's five hard limits, and no default above its hard maximum", () => {
    const hard = LIMITS.filter((l) => l.hardMax !== undefined).map((l) => [l.key, l.hardMax]);
    expect(Object.fromEntries(hard)).toEqual({
      max_versions_per_extension: 500,
      storage_value_bytes: 1_048_576,
      invocation_timeout_seconds: 120,
      action_response_bytes: 10_485_760,
      egress_timeout_seconds: 30,
    });
    for (const l of LIMITS) if (l.hardMax !== undefined) expect(l.default).toBeLessThanOrEqual(l.hardMax);
  });
});
