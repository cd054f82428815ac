/** client/fixture.d.ts is what scripts/lib/fixture-types.ts makes of the current OpenAPI document. */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { FIXTURE_TYPES_PATH, generateFixtureTypes } from "../../scripts/lib/fixture-types";

test("the committed fixture types are current", async () => {
  const fresh = await generateFixtureTypes();
  // Regenerate with: node_modules/.bin/bun scripts/lib/fixture-types.ts
  expect(readFileSync(FIXTURE_TYPES_PATH, "utf8") === fresh, "client/fixture.d.ts is stale").toBe(true);
  // A field with a default stays optional in a fixture.
  expect(fresh).toContain('visibility?: components["schemas"]["Visibility"];');
}, 60_000);
