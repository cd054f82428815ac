/** Extension schemas: request validation, response shapes, the OpenAPI document and tests all use these. */
import type { Static } from "elysia";
import { NAME_MAX, SHORT_DESCRIPTION_MAX, VISIBILITIES } from "../../../common/api-rules";
import { EXTENSION_STATUSES } from "../../db/schema";
import { documentOnly, integer, named, openInDocument, t } from "../../schema/schema";

export { EXTENSION_STATUSES };
export type Visibility = (typeof VISIBILITIES)[number];
export type ExtensionStatus = (typeof EXTENSION_STATUSES)[number];

export const DESCRIPTION_MAX = 20_000;

const Timestamp = t.String({ format: "date-time", examples: ["2026-11-22T10:00:00.000Z"] });
/**
 * Elysia's `t.UnionEnum` sets `default` to the first value, and Elysia fills body defaults before the
 * handler runs: a PATCH without `visibility` would silently reset it to "private". Enums here carry no default.
 */
function enumWithoutDefault<const T extends readonly [string, ...string[]]>(
  values: T,
  options: { description: string; $id?: string },
) {
  const schema = t.UnionEnum(values, options);
  delete (schema as { default?: unknown }).default;
  return schema;
}

export const Visibility = enumWithoutDefault(VISIBILITIES, {
  description: "private (default), unlisted or public",
  ...named("Visibility"),
});
const Status = t.UnionEnum(EXTENSION_STATUSES, {
  description:
    "Set by review and admins, never by the developer. The platform's full set is not published: expect others.",
  ...openInDocument(),
});
/** In answers: the values this emulator gives, other strings allowed (the spec does not list them all). */
const VisibilityAnswer = enumWithoutDefault(VISIBILITIES, {
  description: "private, unlisted or public. The platform's full set is not published: expect others.",
});
Object.assign(VisibilityAnswer, openInDocument());

export const Pricing = t.Object(
  { type: t.Literal("free", { description: "Only free is accepted" }) },
  { additionalProperties: false, description: 'Pricing; only {"type":"free"} is accepted', ...named("Pricing") },
);
export type Pricing = Static<typeof Pricing>;

/** What a new extension is when its create (or a fixture) does not say. */
export const EXTENSION_DEFAULTS = {
  short_description: "",
  description: "",
  pricing: { type: "free" } as Pricing,
  visibility: "private" as Visibility,
  status: "draft" as ExtensionStatus,
};

/** Pricing in answers: `type` is `free` here; the platform's other types and fields are not published. */
const PricingAnswer = t.Object(
  {
    type: t.Literal("free", {
      description: "free here; the platform's other pricing types are not published",
      ...openInDocument(),
    }),
  },
  {
    additionalProperties: false,
    description: "Pricing; the platform may add fields",
    ...documentOnly({ additionalProperties: true }),
    ...named("PricingInfo"),
  },
);

/** The fields a developer writes, shared by the create and update bodies and by fixtures. */
export const ExtensionFields = {
  // No maxLength for the validator: the 80 count after trimming (decisions), which the service checks.
  name: t.String({
    minLength: 1,
    description: `1–${NAME_MAX} characters after trimming; not blank`,
    ...documentOnly({ maxLength: NAME_MAX, pattern: "\\S" }),
  }),
  short_description: t.String({ maxLength: SHORT_DESCRIPTION_MAX, description: "Shown in search results" }),
  description: t.String({ maxLength: DESCRIPTION_MAX, description: "Markdown" }),
  pricing: Pricing,
};

export const CreateExtensionBody = t.Object(
  {
    name: ExtensionFields.name,
    short_description: t.Optional(ExtensionFields.short_description),
    description: t.Optional(ExtensionFields.description),
    pricing: t.Optional(ExtensionFields.pricing),
  },
  { additionalProperties: false, ...named("ExtensionCreate") },
);
export type CreateExtensionInput = Static<typeof CreateExtensionBody>;

export const UpdateExtensionBody = t.Object(
  {
    name: t.Optional(ExtensionFields.name),
    short_description: t.Optional(ExtensionFields.short_description),
    description: t.Optional(ExtensionFields.description),
    pricing: t.Optional(ExtensionFields.pricing),
    visibility: t.Optional(Visibility),
  },
  { additionalProperties: false, ...named("ExtensionUpdate") },
);
export type UpdateExtensionInput = Static<typeof UpdateExtensionBody>;

export const ExtensionListItem = t.Object(
  {
    id: t.String({ examples: ["ext_01jd2x7k3m9q8r4t5v6w7x8y9z"] }),
    slug: t.String(),
    name: t.String(),
    visibility: VisibilityAnswer,
    status: Status,
    installCount: integer({ minimum: 0 }),
    currentVersionId: t.Union([t.String(), t.Null()]),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { additionalProperties: false, description: "An extension as the list shows it", ...named("ExtensionSummary") },
);
export type ExtensionListItem = Static<typeof ExtensionListItem>;

export const ExtensionList = t.Object(
  { extensions: t.Array(ExtensionListItem) },
  { additionalProperties: false, ...named("ExtensionList") },
);

export const ExtensionCreated = t.Object(
  {
    extension: t.Object(
      {
        id: t.String(),
        slug: t.String(),
        name: t.String(),
        status: t.Literal("draft", { description: "A new extension is always a draft" }),
        createdAt: Timestamp,
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false, ...named("ExtensionCreated") },
);
export type ExtensionCreated = Static<typeof ExtensionCreated>;

export const Extension = t.Object(
  {
    id: t.String(),
    slug: t.String(),
    name: t.String(),
    short_description: t.String(),
    description: t.String(),
    pricing: PricingAnswer,
    visibility: VisibilityAnswer,
    status: Status,
    installCount: integer({ minimum: 0 }),
    currentVersionId: t.Union([t.String(), t.Null()]),
    ratingCount: integer({ minimum: 0 }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { additionalProperties: false, ...named("Extension") },
);
export type Extension = Static<typeof Extension>;

export const ExtensionIdParams = t.Object({ id: t.String({ description: "Extension id (ext_…)" }) });
