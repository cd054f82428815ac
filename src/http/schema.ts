/**
 * Schema helpers shared by every model.ts, so validation, the OpenAPI document and tests keep using one
 * definition per model.
 */
import { type IntegerOptions, Type } from "@sinclair/typebox";

/**
 * A JSON integer. Elysia's `t.Integer` is a string-or-integer union that coerces query strings ("5" → 5):
 * right for query parameters only. In bodies and responses it would accept "5" and document every number
 * as `string | integer`.
 */
export const integer = (options?: IntegerOptions) => Type.Integer(options);

/** Where a named model lives in the OpenAPI document. */
export const SCHEMA_ID_PREFIX = "#/components/schemas/";

/**
 * Schema options naming a model: `t.Object({...}, { ...named("Extension") })`. The `$id` reaches the
 * generated document, where src/docs/post-process.ts turns each occurrence into a `$ref` to
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
