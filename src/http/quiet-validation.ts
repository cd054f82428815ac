/**
 * Elysia builds a validation error's message before anyone can replace it, and unless the failing schema
 * carries its own `error`, that message is the received value formatted as indented JSON (several times:
 * as `found`, and inside each listed error): megabytes of text for a body that is only large, quadratic in
 * its nesting. The one `onError` never uses that message (it builds `details` from the schema alone), so
 * every node of every body schema gets a fixed `error` (a documented schema option) and Elysia has nothing
 * to format. It is non-enumerable, so the OpenAPI document and any copy of the schema never show it.
 */
import type { TSchema } from "elysia";

const MESSAGE = "Request failed validation.";
const CHILD_LISTS = ["anyOf", "allOf", "oneOf", "prefixItems"] as const;
const CHILD_MAPS = ["properties", "patternProperties", "$defs"] as const;
const CHILD_ONE = ["items", "additionalProperties", "not", "contains"] as const;

/** Gives `schema` and every schema below it the fixed error message; returns it. */
export function quietValidation<S extends TSchema>(schema: S): S {
  const visit = (node: unknown) => {
    if (!node || typeof node !== "object" || Object.hasOwn(node, "error")) return;
    Object.defineProperty(node, "error", { value: MESSAGE, enumerable: false, configurable: true });
    const record = node as Record<string, unknown>;
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

/** Every body schema of the app's routes, made quiet before the first request compiles a validator. */
export function quietBodySchemas(routes: readonly { hooks: { body?: unknown } }[]): void {
  for (const route of routes) {
    const body = route.hooks.body;
    if (body && typeof body === "object") quietValidation(body as TSchema);
  }
}
