/**
 * The profile's meaning, unit by unit: parsing (each entry told by its own kind's schema), checking against
 * the developer API's answers (an unknown operation, an answer ext never gives, a path the answer does not
 * have, a change no rule makes, two entries that contradict each other: refused, naming the entry), and the
 * compiled plans applied to answers.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { answerChanges, applyPlan } from "../../server/profile/apply";
import { type CompiledProfile, choosePlan, ProfileError } from "../../server/profile/compile";
import { PROFILE_HEADERS } from "../../server/profile/headers";
import { compile } from "../../server/profile/load";
import type { Profile, ProfileEntry } from "../../server/profile/model";
import { parseProfile } from "../../server/profile/parse";

const LIST = "GET /developer/v1/extensions";
const ONE = "GET /developer/v1/extensions/{id}";
const SECRETS = "GET /developer/v1/extensions/{id}/secrets";
const CREATE = "POST /developer/v1/extensions";

const profileOf = (...entries: ProfileEntry[]): Profile => ({ profileVersion: 1, entries });
const refusal = (...entries: ProfileEntry[]) => {
  try {
    compile(profileOf(...entries));
  } catch (e) {
    if (e instanceof ProfileError) return e.message;
    throw e;
  }
  return null;
};

function answer(
  profile: CompiledProfile,
  method: string,
  path: string,
  status: number,
  body: unknown,
  headers: Record<string, string> = { "content-type": "application/json; charset=utf-8" },
) {
  const text = body === null ? null : JSON.stringify(body);
  const plans = profile.plansFor(method, path, status);
  if (!plans) return { status, headers, body };
  const code = (body as { error?: { code?: string } } | null)?.error?.code ?? null;
  const plan = choosePlan(plans, code);
  if (!plan) return { status, headers, body };
  const out = applyPlan(plan, { status, headers: new Headers(headers), body: text });
  return {
    status: out.status,
    headers: Object.fromEntries(out.headers),
    body: out.body === null || out.body === "" ? out.body : JSON.parse(out.body),
  };
}

describe("parsing", () => {
  test("a hand-written profile with every kind of entry parses", () => {
    const text = JSON.stringify({
      $schema: "./profile.schema.json",
      profileVersion: 1,
      entries: [
        { operation: CREATE, answer: 201, difference: "status", observed: 200 },
        { operation: LIST, answer: 200, difference: "field-missing", path: "extensions[].installCount" },
        { operation: SECRETS, answer: 200, difference: "field-renamed", path: "keys", observed: "names" },
        { operation: ONE, answer: 200, difference: "field-added", path: "ownerId", observed: "acc_1" },
        { operation: LIST, answer: 200, difference: "field-type", path: "extensions[].createdAt", observed: "null" },
        { operation: LIST, answer: 401, difference: "error-field", field: "code", observed: "invalid_key" },
        { operation: LIST, answer: 200, difference: "header-missing", header: "X-RateLimit-Limit" },
        { operation: LIST, answer: 401, difference: "header-added", header: "WWW-Authenticate", observed: "Bearer" },
      ],
    });
    expect(parseProfile(text).entries).toHaveLength(8);
  });

  test("each mistake is named with its entry and field", () => {
    const bad = (entries: unknown[], extra: Record<string, unknown> = {}) => {
      try {
        parseProfile(JSON.stringify({ profileVersion: 1, entries, ...extra }));
      } catch (e) {
        return (e as Error).message;
      }
      return null;
    };
    expect(bad([{ operation: LIST, answer: 200, difference: "field-renamed", path: "keys" }])).toBe(
      "entry 1: `observed` is required",
    );
    expect(bad([{ operation: LIST, answer: 200, difference: "field-gone", path: "x" }])).toStartWith(
      "entry 1: difference must be one of status, field-missing",
    );
    expect(bad([{ operation: LIST, answer: 200, difference: "field-missing", path: "a..b" }])).toStartWith(
      "entry 1: path:",
    );
    expect(bad([], { profileVersion: 2 })).toBe("profileVersion 2 is newer than this ext reads (1): update ext");
    expect(bad([], { colour: "blue" })).toContain("unknown field `colour`");
    expect(bad([], { observedAt: "2026-02-31T00:00:00Z" })).toStartWith("observedAt:");
    expect(() => parseProfile("{")).toThrow("not JSON");
    expect(() => parseProfile(`${"[".repeat(200)}${"]".repeat(200)}`)).toThrow("nests deeper");
  });
});

describe("checked against the developer API's answers", () => {
  test("an unknown operation, with the methods its path takes", () => {
    expect(
      refusal({ operation: "PUT /developer/v1/extensions", answer: 200, difference: "status", observed: 201 }),
    ).toBe(
      "entry 1 (PUT /developer/v1/extensions, answer 200, status): no such operation of the developer API; /developer/v1/extensions takes GET, POST, not PUT",
    );
    expect(
      refusal({ operation: "GET /developer/v1/extension", answer: 200, difference: "status", observed: 201 }),
    ).toContain("`ext openapi` lists the developer API's paths");
  });

  test("an answer ext never gives, and a code ext never sends", () => {
    expect(refusal({ operation: CREATE, answer: 200, difference: "status", observed: 201 })).toContain(
      "ext never answers POST /developer/v1/extensions with 200 (it answers 201, 401",
    );
    expect(
      refusal({
        operation: CREATE,
        answer: 422,
        code: "nope",
        difference: "error-field",
        field: "code",
        observed: "x",
      }),
    ).toContain("never carry code nope (they carry limit_exceeded, validation_error)");
  });

  test("a path the answer does not have", () => {
    expect(refusal({ operation: SECRETS, answer: 200, difference: "field-missing", path: "names" })).toContain(
      "the answer has no field names (ext's 200 answer)",
    );
    expect(refusal({ operation: LIST, answer: 200, difference: "field-missing", path: "extensions.id" })).toContain(
      "extensions is an array: write extensions[]",
    );
    expect(refusal({ operation: ONE, answer: 200, difference: "field-missing", path: "name[].x" })).toContain(
      "name is not an array",
    );
    expect(
      refusal({
        operation: "DELETE /developer/v1/extensions/{id}",
        answer: 204,
        difference: "field-missing",
        path: "x",
      }),
    ).toContain("the answer has no body");
    expect(refusal({ operation: ONE, answer: 200, difference: "field-added", path: "name", observed: 1 })).toContain(
      "ext's answer has name already",
    );
    expect(
      refusal({ operation: SECRETS, answer: 200, difference: "field-renamed", path: "keys", observed: "keys" }),
    ).toContain("the new name is the same");
  });

  test("a field is an own field of the answer: JavaScript's built-in object members are none", () => {
    const STATUS_401 = "GET /developer/v1/extensions, answer 401";
    expect(
      refusal({ operation: LIST, answer: 401, difference: "field-type", path: "error.toString", observed: "string" }),
    ).toBe(
      `entry 1 (${STATUS_401}, field-type error.toString): the answer has no field error.toString (ext's 401 answer)`,
    );
    expect(
      refusal({
        operation: LIST,
        answer: 200,
        difference: "field-type",
        path: "extensions[].constructor",
        observed: "null",
      }),
    ).toBe(
      "entry 1 (GET /developer/v1/extensions, answer 200, field-type extensions[].constructor): the answer has no field extensions[].constructor (ext's 200 answer)",
    );
    expect(refusal({ operation: LIST, answer: 200, difference: "field-missing", path: "__proto__" })).toBe(
      "entry 1 (GET /developer/v1/extensions, answer 200, field-missing __proto__): the answer has no field __proto__ (ext's 200 answer)",
    );
    expect(
      refusal({ operation: SECRETS, answer: 200, difference: "field-renamed", path: "constructor", observed: "leak" }),
    ).toBe(
      "entry 1 (GET /developer/v1/extensions/{id}/secrets, answer 200, field-renamed constructor): the answer has no field constructor (ext's 200 answer)",
    );
    expect(refusal({ operation: LIST, answer: 401, difference: "field-missing", path: "error.__proto__.x" })).toContain(
      "the answer has no field __proto__ in error",
    );
    // A name the answer has not got is free to take, whatever Object.prototype holds.
    expect(
      refusal({ operation: SECRETS, answer: 200, difference: "field-renamed", path: "keys", observed: "constructor" }),
    ).toBeNull();
    expect(
      refusal({ operation: ONE, answer: 200, difference: "field-added", path: "toString", observed: 1 }),
    ).toBeNull();
    // __proto__ names no field a JavaScript client could read back: neither added nor taken by a rename.
    expect(
      refusal({ operation: ONE, answer: 200, difference: "field-added", path: "__proto__", observed: {} }),
    ).toContain("__proto__ cannot name a field");
    expect(
      refusal({ operation: SECRETS, answer: 200, difference: "field-renamed", path: "keys", observed: "__proto__" }),
    ).toContain("__proto__ cannot name a field");
  });

  test("changes no rule can make: a success for a refusal, a type ext's values cannot become", () => {
    expect(refusal({ operation: CREATE, answer: 201, difference: "status", observed: 422 })).toContain(
      "that is another rule",
    );
    expect(
      refusal({ operation: LIST, answer: 200, difference: "field-type", path: "extensions[].id", observed: "integer" }),
    ).toContain("no rule turns ext's string into integer");
    expect(
      refusal({
        operation: LIST,
        answer: 200,
        difference: "field-type",
        path: "extensions[].installCount",
        observed: "integer",
      }),
    ).toContain("ext sends extensions[].installCount as integer already");
    expect(
      refusal({ operation: LIST, answer: 200, difference: "error-field", field: "code", observed: "x" }),
    ).toContain("error-field changes error answers only");
    expect(
      refusal({ operation: LIST, answer: 401, difference: "header-missing", header: "x-ratelimit-limit" }),
    ).toContain("ext does not send x-ratelimit-limit with its 401 answer");
    expect(
      refusal({ operation: LIST, answer: 200, difference: "header-added", header: "Content-Length", observed: "1" }),
    ).toContain("framing");
  });

  test("headers: only those a platform's API plausibly differs in, with plain values; every answer stays JSON", () => {
    const added = (header: string, observed: string, operation = LIST, answer: ProfileEntry["answer"] = 401) =>
      refusal({ operation, answer, difference: "header-added", header, observed });
    // The report's attack: a 401 made into a page of the target's script.
    expect(added("Content-Type", "text/html")).toBe(
      "entry 1 (GET /developer/v1/extensions, answer 401, header-added Content-Type): Content-Type text/html is not a JSON media type: a profile keeps every answer JSON (application/json, or application/…+json)",
    );
    for (const type of [
      "text/html; charset=utf-8",
      "application/javascript",
      "image/svg+xml",
      "application/json, text/html",
    ])
      expect(added("content-type", type)).toContain("is not a JSON media type");
    for (const type of ["application/json", "application/problem+json", "application/json; charset=UTF-8"])
      expect(added("Content-Type", type)).toBeNull();
    expect(refusal({ operation: LIST, answer: 200, difference: "header-missing", header: "Content-Type" })).toBe(
      "entry 1 (GET /developer/v1/extensions, answer 200, header-missing Content-Type): an answer's Content-Type stays: without it a client or a browser guesses what the body is",
    );
    // Headers that change how a browser, a proxy or the connection treats the answer.
    for (const h of [
      "Set-Cookie",
      "Content-Security-Policy",
      "X-Content-Type-Options",
      "X-Frame-Options",
      "Location",
      "Access-Control-Allow-Origin",
      "Link",
      "Refresh",
      "Content-Disposition",
      "Cache-Control",
      "X-Forwarded-For",
      "X-Accel-Redirect",
    ])
      expect(added(h, "x")).toContain(`${h} is not a header a profile may change`);
    for (const h of ["Content-Encoding", "Transfer-Encoding", "Connection", "Keep-Alive", "Upgrade", "Content-Length"])
      expect(added(h, "x")).toContain(`${h} is the server's own framing, not the answer's`);
    // What a platform plausibly differs in.
    expect(added("X-Request-Id", "req_1")).toBeNull();
    expect(added("X-RateLimit-Used", "3", LIST, 200)).toBeNull();
    expect(added("RateLimit-Policy", "120;w=60", LIST, 200)).toBeNull();
    expect(added("Deprecation", "@1767225600", LIST, 200)).toBeNull();
    expect(added("WWW-Authenticate", 'Bearer realm="platform", error="invalid_token"')).toBeNull();
    expect(added("WWW-Authenticate", 'Basic realm="platform"')).toContain(
      "WWW-Authenticate: the scheme is Bearer (the developer API's keys), not Basic",
    );
    expect(added("Retry-After", "60", "POST /developer/v1/extensions", 429)).toBeNull();
    expect(added("Retry-After", "Wed, 21 Oct 2026 07:28:00 GMT", "POST /developer/v1/extensions", 429)).toContain(
      "Retry-After: a number of seconds",
    );
    expect(
      refusal({ operation: LIST, answer: 200, difference: "header-missing", header: "X-RateLimit-Limit" }),
    ).toBeNull();
  });

  test("docs/profiles.md names every header a profile may add", () => {
    const docs = readFileSync(join(import.meta.dir, "../../docs/profiles.md"), "utf8").toLowerCase();
    for (const h of PROFILE_HEADERS) expect(docs).toContain(`\`${h}\``);
  });

  test("header values are printable ASCII of at most 256 characters", () => {
    const bad = (entry: Record<string, unknown>) => {
      try {
        parseProfile(JSON.stringify({ profileVersion: 1, entries: [entry] }));
      } catch (e) {
        return (e as Error).message;
      }
      return null;
    };
    const header = { operation: LIST, answer: 200, difference: "header-added", header: "X-Request-Id" };
    expect(bad({ ...header, observed: "a\tb" })).toStartWith("entry 1: observed:");
    expect(bad({ ...header, observed: "é" })).toStartWith("entry 1: observed:");
    expect(bad({ ...header, observed: "a".repeat(257) })).toStartWith("entry 1: observed:");
    expect(bad({ ...header, observed: "a".repeat(256) })).toBeNull();
  });

  test("two entries that cannot both hold", () => {
    expect(
      refusal(
        { operation: SECRETS, answer: 200, difference: "field-renamed", path: "keys", observed: "names" },
        { operation: SECRETS, answer: 200, difference: "field-missing", path: "keys" },
      ),
    ).toContain("entries 1 and 2 both change keys of the 200 answer");
    expect(
      refusal(
        { operation: CREATE, answer: 201, difference: "status", observed: 200 },
        { operation: CREATE, answer: "success", difference: "status", observed: 202 },
      ),
    ).toContain("entries 1 and 2 both change the status");
    expect(
      refusal(
        { operation: LIST, answer: 200, difference: "field-missing", path: "extensions" },
        { operation: LIST, answer: 200, difference: "field-missing", path: "extensions[].id" },
      ),
    ).toContain("entries 1 and 2");
    expect(
      refusal(
        { operation: ONE, answer: 200, difference: "field-renamed", path: "name", observed: "title" },
        { operation: ONE, answer: 200, difference: "field-added", path: "title", observed: "x" },
      ),
    ).toContain("title would name two fields");
    // A type and a name together are one field sent otherwise: allowed.
    expect(
      refusal(
        {
          operation: LIST,
          answer: 200,
          difference: "field-renamed",
          path: "extensions[].installCount",
          observed: "installs",
        },
        {
          operation: LIST,
          answer: 200,
          difference: "field-type",
          path: "extensions[].installCount",
          observed: "string",
        },
      ),
    ).toBeNull();
  });
});

describe("applied to ext's answers", () => {
  const list = {
    extensions: [
      { id: "ext_1", name: "A", installCount: 3, currentVersionId: null },
      { id: "ext_2", name: "B", installCount: 0, currentVersionId: "ver_1" },
    ],
  };

  test("renamed, missing, added and typed fields, in arrays too; the values stay ext's", () => {
    const profile = compile(
      profileOf(
        {
          operation: LIST,
          answer: 200,
          difference: "field-renamed",
          path: "extensions[].installCount",
          observed: "installs",
        },
        {
          operation: LIST,
          answer: 200,
          difference: "field-type",
          path: "extensions[].installCount",
          observed: "string",
        },
        { operation: LIST, answer: 200, difference: "field-missing", path: "extensions[].currentVersionId" },
        {
          operation: LIST,
          answer: 200,
          difference: "field-added",
          path: "extensions[].owner",
          observed: { id: "acc" },
        },
        { operation: LIST, answer: 200, difference: "field-added", path: "page", observed: 1 },
      ),
    );
    const out = answer(profile, "GET", "/developer/v1/extensions", 200, list);
    expect(out.body).toEqual({
      extensions: [
        { id: "ext_1", name: "A", installs: "3", owner: { id: "acc" } },
        { id: "ext_2", name: "B", installs: "0", owner: { id: "acc" } },
      ],
      page: 1,
    });
    expect(out.status).toBe(200);
  });

  test("a status and an error envelope: error.status follows the status unless an entry says otherwise", () => {
    const patch = "PATCH /developer/v1/extensions/{id}";
    const profile = compile(
      profileOf(
        { operation: patch, answer: 422, difference: "status", observed: 400 },
        { operation: patch, answer: 422, difference: "error-field", field: "code", observed: "bad_request" },
        { operation: LIST, answer: 401, difference: "field-missing", path: "error.status" },
        { operation: LIST, answer: 401, difference: "header-added", header: "WWW-Authenticate", observed: "Bearer" },
      ),
    );
    const error = { error: { code: "validation_error", message: "m", status: 422 } };
    expect(answer(profile, "PATCH", "/developer/v1/extensions/ext_1", 422, error)).toMatchObject({
      status: 400,
      body: { error: { code: "bad_request", message: "m", status: 400 } },
    });
    const unauthorized = { error: { code: "unauthorized", message: "m", status: 401 } };
    const out = answer(profile, "GET", "/developer/v1/extensions", 401, unauthorized, {
      "content-type": "application/json",
      "www-authenticate": 'Bearer realm="developer-api"',
    });
    expect(out.body).toEqual({ error: { code: "unauthorized", message: "m" } });
    expect(out.headers["www-authenticate"]).toBe("Bearer");
    // Another operation, another status: unchanged.
    expect(profile.plansFor("GET", "/developer/v1/extensions/ext_1", 401)).toBeNull();
    expect(profile.plansFor("GET", "/developer/v1/extensions", 200)).toBeNull();
  });

  test("a code narrows an entry to those error answers", () => {
    const del = "DELETE /developer/v1/extensions/{id}/secrets/{key}";
    const profile = compile(
      profileOf({ operation: del, answer: 404, code: "secret_not_found", difference: "status", observed: 410 }),
    );
    const secret = { error: { code: "secret_not_found", message: "m", status: 404 } };
    const extension = { error: { code: "extension_not_found", message: "m", status: 404 } };
    expect(answer(profile, "DELETE", "/developer/v1/extensions/e/secrets/K", 404, secret).status).toBe(410);
    expect(answer(profile, "DELETE", "/developer/v1/extensions/e/secrets/K", 404, extension).status).toBe(404);
  });

  test("204 and 200: the status moves, a 204 never carries a body", () => {
    const put = "PUT /developer/v1/extensions/{id}/secrets/{key}";
    const to200 = compile(profileOf({ operation: put, answer: 204, difference: "status", observed: 200 }));
    expect(answer(to200, "PUT", "/developer/v1/extensions/e/secrets/K", 204, null, {})).toEqual({
      status: 200,
      headers: {},
      body: "",
    });
    const to204 = compile(profileOf({ operation: CREATE, answer: 201, difference: "status", observed: 204 }));
    const out = answer(to204, "POST", "/developer/v1/extensions", 201, { extension: { id: "e" } });
    expect(out).toMatchObject({ status: 204, body: null });
  });

  test("header-missing drops ext's header", () => {
    const profile = compile(
      profileOf({ operation: LIST, answer: "success", difference: "header-missing", header: "X-RateLimit-Limit" }),
    );
    const out = answer(profile, "GET", "/developer/v1/extensions", 200, list, {
      "content-type": "application/json",
      "x-ratelimit-limit": "120",
    });
    expect(out.headers).toEqual({ "content-type": "application/json" });
  });
});

describe("answerChanges: what the server's answer step asks of the profile for each answer", () => {
  const del = "DELETE /developer/v1/extensions/{id}/secrets/{key}";
  const profile = compile(
    profileOf(
      { operation: del, answer: 404, code: "secret_not_found", difference: "field-missing", path: "error.status" },
      {
        operation: "PUT /developer/v1/extensions/{id}/secrets/{key}",
        answer: 204,
        difference: "status",
        observed: 200,
      },
      { operation: LIST, answer: 200, difference: "header-added", header: "X-Request-Id", observed: "yes" },
    ),
  );
  const changes = answerChanges(profile);
  /** The answer as the server would send it for `method path`: changed where the profile says, else as made. */
  const answering =
    (status: number, body: string | null, headers: Record<string, string> = {}) =>
    ({ method, path }: { method: string; path: string }) => {
      const made = { status, headers: new Headers(headers), body };
      const sent = changes(method, path, status)?.(made) ?? made;
      return new Response(sent.body, { status: sent.status, headers: sent.headers });
    };
  const request = (method: string, path: string) => ({ method, path });
  const json = (v: unknown) => JSON.stringify(v);

  test("an entry narrowed to one code applies to that code only (the code read from the body)", async () => {
    const secret = json({ error: { code: "secret_not_found", message: "m", status: 404 } });
    const extension = json({ error: { code: "extension_not_found", message: "m", status: 404 } });
    const path = "/developer/v1/extensions/e/secrets/K";
    const changed = await answering(404, secret, { "content-length": String(secret.length) })(request("DELETE", path));
    expect(await changed.json()).toEqual({ error: { code: "secret_not_found", message: "m" } });
    expect(changed.headers.get("content-length")).not.toBe(String(secret.length));
    const kept = await answering(404, extension)(request("DELETE", path));
    expect(await kept.text()).toBe(extension);
  });

  test("a 204 answered as 200 has an empty body; another method, path or status passes untouched", async () => {
    const put = await answering(204, null)(request("PUT", "/developer/v1/extensions/e/secrets/K"));
    expect([put.status, await put.text()]).toEqual([200, ""]);
    const head = await answering(200, "x")(request("HEAD", "/developer/v1/extensions"));
    expect(head.headers.get("x-request-id")).toBeNull();
    const other = await answering(200, "{}")(request("GET", "/developer/v1/extensions/e"));
    expect(other.headers.get("x-request-id")).toBeNull();
    const list = await answering(200, "not json", { "content-type": "text/plain" })(
      request("GET", "/developer/v1/extensions"),
    );
    expect([list.headers.get("x-request-id"), await list.text()]).toEqual(["yes", "not json"]);
  });
});
