/**
 * The dashboard's form rules are the API's: ui/src/field-rules.generated.ts is exactly what the document gives
 * now, and a value the forms pass is one the server's validator accepts (and the other way round).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { FIELD_RULES_PATH, generateFieldRules } from "../../scripts/lib/field-rules";
import { checkField, checkFields, rulesOf } from "../../ui/src/field-rules";
import { createExtension } from "../helpers/bundles";
import { startTestEmulator, stopTestEmulator, type TestEmulator } from "../helpers/emulator";

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => stopTestEmulator(emu));

test("ui/src/field-rules.generated.ts is current (else: npm run client:generate)", async () => {
  expect(readFileSync(FIELD_RULES_PATH, "utf8") === (await generateFieldRules())).toBe(true);
}, 60_000);

const newKey = (name: string) =>
  emu.control.POST("/_emulator/accounts/{accountId}/keys", {
    params: { path: { accountId: "acc_test" } },
    body: { name, scopes: ["*"] },
  });

test("a form's check and the API agree on key names, extension names, fault codes and reasons", async () => {
  const cases: [string, string, string, (v: string) => Promise<number>][] = [
    ["ApiKeyCreate", "name", "x".repeat(101), async (name) => (await newKey(name)).response.status],
    ["ApiKeyCreate", "name", "ok", async (name) => (await newKey(name)).response.status],
    [
      "ExtensionCreate",
      "name",
      "y".repeat(81),
      async (name) => (await emu.client.POST("/developer/v1/extensions", { body: { name } })).response.status,
    ],
    [
      "FaultRuleInput",
      "code",
      "Bad-Code",
      async (code) =>
        (await emu.control.POST("/_emulator/faults", { body: { path: "/x", status: 500, code } })).response.status,
    ],
    [
      "FaultRuleInput",
      "code",
      "fine_code",
      async (code) =>
        (await emu.control.POST("/_emulator/faults", { body: { path: "/x", status: 500, code } })).response.status,
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
  const extId = await createExtension(emu, "Rules");
  const putSecret = (key: string, value: string) =>
    emu.client.PUT("/developer/v1/extensions/{id}/secrets/{key}", {
      params: { path: { id: extId, key } },
      body: { value },
    });
  const setClock = async (set: string) =>
    (await emu.control.POST("/_emulator/clock", { body: { set } })).response.status;
  const override = async (v: string) =>
    (
      await emu.control.PUT("/_emulator/overrides/accounts/{id}", {
        params: { path: { id: "acc_other" } },
        body: { max_secrets_per_extension: Number(v) },
      })
    ).response.status;
  const cases: [string, string, string, (v: string) => Promise<number>][] = [
    [
      "PUT /developer/v1/extensions/{id}/secrets/{key} params",
      "key",
      "bad-name",
      async (key) => (await putSecret(key, "v")).response.status,
    ],
    [
      "PUT /developer/v1/extensions/{id}/secrets/{key} params",
      "key",
      "GOOD_NAME",
      async (key) => (await putSecret(key, "v")).response.status,
    ],
    ["SecretValue", "value", "", async (value) => (await putSecret("S", value)).response.status],
    ["ClockChange", "set", "2030-13-01T00:00:00Z", setClock],
    ["ClockChange", "set", "2030-01-01T00:00:00", setClock],
    ["ClockChange", "set", "2030-01-01T00:00:00Z", setClock],
    ["ClockChange", "set", "2030-01-01T00:00:00.000+02:00", setClock],
    [
      "ClockChange",
      "advanceSeconds",
      "abc",
      // A string where the document wants a number: raw, as the typed client would not send it.
      async () =>
        (
          await emu.rawRequest("POST", "/_emulator/clock", {
            key: emu.runtime.control.adminToken,
            json: { advanceSeconds: "abc" },
          })
        ).status,
    ],
    [
      "ClockChange",
      "advanceSeconds",
      "-60",
      async (s) =>
        (await emu.control.POST("/_emulator/clock", { body: { advanceSeconds: Number(s) } })).response.status,
    ],
    ["LimitValues", "max_secrets_per_extension", "-1", override],
    ["LimitValues", "max_secrets_per_extension", "2.5", override],
    ["LimitValues", "max_secrets_per_extension", "30", override],
    [
      "FixtureAccount",
      "name",
      "n".repeat(101),
      async (name) =>
        (await emu.control.POST("/_emulator/seed", { body: { accounts: [{ id: "acc_rules", name }] } })).response
          .status,
    ],
    [
      "FixtureAccount",
      "id",
      "acc with space",
      async (id) =>
        (await emu.control.POST("/_emulator/seed", { body: { accounts: [{ id, name: "Rules" }] } })).response.status,
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
