/**
 * The resolved limits a bundle is inspected against. Keys are the catalogue's (common/limits-catalog.ts), so the
 * server fills them from LimitsService and the CLI from the limits endpoint's body, with the same names.
 */

import { JSON_DEPTH_MAX } from "../../common/json/json-shape";
import { type LimitKey, limitDefinition } from "../../common/limits-catalog";

export const BUNDLE_LIMIT_KEYS = [
  "max_sounds_per_extension",
  "max_sounds_in_manifest",
  "sound_file_bytes",
  "sound_warning_bytes",
  "bundle_total_bytes",
  "bundle_layer_gzip_bytes",
  "bundle_editor_gzip_bytes",
  "bundle_interactive_gzip_bytes",
  "static_assets_bytes",
  "max_actions_per_extension",
  "max_allow_hosts",
] as const satisfies readonly LimitKey[];

export type BundleLimitKey = (typeof BUNDLE_LIMIT_KEYS)[number];
export type BundleLimits = Record<BundleLimitKey, number>;

/** Builds the bundle limits from any resolver (LimitsService, the limits endpoint's values, a test). */
export function bundleLimitsFrom(resolve: (key: BundleLimitKey) => number): BundleLimits {
  return Object.fromEntries(BUNDLE_LIMIT_KEYS.map((k) => [k, resolve(k)])) as BundleLimits;
}

/** The platform defaults, with no override. */
export const DEFAULT_BUNDLE_LIMITS: BundleLimits = bundleLimitsFrom((k) => limitDefinition(k).default);

/**
 * Safety caps on reading an untrusted archive, independent of any plan (the Open VSX values). They bound the
 * work an upload can cause: a gzip bomb is stopped as soon as it crosses one of them.
 */
export const READ_CAPS = {
  maxEntries: 50_000,
  maxEntryBytes: 32 * 1024 * 1024,
  maxUncompressedBytes: 512 * 1024 * 1024,
  /**
   * Uncompressed ÷ compressed, checked only once `ratioFloorBytes` came out. Legitimate content compresses
   * far past 100:1 (silent audio ~1000:1), so the ratio alone proves nothing: it only shortens the walk of
   * an archive that is already huge. The total and per-entry caps bound the rest.
   */
  maxRatio: 200,
  ratioFloorBytes: 256 * 1024 * 1024,
  maxManifestBytes: 1024 * 1024,
  /** JSON items (containers and list elements) in manifest.json: far above any real manifest, far below a costly one. */
  maxManifestItems: 10_000,
  maxManifestDepth: JSON_DEPTH_MAX,
  /** Problems listed for one bundle; past it the inspection stops. */
  maxProblems: 100,
  /** All entry names together, in bytes: bounds what the walk keeps per upload. */
  maxPathBytesTotal: 8 * 1024 * 1024,
} as const;
