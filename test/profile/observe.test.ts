/**
 * Observed answers → profile entries: each kind found where the platform's answer differs from ext's, what a
 * profile cannot hold said in words and left out, and the builder's merging (one entry per difference, a
 * place seen with two values left out, entries sorted so that the same traffic saves the same profile).
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import {
  ANSWER_SHAPES_PATH,
  generateAnswerShapes,
  generateProfileSchema,
  PROFILE_SCHEMA_PATH,
} from "../../scripts/lib/answer-shapes";
import { ProfileBuilder } from "../../server/profile/builder";
import { explainEntry } from "../../server/profile/explain";
import { compile } from "../../server/profile/load";
import { observe, operationOf } from "../../server/profile/observe";

const JSON_TYPE = { "content-type": "application/json" };
const RATE = { "x-ratelimit-limit": "120", "x-ratelimit-remaining": "119", "x-ratelimit-reset": "1" };
const LIST = "GET /developer/v1/extensions";
const item = {
  id: "e",
  slug: "s",
  name: "n",
  visibility: "private",
  status: "draft",
  installCount: 0,
  currentVersionId: null,
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
};

describe("observe", () => {
  test("an answer like ext's shows nothing", () => {
    const o = observe(
      LIST,
      { status: 200 },
      { status: 200, headers: { ...JSON_TYPE, ...RATE }, body: JSON.stringify({ extensions: [item] }) },
    );
    expect(o).toEqual({ entries: [], unexpressible: [] });
  });

  test("a rename, a type, a missing and an added field; a missing header", () => {
    const { installCount, currentVersionId: _, ...rest } = item;
    const body = { extensions: [{ ...rest, installs: installCount, createdAt: 1_700_000_000, owner: { id: "acc" } }] };
    const o = observe(LIST, { status: 200 }, { status: 200, headers: JSON_TYPE, body: JSON.stringify(body) });
    expect(o.unexpressible).toEqual([]);
    expect(o.entries.map((e) => explainEntry({ ...e } as never))).toEqual([
      // installCount and installs: the one missing field whose type the one added field fits.
      `${LIST} 200: extensions[].installCount is sent as extensions[].installs: ext's name for it is installCount`,
      `${LIST} 200: extensions[].currentVersionId is left out: ext sends it`,
      `${LIST} 200: extensions[].owner is added, {"id":"acc"}: ext's answer has no such field`,
      `${LIST} 200: extensions[].createdAt is an integer (1700000000): ext's is a string`,
      `${LIST} 200: no X-RateLimit-Limit header: ext sends one`,
      `${LIST} 200: no X-RateLimit-Remaining header: ext sends one`,
      `${LIST} 200: no X-RateLimit-Reset header: ext sends one`,
    ]);
  });

  test("the platform's listSecrets sends {names}: a rename", () => {
    const o = observe(
      "GET /developer/v1/extensions/{id}/secrets",
      { status: 200 },
      {
        status: 200,
        headers: { ...JSON_TYPE, ...RATE },
        body: '{"names":["A"]}',
      },
    );
    expect(o.entries).toEqual([
      {
        operation: "GET /developer/v1/extensions/{id}/secrets",
        answer: 200,
        difference: "field-renamed",
        path: "keys",
        observed: "names",
      },
    ]);
  });

  test("an error: another status, another code, the envelope's status left out, another WWW-Authenticate", () => {
    const o = observe(
      LIST,
      { status: 401, code: "unauthorized" },
      {
        status: 401,
        headers: { ...JSON_TYPE, "www-authenticate": "Bearer" },
        body: '{"error":{"code":"invalid_key","message":"no"}}',
      },
    );
    expect(o.entries.map((e) => explainEntry({ ...e } as never))).toEqual([
      `${LIST} 401: error.status is left out: ext sends it`,
      `${LIST} 401: error.code invalid_key is not the spec's code for 401: the spec's is \`unauthorized\``,
      `${LIST} 401: WWW-Authenticate: Bearer (ext sends its own value)`,
    ]);
    const patch = observe(
      "PATCH /developer/v1/extensions/{id}",
      { status: 422, code: "validation_error" },
      {
        status: 400,
        headers: { ...JSON_TYPE, ...RATE },
        body: '{"error":{"code":"bad_request","message":"no","status":400}}',
      },
    );
    expect(patch.entries).toMatchObject([
      { answer: 422, difference: "status", observed: 400 },
      { answer: 422, difference: "error-field", field: "code", observed: "bad_request" },
    ]);
  });

  test("what a profile cannot hold is said, not approximated", () => {
    const accepted = observe(
      "POST /developer/v1/extensions",
      { status: 422, code: "validation_error" },
      {
        status: 201,
        headers: JSON_TYPE,
        body: "{}",
      },
    );
    expect(accepted).toEqual({
      entries: [],
      unexpressible: [
        "the target answered 201 where ext answers 422 validation_error: it accepted what ext refuses, another rule, which a profile cannot hold",
      ],
    });
    const echo = observe(
      "PUT /developer/v1/extensions/{id}/secrets/{key}",
      { status: 204 },
      {
        status: 200,
        headers: { ...JSON_TYPE, ...RATE },
        body: '{"value":"<secret value>"}',
      },
    );
    expect(echo.entries).toMatchObject([{ difference: "status", observed: 200 }]);
    expect(echo.unexpressible).toEqual(["the target sends a body with its 200 where ext sends none"]);
    const varies = observe(
      LIST,
      { status: 200 },
      {
        status: 200,
        headers: { ...JSON_TYPE, ...RATE },
        body: JSON.stringify({
          extensions: [
            { ...item, region: "eu" },
            { ...item, region: "us" },
          ],
        }),
      },
    );
    expect(varies).toEqual({ entries: [], unexpressible: ["extensions[].region differs from one item to the next"] });
  });

  test("a header a profile cannot hold is said, never saved: a page for a JSON answer, another scheme, no Content-Type", () => {
    const unauthorized = (
      headers: Record<string, string>,
      body = '{"error":{"code":"unauthorized","message":"no","status":401}}',
    ) => observe(LIST, { status: 401, code: "unauthorized" }, { status: 401, headers, body });
    // The attack: the 401 made a page of the target's script. The value is data in a JSON answer; the type is not saved.
    const page = unauthorized(
      { "content-type": "text/html; charset=utf-8", "www-authenticate": 'Bearer realm="developer-api"' },
      '{"error":{"code":"unauthorized","message":"no","status":401},"x":"<script>alert(1)</script>"}',
    );
    expect(page.entries).toEqual([
      { operation: LIST, answer: 401, difference: "field-added", path: "x", observed: "<script>alert(1)</script>" },
    ]);
    expect(page.unexpressible).toEqual([
      "the target's 401 answer sends content-type: Content-Type text/html; charset=utf-8 is not a JSON media type: a profile keeps every answer JSON (application/json, or application/…+json)",
    ]);
    expect(unauthorized({ ...JSON_TYPE, "www-authenticate": 'Basic realm="platform"' })).toEqual({
      entries: [],
      unexpressible: [
        "the target's 401 answer sends www-authenticate: WWW-Authenticate: the scheme is Bearer (the developer API's keys), not Basic",
      ],
    });
    expect(unauthorized({ ...JSON_TYPE, "www-authenticate": `Bearer ${"x".repeat(300)}` }).unexpressible).toEqual([
      "the target's 401 answer sends www-authenticate: www-authenticate: a value of printable ASCII, at most 256 characters",
    ]);
    expect(unauthorized({ "www-authenticate": 'Bearer realm="developer-api"' }).unexpressible).toEqual([
      "the target's 401 answer has no content-type: an answer's Content-Type stays: without it a client or a browser guesses what the body is",
    ]);
    // A JSON media type other than ext's is held, and loads.
    const problem = unauthorized({ "content-type": "application/problem+json", "www-authenticate": "Bearer" });
    expect(problem.unexpressible).toEqual([]);
    expect(problem.entries).toMatchObject([
      { difference: "header-added", header: "content-type", observed: "application/problem+json" },
      { difference: "header-added", header: "www-authenticate", observed: "Bearer" },
    ]);
    expect(() => compile({ profileVersion: 1, entries: problem.entries as never })).not.toThrow();
  });

  test("a target's field named like a built-in object member is a field like any other", () => {
    const body = `{"extensions":[],"constructor":1,"toString":"x","__proto__":{"polluted":true}}`;
    const o = observe(LIST, { status: 200 }, { status: 200, headers: { ...JSON_TYPE, ...RATE }, body });
    expect(o.entries.map((e) => ("path" in e ? [e.difference, e.path] : [e.difference]))).toEqual([
      ["field-added", "constructor"],
      ["field-added", "toString"],
      ["field-added", "__proto__"],
    ]);
    const error = observe(
      LIST,
      { status: 401, code: "unauthorized" },
      {
        status: 401,
        headers: { ...JSON_TYPE, "www-authenticate": 'Bearer realm="developer-api"' },
        body: '{"error":{"code":"unauthorized","message":"m","status":401,"hasOwnProperty":null}}',
      },
    );
    expect(error.entries).toMatchObject([{ difference: "field-added", path: "error.hasOwnProperty", observed: null }]);
    // Saved, the __proto__ key is left out with the compiler's reason; the others are kept.
    const b = new ProfileBuilder("conformance", "http://t", "2026-11-22T10:00:00.000Z");
    b.add(o, { label: "extensions.list" });
    expect(b.profile().entries.map((e) => ("path" in e ? e.path : ""))).toEqual(["constructor", "toString"]);
    expect(b.summary().leftOut).toEqual([
      {
        reason: `${LIST} 200: __proto__ is added, {"polluted":true}: ext's answer has no such field — left out: __proto__ cannot name a field: a JavaScript client reading the answer would take it for the object's prototype (ext's 200 answer)`,
        seen: ["extensions.list"],
      },
    ]);
  });

  test("operations from requests", () => {
    expect(operationOf("GET", "/developer/v1/extensions/ext_1/secrets")).toBe(
      "GET /developer/v1/extensions/{id}/secrets",
    );
    expect(operationOf("DELETE", "/developer/v1/extensions/e/secrets/K?x=1")).toBe(
      "DELETE /developer/v1/extensions/{id}/secrets/{key}",
    );
    expect(operationOf("PUT", "/developer/v1/extensions")).toBeNull();
    expect(operationOf("GET", "/developer/v1/conformance-unknown-route")).toBeNull();
  });
});

describe("the builder", () => {
  const at = "2026-11-22T10:00:00.000Z";
  const unauthorized = (code: string) =>
    observe(
      LIST,
      { status: 401, code: "unauthorized" },
      {
        status: 401,
        headers: { ...JSON_TYPE, "www-authenticate": 'Bearer realm="developer-api"' },
        body: JSON.stringify({ error: { code, message: "m", status: 401 } }),
      },
    );

  test("a difference seen on every exchange keeps a bounded list of sightings (a proxy running for days)", () => {
    const b = new ProfileBuilder("proxy", "http://t", at);
    for (let i = 0; i < 5_000; i++)
      b.add(unauthorized("invalid_key"), { label: `exchange ${i}`, exchange: `GET / → 401` });
    const [cause] = b.summary().causes;
    expect(cause?.seen).toHaveLength(100);
    expect(cause?.seen[0]).toBe("exchange 0");
    expect(b.profile().entries).toHaveLength(1);
  });

  test("one entry per difference, its first sighting as evidence, every sighting in its cause", () => {
    const b = new ProfileBuilder("conformance", "http://t", at);
    b.add(unauthorized("invalid_key"), { label: "auth.missing-key", check: "auth.missing-key" });
    b.add(unauthorized("invalid_key"), { label: "auth.invalid-key", check: "auth.invalid-key" });
    const profile = b.profile();
    expect(profile).toEqual({
      profileVersion: 1,
      target: "http://t",
      observedAt: at,
      entries: [
        {
          operation: LIST,
          answer: 401,
          difference: "error-field",
          field: "code",
          observed: "invalid_key",
          evidence: { source: "conformance", check: "auth.missing-key", target: "http://t", at },
        },
      ],
    });
    expect(compile(profile).operations).toHaveLength(1);
    expect(b.summary()).toEqual({
      causes: [
        {
          cause: "error.code invalid_key is not the spec's code for 401: the spec's is `unauthorized`",
          seen: ["auth.missing-key", "auth.invalid-key"],
        },
      ],
      leftOut: [],
    });
  });

  test("a place seen with two values is left out, with both sightings", () => {
    const b = new ProfileBuilder("proxy", "http://t", at);
    b.add(unauthorized("invalid_key"), { label: "one", exchange: "GET /x → 401" });
    b.add(unauthorized("expired_key"), { label: "two", exchange: "GET /x → 401" });
    b.add(unauthorized("invalid_key"), { label: "three", exchange: "GET /x → 401" });
    expect(b.profile().entries).toEqual([]);
    expect(b.summary().leftOut).toEqual([
      {
        reason: `${LIST} 401: the target's error.code differs from one answer to the next ("invalid_key" and "expired_key"), which a profile cannot hold`,
        seen: ["one", "two", "three"],
      },
    ]);
  });
});

describe("generated from the document and the model", () => {
  test("server/profile/answer-shapes.generated.ts is current (else: npm run client:generate)", async () => {
    expect(readFileSync(ANSWER_SHAPES_PATH, "utf8") === (await generateAnswerShapes())).toBe(true);
  }, 60_000);

  test("docs/profile.schema.json is the profile model (else: npm run client:generate)", () => {
    expect(readFileSync(PROFILE_SCHEMA_PATH, "utf8") === generateProfileSchema()).toBe(true);
  });
});
