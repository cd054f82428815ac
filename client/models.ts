/**
 * Named types for the API's models, each taken from the generated document types: never copied by hand, so
 * they follow the server (`npm run client:generate`).
 */
import type { components as FixtureModels } from "./fixture";
import type { components } from "./schema";

export type Schemas = components["schemas"];

// Developer API
export type Extension = Schemas["Extension"];
export type ExtensionSummary = Schemas["ExtensionSummary"];
export type ExtensionCreate = Schemas["ExtensionCreate"];
export type ExtensionCreated = Schemas["ExtensionCreated"];
export type ExtensionUpdate = Schemas["ExtensionUpdate"];
export type ExtensionList = Schemas["ExtensionList"];
export type Pricing = Schemas["Pricing"];
export type Version = Schemas["Version"];
export type VersionList = Schemas["VersionList"];
export type VersionSubmission = Schemas["VersionSubmission"];
export type VersionSubmitted = Schemas["VersionSubmitted"];
export type InstallStatistics = Schemas["InstallStatistics"];
export type Limits = Schemas["Limits"];
export type ResolvedLimit = Schemas["ResolvedLimit"];
export type SoundLimits = Schemas["SoundLimits"];
export type SecretKeys = Schemas["SecretKeys"];
export type SecretValue = Schemas["SecretValue"];
export type ErrorBody = Schemas["Error"];
export type ErrorDetail = Schemas["ErrorDetail"];

// Control plane
export type Account = Schemas["AccountSummary"];
export type AccountList = Schemas["AccountList"];
export type AdminStatus = Schemas["AdminStatus"];
export type ApiKey = Schemas["ApiKey"];
export type ApiKeyCreate = Schemas["ApiKeyCreate"];
export type ApiKeyCreated = Schemas["ApiKeyCreated"];
export type ApiKeyList = Schemas["ApiKeyList"];
export type BundleContents = Schemas["BundleContents"];
export type BundleFile = Schemas["BundleFile"];
export type ClockChange = Schemas["ClockChange"];
export type ClockState = Schemas["ClockState"];
export type DashboardKey = Schemas["DashboardKey"];
export type EmulatorState = Schemas["EmulatorState"];
export type FaultRule = Schemas["FaultRule"];
export type FaultRuleInput = Schemas["FaultRuleInput"];
/**
 * The fixture format (`--seed`, `POST /_emulator/seed`, both helpers), as people write it: a field with a default
 * may be left out (client/fixture.d.ts).
 */
export type Fixture = FixtureModels["schemas"]["Fixture"];
export type InstallChange = Schemas["InstallChange"];
export type InstallRollout = Schemas["InstallRollout"];
export type LimitOverrides = Schemas["LimitOverrides"];
export type LimitRequest = Schemas["LimitRequest"];
export type LimitRequestCreate = Schemas["LimitRequestCreate"];
export type LimitRequestList = Schemas["LimitRequestList"];
export type LimitUsage = Schemas["LimitUsage"];
export type LimitValues = Schemas["LimitValues"];
export type ScopeLimitUsage = Schemas["ScopeLimitUsage"];
export type ScopeLimitUsageRow = Schemas["ScopeLimitUsageRow"];
export type RequestLogEntry = Schemas["RequestLogEntry"];
export type RequestLogDetail = Schemas["RequestLogDetail"];
export type RequestLogList = Schemas["RequestLogList"];
/** A platform profile (docs/profiles.md), as `ext conformance --save-profile` writes one. */
export type Profile = Schemas["Profile"];
/** The profile an emulator answers with, as GET /_emulator/state shows it. */
export type ActiveProfile = Schemas["ActiveProfile"];
export type ReviewQueue = Schemas["ReviewQueue"];
export type ReviewQueueItem = Schemas["ReviewQueueItem"];
export type ReviewedVersion = Schemas["ReviewedVersion"];
export type VersionRejection = Schemas["VersionRejection"];
export type SeedReport = Schemas["SeedReport"];
export type TeamMember = Schemas["TeamMember"];
export type TeamMemberCreate = Schemas["TeamMemberCreate"];
export type TeamMemberList = Schemas["TeamMemberList"];
