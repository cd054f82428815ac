/**
 * The dashboard's form rules are the API's: ui/src/field-rules.generated.ts is exactly what the document gives
 * now, and a value the forms pass is one the server's validator accepts (and the other way round).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { FIELD_RULES_PATH, generateFieldRules } from "../../scripts/lib/field-rules";
import { checkField, rulesOf } from "../../ui/src/field-rules";
import { startTestEmulator, stopTestEmulator, type TestEmulator } from "../helpers/emulator";

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => stopTestEmulator(emu));

test("ui/src/field-rules.generated.ts is current (else: npm run client:generate)", async () => {
  expect(readFileSync(FIELD_RULES_PATH, "utf8") === (await generateFieldRules())).toBe(true);
}, 60_000);

test("a form's check and the API agree on key names, extension names, fault codes and reasons", async () => {
  const cases: [string, string, string, (v: string) => Promise<number>][] = [
    [
      "ApiKeyCreate",
      "name",
      "x".repeat(101),
      async (name) => (await emu.admin("POST", "/accounts/acc_test/keys", { name, scopes: ["*"] })).status,
    ],
    [
      "ApiKeyCreate",
      "name",
      "ok",
      async (name) => (await emu.admin("POST", "/accounts/acc_test/keys", { name, scopes: ["*"] })).status,
    ],
    [
      "ExtensionCreate",
      "name",
      "y".repeat(81),
      async (name) => (await emu.api("POST", "/extensions", { json: { name } })).status,
    ],
    [
      "FaultRuleInput",
      "code",
      "Bad-Code",
      async (code) => (await emu.admin("POST", "/faults", { path: "/x", status: 500, code })).status,
    ],
    [
      "FaultRuleInput",
      "code",
      "fine_code",
      async (code) => (await emu.admin("POST", "/faults", { path: "/x", status: 500, code })).status,
    ],
  ];
  for (const [schema, field, value, send] of cases) {
    const problem = checkField(rulesOf(schema)[field], field, value);
    const status = await send(value);
    expect({ schema, field, value, refused: problem !== null }).toEqual({
      schema,
      field,
      value,
      refused: status === 422,
    });
  }
  expect(checkField(rulesOf("LimitRequestCreate").reason, "The reason", "too short")).toBe(
    "The reason needs at least 20 characters (9 now).",
  );
  expect(checkField(rulesOf("FaultRuleInput").status, "Status", "200")).toBe("Status must be at least 400.");
});
