/**
 * What a JSON body must be before any route sees it: UTF-8 (bytes that are not are refused, never stored
 * as U+FFFD) and an object (every JSON body of the API is one). Checked on every operation the document
 * says takes JSON, developer API and control plane alike.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { CONTROL_PREFIX } from "../../src/config";
import { expectEnvelope, startTestEmulator, stopTestEmulator, type TestEmulator } from "../helpers/emulator";

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
  const doc = (await emu.raw("GET", "/openapi.json", { key: null })).body;
  return Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([, op]) => op.requestBody?.content?.["application/json"])
      .map(([method, _]) => ({ method: method.toUpperCase(), path: path.replace(/\{[^}]+\}/g, "x1") })),
  );
}

function send(method: string, path: string, body: Bun.BodyInit) {
  return path.startsWith(`${CONTROL_PREFIX}/`)
    ? emu.admin(method, path.slice(CONTROL_PREFIX.length), undefined, { body, headers: JSON_TYPE })
    : emu.raw(method, path, { body, headers: JSON_TYPE });
}

describe("a JSON body", () => {
  test("that is not UTF-8 is a 422 and creates nothing", async () => {
    for (const bytes of NOT_UTF8) {
      const res = expectEnvelope(
        await emu.api("POST", "/extensions", { body: bytes, headers: JSON_TYPE }),
        422,
        "validation_error",
      );
      expect(res.details).toEqual([{ field: "body", message: "body: is not valid UTF-8 (JSON text must be UTF-8)" }]);
    }
    expect((await emu.api("GET", "/extensions")).body.extensions).toEqual([]);
  });

  test("a byte-order mark and multi-byte characters are UTF-8 all the same", async () => {
    const text = new TextEncoder().encode('\uFEFF{"name":"Ünïcode ✓ 😀"}');
    const res = await emu.api("POST", "/extensions", { body: text, headers: JSON_TYPE });
    expect(res.status).toBe(201);
    expect(res.body.extension.name).toBe("Ünïcode ✓ 😀");
    await emu.api("DELETE", `/extensions/${res.body.extension.id}`);
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
          res.body?.error?.code !== "validation_error" ||
          res.body.error.details?.[0]?.field !== "body"
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
    const created = await emu.api("POST", "/extensions", { json: { name: "Installable" } });
    const id = created.body.extension.id as string;
    for (const what of ["installs", "uninstalls", "rollouts"]) {
      const res = await emu.admin("POST", `/extensions/${id}/${what}`);
      expectEnvelope(res, 422, "validation_error");
      expect(res.body.error.message).toBe("Request body is not valid JSON.");
    }
    // Reached the service: the default install needs a current version, which this extension lacks.
    expectEnvelope(await emu.admin("POST", `/extensions/${id}/installs`, {}), 409, "no_current_version");
    for (const what of ["installs", "uninstalls"]) {
      for (const body of NOT_OBJECTS) {
        const res = await emu.admin("POST", `/extensions/${id}/${what}`, undefined, { body, headers: JSON_TYPE });
        expect(res.body.error.details).toEqual([{ field: "body", message: "body: Expected object" }]);
        expectEnvelope(res, 422, "validation_error");
      }
    }
    expect((await emu.api("GET", `/extensions/${id}/installs`)).body.total).toBe(0);
  });
});
