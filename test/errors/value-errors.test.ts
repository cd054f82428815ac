/** How a value a schema refused is put in words: one sentence per problem, readable as English. */
import { expect, test } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { t } from "elysia";
import { problemOf } from "../../server/errors/value-errors";

const first = (schema: Parameters<typeof Value.Errors>[0], value: unknown) =>
  problemOf([...Value.Errors(schema, value)][0]!);

test("a pattern's description ends the sentence: lowercased, but an acronym stays as written", () => {
  const word = t.String({ pattern: "^[a-z]+$", description: "Lowercase letters only" });
  expect(first(word, "A1").message).toBe("must be lowercase letters only");
  const instant = t.String({ pattern: "^\\d{4}-", description: "ISO 8601 UTC instant with milliseconds (export)" });
  expect(first(instant, "soon").message).toBe("must be ISO 8601 UTC instant with milliseconds (export)");
  const hash = t.String({ pattern: "^[0-9a-f]{64}$", description: "SHA-256, 64 lowercase hex digits" });
  expect(first(hash, "x").message).toBe("must be SHA-256, 64 lowercase hex digits");
});
