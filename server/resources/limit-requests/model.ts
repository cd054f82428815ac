/** Limit increase requests (spec §8 "Requesting an increase"), as the control plane exposes them. */
import type { Static } from "elysia";
import { REASON_MIN } from "../../../common/api-rules";
import { LIMIT_REQUEST_SCOPES, LIMIT_REQUEST_STATUSES } from "../../db/schema";
import { oneOf } from "../../schema/one-of";
import { documentOnly, named, t } from "../../schema/schema";
import { LimitValues } from "../limits/overrides-model";

const Timestamp = t.String({ format: "date-time", examples: ["2026-11-22T10:00:00.000Z"] });

export const REASON_MAX = 5000;
/** An admin's reason for approving or rejecting. */
export const DECISION_REASON_MAX = 2000;

export { LIMIT_REQUEST_SCOPES, LIMIT_REQUEST_STATUSES };

/** A developer's reason for asking; the service checks the trimmed length (checkLimitRequest). */
export const LimitRequestReason = t.String({
  minLength: REASON_MIN,
  maxLength: REASON_MAX,
  description: `At least ${REASON_MIN} characters (after trimming)`,
  // The trimmed text is what counts: from the first to the last non-blank character, 20 or more.
  ...documentOnly({ pattern: `^\\s*\\S[\\s\\S]{${REASON_MIN - 2},}\\S\\s*$` }),
});

export const CreateLimitRequestBody = t.Object(
  {
    accountId: t.String({ description: "The requesting developer account" }),
    scope: oneOf(LIMIT_REQUEST_SCOPES, { description: "account: all its extensions; extension: one extension" }),
    extensionId: t.Optional(t.String({ description: "Required when scope is extension; must belong to the account" })),
    limits: LimitValues,
    reason: LimitRequestReason,
  },
  {
    additionalProperties: false,
    // extensionId goes with scope extension, and only with it.
    ...documentOnly({
      oneOf: [
        {
          properties: { scope: { const: "extension" }, extensionId: { type: "string" } },
          required: ["scope", "extensionId"],
        },
        { properties: { scope: { const: "account" }, extensionId: false }, required: ["scope"] },
      ],
    }),
    ...named("LimitRequestCreate"),
  },
);
export type CreateLimitRequestInput = Static<typeof CreateLimitRequestBody>;

export const LimitRequest = t.Object(
  {
    id: t.String({ examples: ["req_01jd2x7k3m9q8r4t5v6w7x8y9z"] }),
    accountId: t.String(),
    scope: t.UnionEnum(LIMIT_REQUEST_SCOPES),
    extensionId: t.Union([t.String(), t.Null()]),
    limits: LimitValues,
    reason: t.String(),
    status: t.UnionEnum(LIMIT_REQUEST_STATUSES),
    decisionReason: t.Union([t.String(), t.Null()]),
    createdAt: Timestamp,
    decidedAt: t.Union([Timestamp, t.Null()]),
  },
  { additionalProperties: false, ...named("LimitRequest") },
);
export type LimitRequest = Static<typeof LimitRequest>;

export const LimitRequestEnvelope = t.Object(
  { limitRequest: LimitRequest },
  { additionalProperties: false, ...named("LimitRequestEnvelope") },
);
export const LimitRequestList = t.Object(
  { limitRequests: t.Array(LimitRequest) },
  { additionalProperties: false, ...named("LimitRequestList") },
);

export const LimitRequestQuery = t.Object(
  {
    accountId: t.Optional(t.String()),
    status: t.Optional(oneOf(LIMIT_REQUEST_STATUSES)),
  },
  { additionalProperties: false },
);
export type LimitRequestQuery = Static<typeof LimitRequestQuery>;

export const ApproveLimitRequestBody = t.Object(
  { reason: t.Optional(t.String({ maxLength: DECISION_REASON_MAX })) },
  { additionalProperties: false },
);
export const RejectLimitRequestBody = t.Object(
  { reason: t.String({ minLength: 1, maxLength: DECISION_REASON_MAX }) },
  { additionalProperties: false },
);
