/**
 * The emulator's one public entry: everything of the server a tool may use. The tools (tools/: the CLI, the
 * deploy core, the parity tools, the Bun helper) import the server only from here; they talk to a running
 * emulator through client/ (test/meta/layout.test.ts holds both sides to it).
 *
 * What it offers: starting a server (in this process: `ext serve`, `ext exec`, `startEmulator()`) and the
 * offline work on a data directory (`ext seed DIR`); and the server's own rules where a tool must apply them
 * exactly as the server does before it sends anything (a bundle's inspection and limits, a fixture's and a
 * profile's validation, the export archive's format, the rate groups, the OpenAPI document).
 */

export { type Clock, EmulatorClock } from "./base/clock";
export { ConfigError, ENV_NAMES, parseServerConfig, type ServerConfig, type ServerFlags } from "./base/config";
export { createLogger } from "./base/logger";
export { type BundleLimitKey, type BundleLimits, bundleLimitsFrom, READ_CAPS } from "./bundles/bundle-limits";
/** A bundle's inspection, loaded when first asked for: it brings gzip. */
export const bundleInspection = () => import("./bundles/inspect");
export { normaliseArchivePath } from "./bundles/manifest";
export { restoreSnapshot } from "./control-plane/reset";
export { ignoreInVersionControl } from "./data-dir/ignore";
export { DataDirInUseError } from "./data-dir/lock";
export { checkDataDirOwner, DataDirOwnerError } from "./data-dir/modes";
// The API's answers, as the parity proxy gives them.
export { ApiError, type ErrorDetail } from "./errors/api-error";
export { errors } from "./errors/catalog";
export { openApiDocument } from "./start/document";
/** The export archive's writer and reader, loaded when first asked for: they bring the archive packages. */
export const exportArchive = () => import("./exports/archive");

// Limits and bundles: what deploy checks before it uploads, as the server checks it after.
export { isLimitKey, LIMITS, type LimitKey, limitDefinition } from "../common/limits-catalog";
export { hostGate } from "./http/host-check";
export { requestTarget } from "./http/request-url";
// Profiles: a platform's recorded behaviour the emulator plays back.
export { errorCodeOf } from "./profile/apply";
export { keyOf, ProfileBuilder } from "./profile/builder";
export { ProfileError } from "./profile/compile";
export { evidenceWords, explainEntry } from "./profile/explain";
export { type LoadedProfile, profileFromValue, readProfileFile, writeProfileFile } from "./profile/load";
export type { Profile, ProfileEntry } from "./profile/model";
export { type Observation, type ObservedEntry, observe, operationOf } from "./profile/observe";
export { RATE_GROUPS, type RateGroup, rateGroupOf } from "./ratelimit/limiter";
export { checkLimitValues } from "./resources/limits/overrides";
export type { LimitSource } from "./resources/limits/service";
export { createRuntime, type Runtime } from "./runtime/runtime";
// Fixtures, exports and seeding.
export type { BundleDir } from "./seed/bundle-files";
export { demoFixture, firstPlaintextKey, freshDemoFixture } from "./seed/demo";
export { jsonSyntaxProblem } from "./seed/json-syntax";
export type { Fixture, SeedReport } from "./seed/model";
export { type FixtureSource, namesDemo, resolveFixture, resolveFixtureSource } from "./seed/resolve";
export { FixtureError, validateFixture } from "./seed/validate";
// Starting a server, and what it is made of.
export { type App, createApp } from "./start/app";
export { type RunningEmulator, startServer } from "./start/server";
export { type StartupKey, startupKeys } from "./start/startup-keys";
