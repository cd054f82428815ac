/**
 * Every limit of the spec's section 8, in one place: its default, its hard maximum where the spec gives one
 * (section 8 "Hard limits"), and the key an admin override uses. Services read limits only through
 * `LimitsService.resolve` (server/resources/limits/service.ts), never from literals.
 */
export type LimitCategory = "account" | "storage" | "serverFunctions" | "realtime" | "sounds" | "build";

export interface LimitDefinition {
  key: string;
  category: LimitCategory;
  description: string;
  default: number;
  unit: "count" | "bytes" | "seconds" | "per_minute" | "per_second" | "per_hour";
  /** Cannot be raised past this on any plan. */
  hardMax?: number;
}

const MB = 1024 * 1024;
const KB = 1024;

export const LIMITS = [
  // Per-account limits
  {
    key: "max_extensions_per_account",
    category: "account",
    description: "Extensions per account (all visibility levels)",
    default: 25,
    unit: "count",
  },
  {
    key: "max_versions_per_extension",
    category: "account",
    description: "Versions per extension (oldest archived past it)",
    default: 100,
    unit: "count",
    hardMax: 500,
  },
  {
    key: "max_team_members",
    category: "account",
    description: "Team members (owner included)",
    default: 10,
    unit: "count",
  },
  { key: "max_api_keys", category: "account", description: "Active API keys", default: 20, unit: "count" },
  {
    key: "max_secrets_per_extension",
    category: "account",
    description: "Secret keys per extension",
    default: 20,
    unit: "count",
  },
  // Per-extension storage
  {
    key: "storage_global_bytes",
    category: "storage",
    description: "Global storage (shared across installs)",
    default: 100 * MB,
    unit: "bytes",
  },
  {
    key: "storage_per_install_bytes",
    category: "storage",
    description: "Per-install storage (per unique installId)",
    default: 10 * MB,
    unit: "bytes",
  },
  { key: "storage_keys_global", category: "storage", description: "Key count, global", default: 10_000, unit: "count" },
  {
    key: "storage_keys_per_install",
    category: "storage",
    description: "Key count, per install",
    default: 1_000,
    unit: "count",
  },
  {
    key: "storage_value_bytes",
    category: "storage",
    description: "Value size per key",
    default: 64 * KB,
    unit: "bytes",
    hardMax: 1 * MB,
  },
  {
    key: "storage_key_name_bytes",
    category: "storage",
    description: "Key name length (UTF-8)",
    default: 255,
    unit: "bytes",
  },
  // Server functions
  {
    key: "max_actions_per_extension",
    category: "serverFunctions",
    description: "Actions per extension",
    default: 50,
    unit: "count",
  },
  {
    key: "invocations_per_minute",
    category: "serverFunctions",
    description: "Invocations per minute (all users of the extension)",
    default: 300,
    unit: "per_minute",
  },
  {
    key: "invocation_timeout_seconds",
    category: "serverFunctions",
    description: "Invocation timeout (handler execution)",
    default: 30,
    unit: "seconds",
    hardMax: 120,
  },
  {
    key: "fetches_per_invocation",
    category: "serverFunctions",
    description: "External fetch calls per invocation",
    default: 10,
    unit: "count",
  },
  {
    key: "action_response_bytes",
    category: "serverFunctions",
    description: "Response payload size of an action",
    default: 1 * MB,
    unit: "bytes",
    hardMax: 10 * MB,
  },
  {
    key: "max_allow_hosts",
    category: "serverFunctions",
    description: "Egress hosts (entries in allowHosts)",
    default: 20,
    unit: "count",
  },
  {
    key: "egress_timeout_seconds",
    category: "serverFunctions",
    description: "Egress request timeout",
    default: 30,
    unit: "seconds",
    hardMax: 30,
  },
  // Real-time
  {
    key: "websocket_connections_per_install",
    category: "realtime",
    description: "Active WebSocket connections per install",
    default: 5,
    unit: "count",
  },
  {
    key: "pubsub_pushes_per_second",
    category: "realtime",
    description: "Pub/sub pushes per second",
    default: 100,
    unit: "per_second",
  },
  {
    key: "pubsub_message_bytes",
    category: "realtime",
    description: "Pub/sub message payload",
    default: 64 * KB,
    unit: "bytes",
  },
  // Bundled sounds
  {
    key: "max_sounds_in_manifest",
    category: "sounds",
    description: "Sounds per extension manifest (entries in sounds array)",
    default: 200,
    unit: "count",
  },
  {
    key: "max_sounds_per_extension",
    category: "sounds",
    description: "Resolved sound limit per extension deploy",
    default: 50,
    unit: "count",
  },
  { key: "sound_file_bytes", category: "sounds", description: "Sound file size", default: 10 * MB, unit: "bytes" },
  {
    key: "sound_warning_bytes",
    category: "sounds",
    description: "Sound file warning threshold (the CLI warns above)",
    default: 5 * MB,
    unit: "bytes",
  },
  {
    key: "bundle_total_bytes",
    category: "sounds",
    description: "Total bundle size per deploy",
    default: 50 * MB,
    unit: "bytes",
  },
  // Build limits
  {
    key: "bundle_layer_gzip_bytes",
    category: "build",
    description: "Compiled bundle size, layer (gzipped)",
    default: 5 * MB,
    unit: "bytes",
  },
  {
    key: "bundle_editor_gzip_bytes",
    category: "build",
    description: "Compiled bundle size, editor (gzipped)",
    default: 5 * MB,
    unit: "bytes",
  },
  {
    key: "bundle_interactive_gzip_bytes",
    category: "build",
    description: "Compiled bundle size, interactive (gzipped)",
    default: 5 * MB,
    unit: "bytes",
  },
  {
    key: "static_assets_bytes",
    category: "build",
    description: "Static assets (images, fonts) per extension version",
    default: 20 * MB,
    unit: "bytes",
  },
  {
    key: "build_time_seconds",
    category: "build",
    description: "Build time per deploy run",
    default: 300,
    unit: "seconds",
  },
] as const satisfies readonly LimitDefinition[];

export type LimitKey = (typeof LIMITS)[number]["key"];

export const LIMITS_BY_KEY: ReadonlyMap<string, LimitDefinition> = new Map(LIMITS.map((l) => [l.key, l]));

export function isLimitKey(key: string): key is LimitKey {
  return LIMITS_BY_KEY.has(key);
}

export function limitDefinition(key: LimitKey): LimitDefinition {
  return LIMITS_BY_KEY.get(key)!;
}

/** The largest value any limit may take: past 2^53 an integer no longer survives JSON and SQLite exactly. */
export const LIMIT_VALUE_MAX = Number.MAX_SAFE_INTEGER;

/** The highest value an override of `key` may hold: its hard limit, or LIMIT_VALUE_MAX when it has none. */
export function limitCeiling(key: LimitKey): number {
  return limitDefinition(key).hardMax ?? LIMIT_VALUE_MAX;
}
