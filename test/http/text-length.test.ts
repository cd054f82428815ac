/**
 * String lengths are counted in characters (code points), as the document's minLength/maxLength say, not
 * in UTF-16 units (an emoji is two): on the developer API, the control plane, fixtures, bundle manifests and
 * the dashboard's form checks.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { characterCount } from "../../common/text/text-length";
import { Manifest } from "../../server/bundles/manifest";
import { FixtureError } from "../../server/seed/fixture-error";
import { validateFixture } from "../../server/seed/validate";
import { checkField } from "../../ui/src/field-rules";
import { createExtension } from "../helpers/bundles";
import { expectEnvelope, startTestEmulator, stopTestEmulator, type TestEmulator } from "../helpers/emulator";

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ config: { rateLimits: false } });
});
afterAll(() => stopTestEmulator(emu));

const EMOJI = "😀"; // one character, two UTF-16 units

describe("characterCount", () => {
  test("counts code points: a surrogate pair is one, a lone surrogate one", () => {
    expect(characterCount("")).toBe(0);
    expect(characterCount("abc")).toBe(3);
    expect(characterCount(EMOJI.repeat(41))).toBe(41);
    expect(characterCount("é👍🏽")).toBe(3);
    expect(characterCount("\uD800x\uDC00")).toBe(3);
    expect(characterCount("a\uD83D")).toBe(2);
  });
});

describe("the developer API", () => {
  test("a name of 80 emoji is 80 characters, accepted; 81 are refused", async () => {
    const created = await emu.client.POST("/developer/v1/extensions", { body: { name: EMOJI.repeat(80) } });
    expect(created.response.status).toBe(201);
    expect(created.data?.extension.name).toBe(EMOJI.repeat(80));
    const refused = expectEnvelope(
      await emu.client.POST("/developer/v1/extensions", { body: { name: EMOJI.repeat(81) } }),
      422,
      "validation_error",
    );
    expect(refused.details).toEqual([{ field: "name", message: "name: at most 80 characters after trimming" }]);
  });

  test("a schema's maxLength (short_description, 140) counts characters, in the one translator's words", async () => {
    const id = await createExtension(emu, "Short");
    const patch = (short_description: string) =>
      emu.client.PATCH("/developer/v1/extensions/{id}", { params: { path: { id } }, body: { short_description } });
    const ok = await patch(EMOJI.repeat(140));
    expect(ok.response.status).toBe(200);
    const refused = expectEnvelope(await patch(EMOJI.repeat(141)), 422, "validation_error");
    expect(refused.details).toEqual([
      { field: "short_description", message: "short_description: must be at most 140 characters" },
    ]);
  });
});

describe("the control plane", () => {
  test("a fault's message of 500 emoji is accepted, 501 are not", async () => {
    const ok = await emu.control.POST("/_emulator/faults", { body: { path: "/nowhere", message: EMOJI.repeat(500) } });
    expect(ok.response.status).toBe(201);
    expectEnvelope(
      await emu.control.POST("/_emulator/faults", { body: { path: "/nowhere", message: EMOJI.repeat(501) } }),
      422,
      "validation_error",
    );
  });

  test("a limit request's reason of 10 emoji is 10 characters: under the 20 required", async () => {
    const res = await emu.control.POST("/_emulator/limit-requests", {
      body: {
        accountId: "acc_test",
        scope: "account",
        limits: { max_sounds_per_extension: 80 },
        reason: EMOJI.repeat(10),
      },
    });
    expectEnvelope(res, 422, "validation_error");
    expect(JSON.stringify(res.error)).toContain("20");
  });
});

describe("fixtures and manifests", () => {
  test("a fixture's extension name of 80 emoji loads; 81 are refused with the API's own message", () => {
    const fixture = (name: string) => ({
      accounts: [{ id: "acc_x", name: "x", extensions: [{ name }] }],
    });
    expect(() => validateFixture(fixture(EMOJI.repeat(80)))).not.toThrow();
    try {
      validateFixture(fixture(EMOJI.repeat(81)));
      throw new Error("accepted");
    } catch (e) {
      expect(e).toBeInstanceOf(FixtureError);
      expect((e as FixtureError).problems).toEqual([
        { path: "accounts[0].extensions[0].name", message: "name: at most 80 characters after trimming" },
      ]);
    }
  });

  test("a manifest's host of 253 emoji passes the length rule; 254 do not", () => {
    expect(Value.Check(Manifest, { allowHosts: [EMOJI.repeat(253)] })).toBe(true);
    expect(Value.Check(Manifest, { allowHosts: [EMOJI.repeat(254)] })).toBe(false);
  });
});

describe("the dashboard's form check", () => {
  test("counts as the API does", () => {
    const rule = { required: true, minLength: 1, maxLength: 80 };
    expect(checkField(rule, "Name", EMOJI.repeat(80))).toBeNull();
    expect(checkField(rule, "Name", EMOJI.repeat(81))).toBe("Name can have at most 80 characters (81 now).");
  });
});
