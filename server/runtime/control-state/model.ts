/** Schemas of the control plane (/_emulator): validation, the OpenAPI document and tests use these. */
import type { Static } from "elysia";
import { MAX_INSTALLS_PER_CALL } from "../../../common/api-rules";
import { ActiveProfile } from "../../profile/model";
import { REJECT_REASON_MAX } from "../../resources/versions/model";
import { oneOf } from "../../schema/one-of";
import { documentOnly, integer, named, t } from "../../schema/schema";

const Timestamp = t.String({ format: "date-time", examples: ["2026-11-22T10:00:00.000Z"] });

// ---- Clock -------------------------------------------------------------------------------------------
export const ClockState = t.Object(
  {
    now: Timestamp,
    mode: t.UnionEnum(["real", "frozen"], { description: "real: time runs; frozen: time stands still until changed" }),
    offsetMs: t.Number({ description: "Emulator time minus the machine's time, in milliseconds" }),
  },
  { additionalProperties: false, ...named("ClockState") },
);

export const ClockBody = t.Object(
  {
    advanceSeconds: t.Optional(t.Number({ description: "Move time by this many seconds (negative goes back)" })),
    // The instant is judged by the clock's one rule (server/base/clock.ts readInstant), which says what is wrong with it.
    set: t.Optional(
      t.String({ description: "Jump to this instant (ISO 8601)", ...documentOnly({ format: "date-time" }) }),
    ),
    freeze: t.Optional(t.Boolean({ description: "With set: stay at that instant" })),
    mode: t.Optional(
      oneOf(["real", "frozen"], {
        description: "real: back to the machine's time; frozen: stop at the current instant",
      }),
    ),
  },
  {
    additionalProperties: false,
    description: "Exactly one of advanceSeconds, set (with optional freeze) or mode",
    ...documentOnly({
      minProperties: 1,
      oneOf: [{ required: ["advanceSeconds"] }, { required: ["set"] }, { required: ["mode"] }],
    }),
    ...named("ClockChange"),
  },
);
export type ClockBody = Static<typeof ClockBody>;

// ---- Faults ------------------------------------------------------------------------------------------
const HTTP_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"] as const;

export const FaultRuleInput = t.Object(
  {
    method: t.Optional(oneOf(HTTP_METHODS, { description: "Any method when absent" })),
    path: t.String({
      minLength: 1,
      maxLength: 500,
      description:
        "Path pattern, relative to /developer/v1 unless it starts with it: exact segments, :param for one segment, * for anything",
      examples: ["/extensions/:id/versions"],
    }),
    status: t.Optional(
      integer({
        minimum: 400,
        maximum: 599,
        description: "Status to answer with; 500 when neither status nor latencyMs is given",
      }),
    ),
    code: t.Optional(
      t.String({
        minLength: 1,
        maxLength: 64,
        pattern: "^[a-z][a-z0-9_]*$",
        description: "Error code; derived from the status when absent",
      }),
    ),
    message: t.Optional(t.String({ minLength: 1, maxLength: 500 })),
    latencyMs: t.Optional(
      integer({
        minimum: 0,
        maximum: 60_000,
        description: "Delay before answering (or, without status, before proceeding)",
      }),
    ),
    times: t.Optional(
      integer({ minimum: 1, maximum: 1_000_000, description: "Fire for the next N matching requests only" }),
    ),
    probability: t.Optional(
      t.Number({ minimum: 0, maximum: 1, description: "Chance that a matching request is affected (default 1)" }),
    ),
  },
  { additionalProperties: false, ...named("FaultRuleInput") },
);
export type FaultRuleInput = Static<typeof FaultRuleInput>;

export const FaultRule = t.Object(
  {
    id: t.String({ examples: ["flt_01jd2x7k3m9q8r4t5v6w7x8y9z"] }),
    method: t.Union([t.String(), t.Null()]),
    path: t.String({ description: "The normalized pattern (full path)" }),
    status: t.Union([integer(), t.Null()], { description: "null: latency only" }),
    code: t.Union([t.String(), t.Null()]),
    message: t.Union([t.String(), t.Null()]),
    latencyMs: integer(),
    times: t.Union([integer(), t.Null()]),
    probability: t.Number(),
    fired: integer({ description: "How many requests this rule has affected" }),
    createdAt: Timestamp,
  },
  { additionalProperties: false, ...named("FaultRule") },
);
export type FaultRule = Static<typeof FaultRule>;

// ---- Request log -------------------------------------------------------------------------------------
export const RequestLogEntry = t.Object(
  {
    id: integer({ minimum: 1, description: "Increasing; never reused, a reset included" }),
    method: t.String(),
    path: t.String({ description: "Without the query string" }),
    status: integer(),
    errorCode: t.Union([t.String(), t.Null()], {
      description: "The error envelope's code of a 4xx or 5xx answer (e.g. version_exists); null otherwise",
    }),
    accountId: t.Union([t.String(), t.Null()], { description: "null when the request was not authenticated" }),
    keyId: t.Union([t.String(), t.Null()], { description: "The API key that authenticated it (key_…), or null" }),
    // A nullable literal would be folded by the generator into a `const` that refuses null: the values are listed instead.
    client: t.Union([t.String(), t.Null()], {
      description:
        "dashboard when the request carried `X-Ext-Client: dashboard` (the dashboard's own calls, whatever key they use); null otherwise",
      ...documentOnly({ enum: ["dashboard", null] }),
    }),
    durationMs: t.Number(),
    at: Timestamp,
  },
  { additionalProperties: false, ...named("RequestLogEntry") },
);
export type RequestLogEntry = Static<typeof RequestLogEntry>;

const HeaderMap = t.Record(t.String(), t.String());
export const RequestLogDetail = t.Object(
  {
    ...RequestLogEntry.properties,
    detail: t.Object(
      {
        query: t.String({ description: "The query string, without '?'" }),
        requestHeaders: t.Record(t.String(), t.String(), {
          description: "An allowlist of headers; Authorization masked to its scheme and key prefix",
        }),
        requestBody: t.Union([t.String(), t.Null()], {
          description: "A JSON write body up to 4096 bytes; never a secret value",
        }),
        requestBodyNote: t.Union([t.String(), t.Null()], { description: "Why the body was not kept" }),
        responseHeaders: HeaderMap,
        responseBody: t.Union([t.String(), t.Null()], {
          description: "The body of an error response (up to 4096 characters); success bodies are not kept",
        }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false, ...named("RequestLogDetail") },
);

// ---- State -------------------------------------------------------------------------------------------
export const StateSummary = t.Object(
  {
    counts: t.Object({
      accounts: integer(),
      apiKeys: integer({ description: "Active keys" }),
      revokedApiKeys: integer(),
      teamMembers: integer(),
      extensions: integer(),
      versions: integer(),
      secrets: integer(),
      activeInstalls: integer(),
      installs: integer({ description: "All installs ever recorded, uninstalled ones included" }),
      accountOverrides: integer(),
      extensionOverrides: integer(),
      limitRequests: integer(),
      bundleFiles: integer({ description: "Bundle files in the blob store" }),
    }),
    faults: integer({ description: "Fault rules (spent ones included)" }),
    requestsLogged: integer(),
    rateLimits: t.Boolean(),
    autoApproveMs: t.Union([t.Number(), t.Null()], {
      description: "--auto-approve delay in milliseconds; null when off",
    }),
    clock: ClockState,
    profile: t.Union([ActiveProfile, t.Null()], {
      description:
        "The platform profile the developer API answers with (ext serve --profile); null: the spec's answers",
    }),
  },
  { additionalProperties: false, ...named("EmulatorState") },
);
export type StateSummary = Static<typeof StateSummary>;

// ---- Review ------------------------------------------------------------------------------------------
export const RejectBody = t.Object(
  { reason: t.String({ minLength: 1, maxLength: REJECT_REASON_MAX }) },
  { additionalProperties: false, ...named("VersionRejection") },
);
export const VersionIdParams = t.Object({ versionId: t.String({ description: "Version id (ver_…)" }) });
export const IdParams = t.Object({ id: t.String() });

export const ReviewedVersion = t.Object(
  {
    version: t.Object(
      {
        id: t.String(),
        extensionId: t.String(),
        version: t.String(),
        status: t.String({ description: "pending, approved, rejected or archived" }),
        submittedAt: Timestamp,
        approvedAt: t.Union([Timestamp, t.Null()]),
        rejectedAt: t.Union([Timestamp, t.Null()]),
        rejectReason: t.Union([t.String(), t.Null()]),
      },
      { additionalProperties: false },
    ),
    extension: t.Object(
      { id: t.String(), status: t.String(), currentVersionId: t.Union([t.String(), t.Null()]) },
      { additionalProperties: false, description: "The extension after the decision" },
    ),
  },
  { additionalProperties: false, ...named("ReviewedVersion") },
);
export type ReviewedVersion = Static<typeof ReviewedVersion>;

export const AdminStatus = t.Object(
  {
    id: t.String(),
    status: t.String({ description: "disabled, or the status its versions imply once enabled" }),
    updatedAt: Timestamp,
  },
  { additionalProperties: false, ...named("AdminStatus") },
);

export const InstallBody = t.Object(
  {
    versionId: t.Optional(
      t.String({ description: "An approved version of the extension; default its current version" }),
    ),
    count: t.Optional(
      integer({
        minimum: 1,
        maximum: MAX_INSTALLS_PER_CALL,
        description: "How many installs (or uninstalls); default 1. Any count costs the same.",
      }),
    ),
  },
  { additionalProperties: false, ...named("InstallChange") },
);

export const RolloutBody = t.Object(
  {
    fromVersionId: t.Optional(
      t.String({
        description:
          "Version whose active installs move; default every other version, those installed first going first",
      }),
    ),
    toVersionId: t.Optional(
      t.String({ description: "An approved version of the extension; default its current version" }),
    ),
    count: t.Optional(
      integer({
        minimum: 1,
        maximum: MAX_INSTALLS_PER_CALL,
        description: "How many installs move; default all of the source's",
      }),
    ),
  },
  { additionalProperties: false, ...named("InstallRollout") },
);
