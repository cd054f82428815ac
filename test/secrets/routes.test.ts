/**
 * The secrets endpoints over a real socket. Every response of this file is recorded; the last test asserts
 * that no secret value sent here ever came back, in any body or header (errors included).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { PutSecretBody } from "../../server/resources/secrets/model";
import {
  DEMO_KEY,
  expectEnvelope,
  OTHER_KEY,
  type RawResponse,
  READ_KEY,
  type RequestOptions,
  startTestEmulator,
  stopTestEmulator,
  type TestEmulator,
} from "../helpers/emulator";

let emu: TestEmulator;
let extId: string;
const seen: string[] = [];
/** Distinctive values: if any of them shows up in a response, the test at the end fails. */
const MARK = `sEcReT${randomBytes(6).toString("hex")}`;
const VALUE = `${MARK}-first`;
const VALUE2 = `${MARK}-second`;

/**
 * Most requests of this file are hostile (bad names, bad bodies, wrong types), so every one goes through the
 * raw escape hatch, acting with DEMO_KEY unless `opts.key` says otherwise; `path` is under /developer/v1.
 */
async function call(method: string, path: string, opts: RequestOptions = {}): Promise<RawResponse> {
  const res = await emu.rawRequest(method, `/developer/v1${path}`, {
    ...opts,
    key: opts.key === undefined ? DEMO_KEY : opts.key,
  });
  seen.push(`${res.status} ${[...res.headers].map(([k, v]) => `${k}: ${v}`).join("\n")}\n${res.text}`);
  return res;
}

const secretPath = (name: string, id = extId) => `/extensions/${id}/secrets/${name}`;
const put = (name: string, value: unknown, opts: RequestOptions = {}) =>
  call("PUT", secretPath(name), { json: { value }, ...opts });
const keysOf = (res: RawResponse) => (res.body as { keys: string[] }).keys;
const names = async (id = extId) => keysOf(await call("GET", `/extensions/${id}/secrets`));

async function newExtension(name: string): Promise<string> {
  const res = await call("POST", "/extensions", { json: { name } });
  expect(res.status).toBe(201);
  return (res.body as { extension: { id: string } }).extension.id;
}

beforeAll(async () => {
  emu = await startTestEmulator();
  extId = await newExtension("Secret Keeper");
});
afterAll(() => stopTestEmulator(emu));

describe("PUT /extensions/:id/secrets/:key", () => {
  test("creates with 204 and an empty body; the name is listed, the value is not", async () => {
    const res = await put("API_TOKEN", VALUE);
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    const list = await call("GET", `/extensions/${extId}/secrets`);
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ keys: ["API_TOKEN"] });
  });

  test("replacing keeps one name and answers 204 again", async () => {
    expect((await put("API_TOKEN", VALUE2)).status).toBe(204);
    expect(await names()).toEqual(["API_TOKEN"]);
  });

  test("names: a letter or _ first, then letters, digits, _; at most 128 characters", async () => {
    for (const good of ["a", "_", "_9", "Z".repeat(128), "snake_CASE_01"])
      expect((await put(good, "v")).status).toBe(204);
    for (const bad of ["1abc", "a-b", "a.b", "Z".repeat(129), "caf%C3%A9"]) {
      const err = expectEnvelope(await put(bad, VALUE), 422, "validation_error");
      expect(err.details?.[0]?.field).toBe("key");
      expectEnvelope(await call("DELETE", secretPath(bad)), 422, "validation_error");
    }
    for (const good of ["a", "_", "_9", "Z".repeat(128), "snake_CASE_01"])
      expect((await call("DELETE", secretPath(good))).status).toBe(204);
  });

  test("values: 1 byte to 64 KB counted in UTF-8 bytes", async () => {
    expect((await put("SIZE", "x")).status).toBe(204);
    expect((await put("SIZE", "x".repeat(65_536))).status).toBe(204);
    expectEnvelope(await put("SIZE", ""), 422, "validation_error");
    const tooLong = expectEnvelope(await put("SIZE", MARK + "x".repeat(65_537)), 422, "validation_error");
    expect(tooLong.details?.[0]?.field).toBe("value");
    // 32,769 characters but 65,538 bytes: the byte count decides.
    const multiByte = expectEnvelope(await put("SIZE", "é".repeat(32_769)), 422, "validation_error");
    expect(multiByte.message).toContain("65538 bytes");
    expect((await put("SIZE", "é".repeat(32_768))).status).toBe(204);
    // A lone surrogate (sent as a JSON escape) cannot be stored as UTF-8 without turning into U+FFFD.
    const lone = await call("PUT", secretPath("SIZE"), {
      body: '{"value":"a\\ud800b"}',
      headers: { "content-type": "application/json" },
    });
    expect(expectEnvelope(lone, 422, "validation_error").details?.[0]?.field).toBe("value");
    expect((await call("DELETE", secretPath("SIZE"))).status).toBe(204);
  });

  test("a body that is not a JSON object with one string value is refused without echoing it", async () => {
    for (const json of [
      { value: [VALUE] },
      { value: { nested: VALUE } },
      { value: 42 },
      { value: VALUE, extra: VALUE },
      {},
    ]) {
      const err = expectEnvelope(await call("PUT", secretPath("BAD_BODY"), { json }), 422, "validation_error");
      expect(JSON.stringify(err)).not.toContain(MARK);
    }
    const notJson = await call("PUT", secretPath("BAD_BODY"), {
      body: VALUE,
      headers: { "content-type": "text/plain" },
    });
    expectEnvelope(notJson, 415, "unsupported_media_type");
    const malformed = await call("PUT", secretPath("BAD_BODY"), {
      body: `{"value":"${VALUE}`,
      headers: { "content-type": "application/json" },
    });
    expectEnvelope(malformed, 422, "validation_error");
    expect(await names()).not.toContain("BAD_BODY");
  });

  test("validation messages of other routes never echo the received value either", async () => {
    const res = await call("PATCH", `/extensions/${extId}`, {
      json: { name: [VALUE], visibility: VALUE, description: { v: VALUE } },
    });
    const err = expectEnvelope(res, 422, "validation_error");
    expect(err.details?.length).toBeGreaterThan(0);
    expect(res.text).not.toContain(MARK);
  });

  test("the 21st distinct name is a 422 limit_exceeded; replacing one of the 20 is not", async () => {
    const id = await newExtension("Twenty Secrets");
    for (let i = 1; i <= 20; i++)
      expect((await call("PUT", secretPath(`K${i}`, id), { json: { value: `${VALUE}${i}` } })).status).toBe(204);
    const err = expectEnvelope(
      await call("PUT", secretPath("K21", id), { json: { value: VALUE } }),
      422,
      "limit_exceeded",
    );
    expect(err.details?.[0]).toMatchObject({ limit: "max_secrets_per_extension", max: 20, current: 20 });
    expect((await call("PUT", secretPath("K7", id), { json: { value: VALUE2 } })).status).toBe(204);
    expect((await names(id)).length).toBe(20);
    expect((await call("DELETE", secretPath("K7", id))).status).toBe(204);
    expect((await call("PUT", secretPath("K21", id), { json: { value: VALUE } })).status).toBe(204);
    expect((await names(id)).length).toBe(20);
    // An admin override of the limit key raises the cap for this extension.
    emu.runtime.db.write(() =>
      emu.runtime.db.$client
        .prepare(
          "INSERT INTO extension_overrides (extension_id, limit_key, value, updated_at) VALUES (?, 'max_secrets_per_extension', 21, ?)",
        )
        .run(id, emu.clock.iso()),
    );
    expect((await call("PUT", secretPath("K22", id), { json: { value: VALUE } })).status).toBe(204);
    expect(
      expectEnvelope(await call("PUT", secretPath("K23", id), { json: { value: VALUE } }), 422, "limit_exceeded")
        .details?.[0],
    ).toMatchObject({ max: 21, current: 21 });
  });
});

describe("GET /extensions/:id/secrets", () => {
  test("names are sorted in byte order and the list is empty for a new extension", async () => {
    const id = await newExtension("Sorted Secrets");
    expect(await names(id)).toEqual([]);
    for (const n of ["beta", "Alpha", "_under", "alpha", "Zeta"])
      await call("PUT", secretPath(n, id), { json: { value: VALUE } });
    expect(await names(id)).toEqual(["Alpha", "Zeta", "_under", "alpha", "beta"]);
  });
});

describe("DELETE /extensions/:id/secrets/:key", () => {
  test("204 with an empty body, then 404 secret_not_found", async () => {
    await put("TO_DELETE", VALUE);
    const res = await call("DELETE", secretPath("TO_DELETE"));
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    expect(await names()).not.toContain("TO_DELETE");
    expectEnvelope(await call("DELETE", secretPath("TO_DELETE")), 404, "secret_not_found");
  });
});

describe("DELETE /extensions/:id", () => {
  test("takes the extension's secrets with it", async () => {
    const id = await newExtension("Short Lived");
    await put("GONE", VALUE);
    await call("PUT", secretPath("GONE", id), { json: { value: VALUE } });
    const rows = () =>
      emu.runtime.db.$client
        .prepare<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM secrets WHERE extension_id = ?")
        .get(id)!.n;
    expect(rows()).toBe(1);
    expect((await call("DELETE", `/extensions/${id}`)).status).toBe(204);
    expect(rows()).toBe(0);
    expect(await names()).toContain("GONE"); // the other extension's secret of the same name stays
  });
});

describe("secrets: scopes and ownership", () => {
  test("a read-only key lists names but gets 403 on PUT and DELETE, changing nothing", async () => {
    const list = await call("GET", `/extensions/${extId}/secrets`, { key: READ_KEY });
    expect(keysOf(list)).toContain("API_TOKEN");
    expect(expectEnvelope(await put("API_TOKEN", VALUE, { key: READ_KEY }), 403, "forbidden").message).toContain(
      "secrets:write",
    );
    expectEnvelope(await put("NEW_ONE", VALUE, { key: READ_KEY }), 403, "forbidden");
    expectEnvelope(await call("DELETE", secretPath("API_TOKEN"), { key: READ_KEY }), 403, "forbidden");
    expect(await names()).toContain("API_TOKEN");
    expect(await names()).not.toContain("NEW_ONE");
  });

  test("another account's extension, or a missing one, is a 404 extension_not_found on every method", async () => {
    for (const key of [OTHER_KEY, undefined]) {
      const id = key ? extId : "ext_missing";
      expectEnvelope(await call("GET", `/extensions/${id}/secrets`, { key }), 404, "extension_not_found");
      expectEnvelope(
        await call("PUT", secretPath("API_TOKEN", id), { key, json: { value: VALUE } }),
        404,
        "extension_not_found",
      );
      expectEnvelope(await call("DELETE", secretPath("API_TOKEN", id), { key }), 404, "extension_not_found");
    }
    expect(await names()).toContain("API_TOKEN");
  });

  test("no key is a 401", async () => {
    expectEnvelope(await call("GET", `/extensions/${extId}/secrets`, { key: null }), 401, "unauthorized");
    expectEnvelope(await put("API_TOKEN", VALUE, { key: null }), 401, "unauthorized");
  });
});

describe("secret values never leave the server", () => {
  test("no extension endpoint returns a secret value", async () => {
    expect((await put("API_TOKEN", VALUE)).status).toBe(204);
    const responses = [
      await call("GET", "/extensions"),
      await call("GET", `/extensions/${extId}`),
      await call("GET", `/extensions/${extId}/installs`),
      await call("GET", `/extensions/${extId}/secrets`),
      await call("GET", `/extensions/${extId}/secrets/API_TOKEN`), // not a route: 405 with Allow
      await call("PATCH", `/extensions/${extId}`, { json: { name: "Secret Keeper 2" } }),
    ];
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200, 405, 200]);
    expect(keysOf(responses[3]!)).toContain("API_TOKEN");
    for (const r of responses) expect(`${[...r.headers].join("\n")}\n${r.text}`).not.toContain(MARK);
  });

  test("the OpenAPI document has the secret endpoints but no example value", async () => {
    const res = await emu.rawRequest("GET", "/openapi.json");
    seen.push(res.text);
    expect(res.status).toBe(200);
    const doc = JSON.parse(res.text);
    expect(doc.paths["/developer/v1/extensions/{id}/secrets/{key}"].put.tags).toEqual(["Secrets"]);
    expect(doc.paths["/developer/v1/extensions/{id}/secrets"].get.tags).toEqual(["Secrets"]);
    // The request body schema the document shows for `value` carries no example to copy a real secret into.
    const body =
      doc.paths["/developer/v1/extensions/{id}/secrets/{key}"].put.requestBody.content["application/json"].schema;
    expect(body).toEqual({ $ref: "#/components/schemas/SecretValue" });
    const documented = doc.components.schemas.SecretValue.properties.value;
    for (const value of [documented, PutSecretBody.properties.value as Record<string, unknown>]) {
      expect(value.type).toBe("string");
      expect(value.examples ?? value.example ?? value.default).toBeUndefined();
    }
  });

  test("none of the recorded responses of this file contains a value that was sent", () => {
    expect(seen.length).toBeGreaterThan(60);
    // Sanity check that the search works: names do come back.
    expect(seen.some((s) => s.includes("API_TOKEN"))).toBe(true);
    const leaks = seen.filter((s) => s.includes(MARK) || s.includes("é".repeat(64)));
    expect(leaks).toEqual([]);
  });
});
