/**
 * What a JSON body must be before any route sees it: UTF-8 (bytes that are not are refused, never stored
 * as U+FFFD) and an object (every JSON body of the API is one). Checked on every operation the document
 * says takes JSON, developer API and control plane alike.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { CONTROL_PREFIX } from "../../common/addresses";
import { createExtension } from "../helpers/bundles";
import {
  DEMO_KEY,
  documentOperations,
  errorOf,
  expectEnvelope,
  jsonAt,
  startTestEmulator,
  stopTestEmulator,
  type TestEmulator,
} from "../helpers/emulator";

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ config: { rateLimits: false } });
});
afterAll(() => stopTestEmulator(emu));

const JSON_TYPE = { "content-type": "application/json" };
/** `{"name":"<0xFF>"}` and the overlong encoding of "/": neither is UTF-8. */
const NOT_UTF8 = [
  new Uint8Array([0x7b, 0x22, 0x6e, 0x61, 0x6d, 0x65, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]),
  new Uint8Array([0x7b, 0x22, 0x6e, 0x61, 0x6d, 0x65, 0x22, 0x3a, 0x22, 0xc0, 0xaf, 0x22, 0x7d]),
];
const NOT_OBJECTS = ["null", "7", '"x"', "[]", "true"];

/** Every operation whose document says it takes a JSON body, its parameters filled with a plausible id. */
async function jsonOperations(): Promise<{ method: string; path: string }[]> {
  return (await documentOperations(emu))
    .filter(({ op }) => jsonAt(op, "requestBody", "content", "application/json"))
    .map(({ method, path }) => ({ method: method.toUpperCase(), path: path.replace(/\{[^}]+\}/g, "x1") }));
}

/** Raw: bodies no typed client would send. Each plane with its own credential. */
function send(method: string, path: string, body: Bun.BodyInit) {
  const key = path.startsWith(`${CONTROL_PREFIX}/`) ? emu.runtime.control.adminToken : DEMO_KEY;
  return emu.rawRequest(method, path, { key, body, headers: JSON_TYPE });
}

describe("a JSON body", () => {
  test("that is not UTF-8 is a 422 and creates nothing", async () => {
    for (const bytes of NOT_UTF8) {
      const res = expectEnvelope(await send("POST", "/developer/v1/extensions", bytes), 422, "validation_error");
      expect(res.details).toEqual([{ field: "body", message: "body: is not valid UTF-8 (JSON text must be UTF-8)" }]);
    }
    expect((await emu.client.GET("/developer/v1/extensions")).data?.extensions).toEqual([]);
  });

  test("a byte-order mark and multi-byte characters are UTF-8 all the same", async () => {
    const text = new TextEncoder().encode('\uFEFF{"name":"Ünïcode ✓ 😀"}');
    const res = await send("POST", "/developer/v1/extensions", text);
    expect(res.status).toBe(201);
    expect(jsonAt(res.body, "extension", "name")).toBe("Ünïcode ✓ 😀");
    const id = String(jsonAt(res.body, "extension", "id"));
    await emu.client.DELETE("/developer/v1/extensions/{id}", { params: { path: { id } } });
  });

  test("is refused unless it is an object or UTF-8, on every operation that takes JSON", async () => {
    const operations = await jsonOperations();
    expect(operations.some((o) => o.path.endsWith("/installs"))).toBe(true);
    const wrong: string[] = [];
    for (const { method, path } of operations) {
      for (const body of [...NOT_OBJECTS, ...NOT_UTF8]) {
        const res = await send(method, path, body);
        if (
          res.status !== 422 ||
          errorOf(res.body)?.code !== "validation_error" ||
          errorOf(res.body)?.details?.[0]?.field !== "body"
        )
          wrong.push(
            `${method} ${path} ${typeof body === "string" ? body : "bytes"}: ${res.status} ${res.text.slice(0, 120)}`,
          );
      }
    }
    expect(wrong).toEqual([]);
  });
});

describe("POST /_emulator/extensions/:id/installs and /uninstalls", () => {
  test('no body, null, 7, "x" and [] record nothing; {} asks for the defaults', async () => {
    const id = await createExtension(emu, "Installable");
    const owner = emu.runtime.control.adminToken;
    for (const what of ["installs", "uninstalls", "rollouts"]) {
      // No body at all: raw, as the typed client always sends the body it is given.
      const res = await emu.rawRequest("POST", `/_emulator/extensions/${id}/${what}`, { key: owner });
      expect(expectEnvelope(res, 422, "validation_error").message).toBe("Request body is not valid JSON.");
    }
    // Reached the service: the default install needs a current version, which this extension lacks.
    expectEnvelope(
      await emu.control.POST("/_emulator/extensions/{id}/installs", { params: { path: { id } }, body: {} }),
      409,
      "no_current_version",
    );
    for (const what of ["installs", "uninstalls"]) {
      for (const body of NOT_OBJECTS) {
        const res = await send("POST", `/_emulator/extensions/${id}/${what}`, body);
        expect(errorOf(res.body)?.details).toEqual([{ field: "body", message: "body: Expected object" }]);
        expectEnvelope(res, 422, "validation_error");
      }
    }
    expect(
      (await emu.client.GET("/developer/v1/extensions/{id}/installs", { params: { path: { id } } })).data?.total,
    ).toBe(0);
  });
});
