/**
 * The dashboard's form rules are the API's: ui/src/field-rules.generated.ts is exactly what the document gives
 * now, and a value the forms pass is one the server's validator accepts (and the other way round).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { FIELD_RULES_PATH, generateFieldRules } from "../../scripts/lib/field-rules";
import { checkField, checkFields, rulesOf } from "../../ui/src/field-rules";
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

test("the secret, clock, overrides and account forms' checks agree with the API", async () => {
  const ext = await emu.api("POST", "/extensions", { json: { name: "Rules" } });
  const extId = (ext.body as { extension: { id: string } }).extension.id;
  const cases: [string, string, string, (v: string) => Promise<number>][] = [
    [
      "PUT /developer/v1/extensions/{id}/secrets/{key} params",
      "key",
      "bad-name",
      async (key) => (await emu.api("PUT", `/extensions/${extId}/secrets/${key}`, { json: { value: "v" } })).status,
    ],
    [
      "PUT /developer/v1/extensions/{id}/secrets/{key} params",
      "key",
      "GOOD_NAME",
      async (key) => (await emu.api("PUT", `/extensions/${extId}/secrets/${key}`, { json: { value: "v" } })).status,
    ],
    [
      "SecretValue",
      "value",
      "",
      async (value) => (await emu.api("PUT", `/extensions/${extId}/secrets/S`, { json: { value } })).status,
    ],
    ["ClockChange", "set", "2030-13-01T00:00:00Z", async (set) => (await emu.admin("POST", "/clock", { set })).status],
    ["ClockChange", "set", "2030-01-01T00:00:00", async (set) => (await emu.admin("POST", "/clock", { set })).status],
    ["ClockChange", "set", "2030-01-01T00:00:00Z", async (set) => (await emu.admin("POST", "/clock", { set })).status],
    [
      "ClockChange",
      "set",
      "2030-01-01T00:00:00.000+02:00",
      async (set) => (await emu.admin("POST", "/clock", { set })).status,
    ],
    [
      "ClockChange",
      "advanceSeconds",
      "abc",
      async () => (await emu.admin("POST", "/clock", { advanceSeconds: "abc" })).status,
    ],
    [
      "ClockChange",
      "advanceSeconds",
      "-60",
      async (s) => (await emu.admin("POST", "/clock", { advanceSeconds: Number(s) })).status,
    ],
    [
      "LimitValues",
      "max_secrets_per_extension",
      "-1",
      async (v) =>
        (await emu.admin("PUT", "/overrides/accounts/acc_other", { max_secrets_per_extension: Number(v) })).status,
    ],
    [
      "LimitValues",
      "max_secrets_per_extension",
      "2.5",
      async (v) =>
        (await emu.admin("PUT", "/overrides/accounts/acc_other", { max_secrets_per_extension: Number(v) })).status,
    ],
    [
      "LimitValues",
      "max_secrets_per_extension",
      "30",
      async (v) =>
        (await emu.admin("PUT", "/overrides/accounts/acc_other", { max_secrets_per_extension: Number(v) })).status,
    ],
    [
      "FixtureAccount",
      "name",
      "n".repeat(101),
      async (name) => (await emu.admin("POST", "/seed", { accounts: [{ id: "acc_rules", name }] })).status,
    ],
    [
      "FixtureAccount",
      "id",
      "acc with space",
      async (id) => (await emu.admin("POST", "/seed", { accounts: [{ id, name: "Rules" }] })).status,
    ],
  ];
  for (const [schema, field, value, send] of cases) {
    const refused = Object.keys(checkFields(schema, { [field]: { label: field, value, required: true } })).length > 0;
    expect({ schema, field, value, refused }).toEqual({ schema, field, value, refused: (await send(value)) >= 400 });
  }
  // One deliberate difference: the API also takes a date without a time or zone, read in the server's own
  // time zone; the form asks for the zone, so what it sends means the same instant everywhere.
  expect(checkField({ ...rulesOf("ClockChange").set, required: true }, "Set to", "2030-01-01 10:00")).toBe(
    "Set to must be a date and time with its zone, like 2030-01-01T00:00:00Z.",
  );
});
