/**
 * The drift check: client/schema.d.ts is exactly what `npm run client:generate` makes of the document
 * `ext openapi` prints now (scripts/lib/client-types.ts). A route or model change without it fails here.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { ANSWER_MEMBERS_PATH, generateAnswerMembers } from "../../scripts/lib/answer-members";
import { CLIENT_TYPES_PATH, generateClientTypes } from "../../scripts/lib/client-types";

/** The first differing line, so a failure says where without printing thousands of lines. */
function firstDifference(a: string, b: string): string | null {
  const x = a.split("\n");
  const y = b.split("\n");
  for (let i = 0; i < Math.max(x.length, y.length); i++)
    if (x[i] !== y[i]) return `line ${i + 1}: committed ${JSON.stringify(x[i])}, generated ${JSON.stringify(y[i])}`;
  return null;
}

test("client/schema.d.ts is current (else: npm run client:generate)", async () => {
  const fresh = await generateClientTypes();
  const committed = readFileSync(CLIENT_TYPES_PATH, "utf8");
  expect(firstDifference(committed, fresh)).toBeNull();
}, 60_000);

test("the generated types have named schemas and no string-or-number integers", () => {
  const types = readFileSync(CLIENT_TYPES_PATH, "utf8");
  // Booleans: a failure must not print the whole file.
  expect(types.includes("string | number")).toBe(false);
  const schemas = types.slice(types.indexOf("export interface components {"));
  for (const name of ["Extension", "ExtensionSummary", "Version", "InstallStatistics", "Limits", "RequestLogEntry"])
    expect(schemas.includes(`\n        ${name}: {`), name).toBe(true);
});

test("tools/calls/answer-members.generated.ts, the tools' reading of answers, is current (else: npm run client:generate)", async () => {
  const committed = readFileSync(ANSWER_MEMBERS_PATH, "utf8");
  expect(firstDifference(committed, await generateAnswerMembers())).toBeNull();
}, 60_000);
