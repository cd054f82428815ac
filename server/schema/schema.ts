/**
 * Schema helpers shared by every model.ts, so validation, the OpenAPI document and tests keep using one
 * definition per model.
 *
 * `t` is Elysia's schema builder with two rules built into every schema it makes, when it is made (a model's
 * module, a route's declaration), so nothing rewrites the app's routes afterwards:
 *  - a string with a length bound counts characters, as the document says (server/schema/text-length.ts);
 *  - a failed check has a fixed message. Elysia builds a validation error's message before anyone can
 *    replace it, and unless the failing schema carries its own `error` (a documented schema option), that
 *    message is the received value formatted as indented JSON (several times: as `found`, and inside each
 *    listed error): megabytes of text for a body that is only large, quadratic in its nesting. The one
 *    `onError` never uses that message (it builds `details` from the schema alone), so every schema gets a
 *    fixed `error`. It is non-enumerable, so the OpenAPI document and any copy of the schema never show it.
 * A builder that copies the schemas given to it (Optional, Partial, Omit…) gets its copies marked again: the
 * one walk below goes down only as far as the first schemas that already are.
 */
import { type IntegerOptions, Kind, Type } from "@sinclair/typebox";
import { t as framework } from "elysia";
import { countingCharacters } from "./text-length";

export const VALIDATION_MESSAGE = "Request failed validation.";

const CHILD_LISTS = ["anyOf", "allOf", "oneOf", "prefixItems"] as const;
const CHILD_MAPS = ["properties", "patternProperties", "$defs"] as const;
const CHILD_ONE = ["items", "additionalProperties", "not", "contains"] as const;

/** `schema` and every schema below it not yet marked: a fixed validation message, lengths in characters. */
function markAtDefinition<S>(schema: S): S {
  const visit = (node: unknown) => {
    if (!node || typeof node !== "object" || !(Kind in node) || Object.hasOwn(node, "error")) return;
    Object.defineProperty(node, "error", { value: VALIDATION_MESSAGE, enumerable: false, configurable: true });
    const record = node as Record<string | symbol, unknown>;
    countingCharacters(record);
    for (const key of CHILD_LISTS) if (Array.isArray(record[key])) for (const child of record[key]) visit(child);
    for (const key of CHILD_MAPS) {
      const map = record[key];
      if (map && typeof map === "object") for (const child of Object.values(map)) visit(child);
    }
    for (const key of CHILD_ONE) visit(record[key]);
  };
  visit(schema);
  return schema;
}

/** Elysia's `t`, every builder's result marked at definition (above). */
export const t = Object.fromEntries(
  Object.entries(framework).map(([name, value]) => [
    name,
    typeof value === "function"
      ? (...args: unknown[]) => markAtDefinition((value as (...a: unknown[]) => unknown)(...args))
      : value,
  ]),
) as typeof framework;

/**
 * A JSON integer. Elysia's `t.Integer` is a string-or-integer union that coerces query strings ("5" → 5):
 * right for query parameters only. In bodies and responses it would accept "5" and document every number
 * as `string | integer`.
 */
export const integer = (options?: IntegerOptions) => markAtDefinition(Type.Integer(options));

/** Where a named model lives in the OpenAPI document. */
export const SCHEMA_ID_PREFIX = "#/components/schemas/";

/**
 * Schema options naming a model: `t.Object({...}, { ...named("Extension") })`. The `$id` reaches the
 * generated document, where server/docs/post-process.ts turns each occurrence into a `$ref` to
 * `components.schemas.Extension`. TypeBox compiles a `$id` once per validator and reuses it: one name
 * must never be given to two different schemas (the post-processing refuses that).
 */
export const named = (name: string) => ({ $id: SCHEMA_ID_PREFIX + name });

/**
 * Keywords for the document only, merged into the schema there by the post-processing. For a rule the
 * validator cannot hold as JSON Schema says it (a name's 80 characters count after trimming, so the
 * validator has no `maxLength`; clients should still know the bound).
 */
export const DOCUMENT_ONLY_KEY = "x-document-only";
export const documentOnly = (keywords: Record<string, unknown>) => ({ [DOCUMENT_ONLY_KEY]: keywords });

/**
 * Options for a success that is not JSON (a Server-Sent Events stream, audio bytes): the generator can only
 * say `text/plain`, so the post-processing documents the schema under these media types instead.
 */
export const MEDIA_TYPES_KEY = "x-media-types";
export const servedAs = (...mediaTypes: [string, ...string[]]) => ({ [MEDIA_TYPES_KEY]: mediaTypes });

/**
 * A response field whose full set of values the spec leaves open ("not shown"): the validator still holds
 * the emulator to the values it knows, while the document says "one of these, or another string", so a
 * client generated from it keeps working when the real platform answers a value not listed.
 */
export const OPEN_VALUES_KEY = "x-open-values";
export const openInDocument = () => ({ [OPEN_VALUES_KEY]: true });

/** A response header that is always sent with its response (`Retry-After` on a 429): required in the document. */
export const REQUIRED_HEADER_KEY = "x-required-header";
export const requiredHeader = () => ({ [REQUIRED_HEADER_KEY]: true });
