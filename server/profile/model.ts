/**
 * The platform profile format, version 1: ONE `t` schema for the file people save and edit, the JSON Schema
 * published beside it (docs/profile.schema.json), the fixture's `profile` field (an export keeps the profile
 * its emulator ran with) and the OpenAPI document. Each entry names an operation of the developer API as the
 * document writes it (`GET /developer/v1/extensions/{id}`), which of ext's answers it changes, and ONE kind
 * of difference with the value observed on the platform and where it was seen.
 */
import type { Static } from "elysia";
import { oneOf } from "../schema/one-of";
import { integer, named, t } from "../schema/schema";
import { HEADER_VALUE_MAX, HEADER_VALUE_PATTERN } from "./headers";

export const PROFILE_VERSION = 1;
/** Entries per profile: far above what any run observes (about 40 checks, a dozen operations). */
export const PROFILE_ENTRIES_MAX = 1000;
/** The largest profile file read (a profile is a few kilobytes; an observed value may be a small object). */
export const PROFILE_FILE_MAX_BYTES = 1024 * 1024;

export const DIFFERENCES = [
  "status",
  "field-missing",
  "field-renamed",
  "field-added",
  "field-type",
  "error-field",
  "header-missing",
  "header-added",
] as const;
export type DifferenceKind = (typeof DIFFERENCES)[number];

export const JSON_TYPES = ["string", "integer", "number", "boolean", "null", "object", "array"] as const;
export type JsonType = (typeof JSON_TYPES)[number];

/** One field name of an answer: letters, digits, `_` and `-`. */
export const FIELD_NAME_PATTERN = "^[A-Za-z0-9_-]{1,64}$";
/** A path in ext's answer: field names joined by `.`, `[]` after an array's name for each of its items. */
export const FIELD_PATH_PATTERN = "^[A-Za-z0-9_-]{1,64}(\\[\\])?(\\.[A-Za-z0-9_-]{1,64}(\\[\\])?){0,15}$";
const OPERATION_PATTERN = "^(GET|POST|PUT|PATCH|DELETE) /[A-Za-z0-9_{}/.-]{0,200}$";
/** An HTTP header name (RFC 9110 token). */
const HEADER_PATTERN = "^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$";
const CODE_PATTERN = "^[a-z][a-z0-9_]{0,63}$";

const Evidence = t.Object(
  {
    source: oneOf(["conformance", "proxy", "hand"], {
      description: "What saved it: `ext conformance`, `ext proxy`, or a person",
    }),
    check: t.Optional(t.String({ maxLength: 100, description: "The conformance check that showed it" })),
    exchange: t.Optional(
      t.String({ maxLength: 500, description: "The exchange that showed it, as `METHOD /path → status`" }),
    ),
    target: t.Optional(t.String({ maxLength: 500, description: "The server observed" })),
    at: t.Optional(t.String({ maxLength: 40, description: "When, as an ISO 8601 UTC instant" })),
  },
  { additionalProperties: false, description: "Where the difference was seen" },
);

const common = {
  operation: t.String({
    pattern: OPERATION_PATTERN,
    description: "A method and a path template as the OpenAPI document writes them (GET /developer/v1/extensions/{id})",
    examples: ["GET /developer/v1/extensions/{id}/secrets"],
  }),
  answer: t.Union([integer({ minimum: 200, maximum: 599 }), oneOf(["success", "error"])], {
    description:
      "Which of ext's answers it changes: one status ext answers this operation with, or every success or every error",
  }),
  code: t.Optional(
    t.String({
      pattern: CODE_PATTERN,
      description: "An error code, lower case (only ext's error answers with this code)",
    }),
  ),
  evidence: t.Optional(Evidence),
  note: t.Optional(t.String({ maxLength: 1000, description: "Free text for people; ignored" })),
};

const path = t.String({
  pattern: FIELD_PATH_PATTERN,
  description:
    "A path in ext's answer: field names joined by dots, [] after an array's name (extensions[].installCount, error.status)",
});
const header = t.String({ pattern: HEADER_PATTERN, description: "An HTTP header's name" });

export const ProfileEntry = t.Union(
  [
    t.Object(
      {
        ...common,
        difference: t.Literal("status"),
        observed: integer({ minimum: 200, maximum: 599, description: "The platform's status" }),
      },
      { additionalProperties: false, description: "The answer has another status" },
    ),
    t.Object(
      { ...common, difference: t.Literal("field-missing"), path },
      { additionalProperties: false, description: "The platform leaves this field out" },
    ),
    t.Object(
      {
        ...common,
        difference: t.Literal("field-renamed"),
        path,
        observed: t.String({
          pattern: FIELD_NAME_PATTERN,
          description: "A field name (letters, digits, _ and -): the platform's name for the field",
        }),
      },
      { additionalProperties: false, description: "The platform sends this field under another name" },
    ),
    t.Object(
      {
        ...common,
        difference: t.Literal("field-added"),
        path,
        observed: t.Unknown({ description: "The value the platform sent (any JSON value)" }),
      },
      { additionalProperties: false, description: "The platform sends a field ext's answer does not have" },
    ),
    t.Object(
      {
        ...common,
        difference: t.Literal("field-type"),
        path,
        observed: oneOf(JSON_TYPES, { description: "The JSON type of the platform's value" }),
        example: t.Optional(t.Unknown({ description: "A value the platform sent" })),
      },
      { additionalProperties: false, description: "The platform sends this field as another JSON type" },
    ),
    t.Object(
      {
        ...common,
        difference: t.Literal("error-field"),
        field: oneOf(["code", "message"], { description: "The error envelope's field" }),
        observed: t.String({ maxLength: 1000, description: "The platform's value" }),
      },
      { additionalProperties: false, description: "The error envelope carries another code or message" },
    ),
    t.Object(
      {
        ...common,
        difference: t.Literal("error-field"),
        field: t.Literal("status"),
        observed: integer({ minimum: 100, maximum: 599, description: "The platform's value" }),
      },
      { additionalProperties: false, description: "The error envelope carries another status" },
    ),
    t.Object(
      { ...common, difference: t.Literal("header-missing"), header },
      { additionalProperties: false, description: "The platform does not send this header" },
    ),
    t.Object(
      {
        ...common,
        difference: t.Literal("header-added"),
        header,
        observed: t.String({
          maxLength: HEADER_VALUE_MAX,
          pattern: HEADER_VALUE_PATTERN,
          description:
            "A header value of printable ASCII: the platform's (it replaces ext's when ext sends one). Only some headers may be added (docs/profiles.md), and Content-Type only as a JSON media type",
        }),
      },
      { additionalProperties: false, description: "The platform sends this header (or this value of it)" },
    ),
  ],
  { description: "One observed difference of one operation's answers" },
);
export type ProfileEntry = Static<typeof ProfileEntry>;

export const Profile = t.Object(
  {
    $schema: t.Optional(t.String({ maxLength: 500, description: "Ignored: lets an editor find the schema" })),
    profileVersion: t.Literal(PROFILE_VERSION),
    description: t.Optional(t.String({ maxLength: 2000 })),
    target: t.Optional(t.String({ maxLength: 500, description: "The server the entries were observed on" })),
    observedAt: t.Optional(t.String({ maxLength: 40, description: "When they were observed (ISO 8601 UTC)" })),
    entries: t.Array(ProfileEntry, { maxItems: PROFILE_ENTRIES_MAX }),
  },
  {
    additionalProperties: false,
    description:
      "A platform profile (docs/profiles.md): how the platform's answers differ from the spec's, as observed by `ext conformance` or `ext proxy`",
    ...named("Profile"),
  },
);
export type Profile = Static<typeof Profile>;

/** The profile an emulator runs with, as the control plane shows it (GET /_emulator/state, the dashboard). */
export const ActiveProfile = t.Object(
  {
    source: t.String({ description: "Where it was loaded from: a file, startEmulator, or the seed it came with" }),
    target: t.Union([t.String(), t.Null()], { description: "The server its entries were observed on" }),
    observedAt: t.Union([t.String(), t.Null()], { description: "When they were observed" }),
    entries: t.Array(
      t.Object(
        {
          operation: t.String({ examples: ["GET /developer/v1/extensions/{id}/secrets"] }),
          answer: t.String({
            description: "Which of ext's answers it changes: a status (and code), or error/success answers",
          }),
          difference: t.UnionEnum([...DIFFERENCES]),
          change: t.String({ description: "What changes, in words, naming both sides" }),
          evidence: t.String({ description: "Where it was seen: the check or exchange, the target, when" }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false, ...named("ActiveProfile") },
);
export type ActiveProfile = Static<typeof ActiveProfile>;
