/**
 * One door: the same invalid value sent to the API and written in a fixture is refused by both, with the same
 * message, and the refused fixture changes nothing (the export of the state is byte-identical afterwards; the
 * clock is frozen, so the export's own timestamp is too).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  type AnyResponse,
  answerOf,
  DEMO_KEY,
  errorOf,
  expectEnvelope,
  startTestEmulator,
  stopTestEmulator,
  type TestEmulator,
} from "../helpers/emulator";

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => stopTestEmulator(emu));

/** The rule's words: without the request's prefix and without the field a message starts with. */
const ruleText = (message: string) => message.replace(/^Request failed validation: /, "").replace(/^[\w.]+: /, "");

async function freshState(): Promise<void> {
  expect((await emu.control.POST("/_emulator/reset")).response.status).toBe(200);
  const clock = await emu.control.POST("/_emulator/clock", { body: { set: "2030-01-01T00:00:00.000Z", freeze: true } });
  expect(clock.response.status).toBe(200);
}

async function exported(): Promise<Uint8Array> {
  const res = await fetch(`${emu.adminUrl}/export`, {
    headers: { authorization: `Bearer ${emu.runtime.control.adminToken}` },
  });
  expect(res.status).toBe(200);
  return new Uint8Array(await res.arrayBuffer());
}

async function createExtension(name = "Host"): Promise<string> {
  const res = await emu.client.POST("/developer/v1/extensions", { body: { name } });
  expect(res.response.status).toBe(201);
  return res.data?.extension.id ?? "";
}

const account = (extra: object) => ({ id: "acc_test", name: "Test Developer", ...extra });
const extension = (extra: object) => account({ extensions: [{ id: "ext_fixture", name: "Fixture", ...extra }] });
const request = (extra: object) =>
  account({
    limitRequests: [
      {
        id: "req_fixture",
        scope: "account",
        limits: { max_api_keys: 30 },
        reason: "our CI runs on many machines at once",
        status: "pending",
        createdAt: "2029-12-01T00:00:00.000Z",
        ...extra,
      },
    ],
  });
/** A body the document refuses (a value outside an enum): raw, as DEMO_KEY. */
const developer = (method: string, path: string, json: unknown) =>
  emu.rawRequest(method, `/developer/v1${path}`, { key: DEMO_KEY, json });
const newKey = (name: string) =>
  emu.control.POST("/_emulator/accounts/{accountId}/keys", {
    params: { path: { accountId: "acc_test" } },
    body: { name, scopes: ["*"] },
  });
const newMember = (email: string) =>
  emu.control.POST("/_emulator/accounts/{accountId}/members", {
    params: { path: { accountId: "acc_test" } },
    body: { email, role: "viewer" },
  });
const putSecret = (id: string, key: string) =>
  emu.client.PUT("/developer/v1/extensions/{id}/secrets/{key}", {
    params: { path: { id, key } },
    body: { value: "v" },
  });
const many = <T>(n: number, item: (i: number) => T) => Array.from({ length: n }, (_, i) => item(i));

interface Case {
  name: string;
  /** The API refusing the value: returns the refused response (after whatever set-up it needs). */
  api: () => Promise<AnyResponse>;
  /** The fixture account (or fixture) holding the same value. */
  fixture: object;
  field: string;
}

const cases: Case[] = [
  {
    name: "a name past 80 characters",
    api: () => emu.client.POST("/developer/v1/extensions", { body: { name: "x".repeat(81) } }),
    fixture: { accounts: [extension({ name: "x".repeat(81) })] },
    field: "accounts[0].extensions[0].name",
  },
  {
    name: "an unknown visibility",
    api: async () => developer("PATCH", `/extensions/${await createExtension()}`, { visibility: "secret" }),
    fixture: { accounts: [extension({ visibility: "secret" })] },
    field: "accounts[0].extensions[0].visibility",
  },
  {
    name: "an unknown pricing",
    api: () => developer("POST", "/extensions", { name: "Paid", pricing: { type: "paid" } }),
    fixture: { accounts: [extension({ pricing: { type: "paid" } })] },
    field: "accounts[0].extensions[0].pricing.type",
  },
  {
    name: "a 26th extension",
    api: async () => {
      for (let i = 0; i < 25; i++) await createExtension(`Ext ${i}`);
      return emu.client.POST("/developer/v1/extensions", { body: { name: "One too many" } });
    },
    fixture: { accounts: [account({ extensions: many(26, (i) => ({ name: `Ext ${i}` })) })] },
    field: "accounts[0].extensions[25]",
  },
  {
    name: "a 21st active key",
    api: async () => {
      // acc_test holds two keys already.
      for (let i = 0; i < 18; i++) expect((await newKey(`k${i}`)).response.status).toBe(201);
      return newKey("one too many");
    },
    fixture: {
      accounts: [{ id: "acc_new", name: "New", apiKeys: many(21, (i) => ({ name: `k${i}`, scopes: ["*"] })) }],
    },
    field: "accounts[0].apiKeys[20]",
  },
  {
    name: "10 members besides the owner",
    api: async () => {
      for (let i = 0; i < 9; i++) expect((await newMember(`m${i}@example.com`)).response.status).toBe(201);
      return newMember("m9@example.com");
    },
    fixture: {
      accounts: [
        { id: "acc_new", name: "New", teamMembers: many(10, (i) => ({ email: `m${i}@x.io`, role: "viewer" })) },
      ],
    },
    field: "accounts[0].teamMembers[9]",
  },
  {
    name: "a 21st secret",
    api: async () => {
      const id = await createExtension();
      for (let i = 0; i < 20; i++) expect((await putSecret(id, `S${i}`)).response.status).toBe(204);
      return putSecret(id, "S20");
    },
    fixture: { accounts: [extension({ secrets: many(21, (i) => ({ name: `S${i}` })) })] },
    field: "accounts[0].extensions[0].secrets[20]",
  },
  {
    name: "a bad secret name",
    api: async () => putSecret(await createExtension(), "9lives"),
    fixture: { accounts: [extension({ secrets: [{ name: "9lives" }] })] },
    field: "accounts[0].extensions[0].secrets[0].name",
  },
  {
    name: "an override past its hard maximum",
    api: () =>
      emu.control.PUT("/_emulator/overrides/accounts/{id}", {
        params: { path: { id: "acc_test" } },
        body: { max_versions_per_extension: 900 },
      }),
    fixture: { accounts: [account({ overrides: { max_versions_per_extension: 900 } })] },
    field: "accounts[0].overrides.max_versions_per_extension",
  },
  {
    name: "a 9-character reason",
    api: () =>
      emu.control.POST("/_emulator/limit-requests", {
        body: { accountId: "acc_test", scope: "account", limits: { max_api_keys: 30 }, reason: "need more" },
      }),
    fixture: { accounts: [request({ reason: "need more" })] },
    field: "accounts[0].limitRequests[0].reason",
  },
  {
    name: "an unknown limit",
    api: () =>
      // A limit the document does not have: raw.
      emu.rawRequest("POST", "/_emulator/limit-requests", {
        key: emu.runtime.control.adminToken,
        json: {
          accountId: "acc_test",
          scope: "account",
          limits: { max_bananas: 30 },
          reason: "our CI runs on many machines at once",
        },
      }),
    fixture: { accounts: [request({ limits: { max_bananas: 30 } })] },
    field: "accounts[0].limitRequests[0].limits.max_bananas",
  },
  {
    name: "February 31st",
    api: () => emu.control.POST("/_emulator/clock", { body: { set: "2026-02-31T10:00:00.000Z" } }),
    fixture: { accounts: [extension({ createdAt: "2026-02-31T10:00:00.000Z" })] },
    field: "accounts[0].extensions[0].createdAt",
  },
  {
    name: "month 13",
    api: () => emu.control.POST("/_emulator/clock", { body: { set: "2026-13-01T10:00:00.000Z" } }),
    fixture: { clock: { now: "2026-13-01T10:00:00.000Z" }, accounts: [account({})] },
    field: "clock.now",
  },
];

describe("the API and a fixture refuse the same value with the same message", () => {
  for (const c of cases)
    test(c.name, async () => {
      await freshState();
      const refused = answerOf(await c.api());
      expect(refused.status).toBeGreaterThanOrEqual(400);
      expect(refused.status).toBeLessThan(500);
      const apiMessage = ruleText(errorOf(refused.body)?.message ?? "");

      await freshState();
      const before = await exported();
      // Fixtures holding the refused value: raw, as the typed client would not send them.
      const res = await emu.rawRequest("POST", "/_emulator/seed", {
        key: emu.runtime.control.adminToken,
        json: c.fixture,
      });
      const error = expectEnvelope(res, 422, "validation_error");
      expect(error.details![0]!.field).toBe(c.field);
      expect(ruleText(error.details![0]!.message)).toBe(apiMessage);
      expect(await exported()).toEqual(before);
    });
});
