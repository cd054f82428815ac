/**
 * An enum schema for request bodies and queries. Elysia's `t.UnionEnum` gives its schema a `default`
 * (the first value), and Elysia fills defaults before validating — so a missing enum field silently
 * becomes the first value instead of being absent or refused. A union of literals has no default.
 */
import type { TLiteral, TUnion } from "@sinclair/typebox";
import { t } from "./schema";

export function oneOf<const V extends readonly string[]>(
  values: V,
  options: { description?: string } = {},
): TUnion<TLiteral<V[number]>[]> {
  return t.Union(values.map((v) => t.Literal(v)) as never, options) as never;
}
