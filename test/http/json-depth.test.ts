/**
 * Nested JSON: every JSON body is refused past 32 levels on its raw bytes, before it is parsed or validated
 * (developer API and control plane alike), brackets inside strings do not count, and Elysia is never left to
 * format a received value into a validation message. Validation errors list at most 100 details.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ValidationError } from "elysia";
import { JSON_DEPTH_MAX } from "../../common/json/json-shape";
import { DETAILS_MAX } from "../../server/errors/catalog";
import { everyRoute } from "../../server/start/app";
import { createExtension } from "../helpers/bundles";
import {
  DEMO_KEY,
  expectEnvelope,
  type RawResponse,
  startTestEmulator,
  stopTestEmulator,
  type TestEmulator,
} from "../helpers/emulator";

let emu: TestEmulator;
let extensionId: string;
beforeAll(async () => {
  emu = await startTestEmulator();
  extensionId = await createExtension(emu, "Deep");
});
afterAll(() => stopTestEmulator(emu));

const JSON_TYPE = { "content-type": "application/json" };
/** Bodies no typed client would send: raw, as DEMO_KEY on the developer API, as the owner on the control plane. */
const api = (method: string, path: string, body: string) =>
  emu.rawRequest(method, `/developer/v1${path}`, { key: DEMO_KEY, body, headers: JSON_TYPE });
const control = (path: string, body: string) =>
  emu.rawRequest("POST", `/_emulator${path}`, { key: emu.runtime.control.adminToken, body, headers: JSON_TYPE });
/** `levels` nested arrays around a zero. */
const nested = (levels: number) => `${"[".repeat(levels)}0${"]".repeat(levels)}`;
const FORTY_KB_OF_BRACKETS = "[".repeat(20_000) + "]".repeat(20_000);

function expectTooDeep(res: RawResponse) {
  const error = expectEnvelope(res, 422, "validation_error");
  expect(error.details).toEqual([
    { field: "body", message: `the JSON body nests deeper than ${JSON_DEPTH_MAX} levels` },
  ]);
}

describe("a JSON body nested past the bound", () => {
  test("40 KB of nested [ to PUT secrets, for an extension id that does not exist: 422, nothing parsed", async () => {
    const res = await api("PUT", "/extensions/ext_00000000000000000000000000/secrets/A", FORTY_KB_OF_BRACKETS);
    expectTooDeep(res);
  });

  test("the same inside a field, and through the control plane (clock, seed)", async () => {
    expectTooDeep(await api("PUT", `/extensions/${extensionId}/secrets/A`, `{"value":${FORTY_KB_OF_BRACKETS}}`));
    expectTooDeep(await control("/clock", `{"set":${FORTY_KB_OF_BRACKETS}}`));
    expectTooDeep(await control("/seed", FORTY_KB_OF_BRACKETS));
  });

  test("a chunked body (no Content-Length) is measured the same way", async () => {
    const bytes = new TextEncoder().encode(`{"value":${FORTY_KB_OF_BRACKETS}}`);
    const res = await fetch(`${emu.baseUrl}/extensions/${extensionId}/secrets/A`, {
      method: "PUT",
      headers: { authorization: `Bearer ${DEMO_KEY}`, ...JSON_TYPE },
      body: new ReadableStream({
        start(c) {
          for (let at = 0; at < bytes.length; at += 4096) c.enqueue(bytes.subarray(at, at + 4096));
          c.close();
        },
      }),
    });
    expectTooDeep({ status: res.status, headers: res.headers, text: "", body: await res.json() });
  });

  test(`${JSON_DEPTH_MAX} levels pass the bound (the schema answers), ${JSON_DEPTH_MAX + 1} do not`, async () => {
    // The body object is one level, so the value may hold JSON_DEPTH_MAX - 1 more.
    const at = await api("PUT", `/extensions/${extensionId}/secrets/A`, `{"value":${nested(JSON_DEPTH_MAX - 1)}}`);
    expect(expectEnvelope(at, 422, "validation_error").details).toEqual([
      { field: "value", message: "value: must be a string in double quotes" },
    ]);
    expectTooDeep(await api("PUT", `/extensions/${extensionId}/secrets/A`, `{"value":${nested(JSON_DEPTH_MAX)}}`));
  });

  test("brackets inside strings (escaped quotes included) are not nesting", async () => {
    const value = `\\"${"[{".repeat(5_000)}`;
    const res = await api("PUT", `/extensions/${extensionId}/secrets/BRACKETS`, `{"value":"${value}"}`);
    expect(res.status).toBe(204);
  });
});

describe("validation messages never format the received value", () => {
  test("every route's body schema gives Elysia a fixed message, whatever the value", async () => {
    // A value that fails any schema somewhere below its root, big enough that formatting it would show.
    const hostile = { value: [Array(2_000).fill([[[0]]])], name: [[[0]]], accounts: [{ id: [[0]] }], set: [[0]] };
    const bodies = (await everyRoute(emu.runtime)).routes.filter((r) => r.hooks.body);
    expect(bodies.length).toBeGreaterThan(10);
    for (const route of bodies) {
      for (const value of [hostile, [hostile], "x".repeat(100_000), 5]) {
        const error = new ValidationError("body", route.hooks.body as never, value);
        expect({ route: `${route.method} ${route.path}`, length: error.message.length }).toEqual({
          route: `${route.method} ${route.path}`,
          length: "Request failed validation.".length,
        });
      }
    }
  });
});

describe("how many details a validation error lists", () => {
  test(`a body with 5,000 unknown fields lists ${DETAILS_MAX} and says there are more`, async () => {
    const body = Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`f${i}`, 1]));
    const error = expectEnvelope(
      await emu.rawRequest("POST", "/developer/v1/extensions", { key: DEMO_KEY, json: body }),
      422,
      "validation_error",
    );
    expect(error.details!.length).toBe(DETAILS_MAX + 1);
    expect(error.details!.at(-1)).toEqual({ message: `…and more problems: only the first ${DETAILS_MAX} are listed` });
    expect(error.message).toEndWith("(and more)");
  });

  test(`a seed body with 60,000 problems lists ${DETAILS_MAX} and says there are more`, async () => {
    const fixture = `{"accounts":[${Array(30_000).fill("{}").join(",")}]}`;
    const res = await control("/seed", fixture);
    const error = expectEnvelope(res, 422, "validation_error");
    expect(error.details!.length).toBe(DETAILS_MAX + 1);
    expect(error.details!.at(-1)).toEqual({ message: `…and more problems: only the first ${DETAILS_MAX} are listed` });
    expect(res.text.length).toBeLessThan(32 * 1024);
  });
});
