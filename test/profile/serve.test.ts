/**
 * An emulator with a profile: the profiled operations answer in the platform's shape (route answers and error
 * answers alike), everything else and every rule stays the spec's; the control plane shows the profile; an
 * export keeps it; a profile that does not load refuses the start naming its entry. `ext serve --profile FILE
 * --explain` lists what changes.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, chownSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exportState } from "../../server/exports/document";
import type { Profile } from "../../server/profile/model";
import { demoFixture } from "../../server/seed/demo";
import { type Emulator, StartEmulatorError, startEmulator } from "../../tools/helper/index";
import { runCli } from "../helpers/run-cli";

export const PROFILE: Profile = {
  profileVersion: 1,
  target: "https://platform.example",
  observedAt: "2026-11-22T10:00:00.000Z",
  entries: [
    {
      operation: "GET /developer/v1/extensions/{id}/secrets",
      answer: 200,
      difference: "field-renamed",
      path: "keys",
      observed: "names",
    },
    { operation: "POST /developer/v1/extensions", answer: 201, difference: "status", observed: 200 },
    {
      operation: "GET /developer/v1/extensions",
      answer: 401,
      difference: "error-field",
      field: "code",
      observed: "invalid_key",
    },
    { operation: "GET /developer/v1/extensions/{id}", answer: 404, difference: "status", observed: 403 },
    {
      operation: "GET /developer/v1/extensions",
      answer: 200,
      difference: "field-type",
      path: "extensions[].installCount",
      observed: "string",
      evidence: {
        source: "conformance",
        check: "extensions.list-created",
        target: "https://platform.example",
        at: "2026-11-22T10:00:00.000Z",
      },
    },
    {
      operation: "GET /developer/v1/extensions",
      answer: 200,
      difference: "header-missing",
      header: "X-RateLimit-Limit",
    },
  ],
};

const started: Emulator[] = [];
afterAll(async () => {
  for (const e of started) await e.stop();
});
async function start(options: Parameters<typeof startEmulator>[0]) {
  const e = await startEmulator(options);
  started.push(e);
  return e;
}

const call = async (e: Emulator, method: string, path: string, init: { key?: string | null; json?: unknown } = {}) => {
  const key = init.key === undefined ? e.apiKey : init.key;
  const res = await fetch(e.baseUrl + path, {
    method,
    headers: {
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(init.json ? { "content-type": "application/json" } : {}),
    },
    ...(init.json ? { body: JSON.stringify(init.json) } : {}),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
};

describe("answers with a profile", () => {
  test("the profiled answers take the platform's shape; the rules and the state stay the spec's", async () => {
    const e = await start({ profile: PROFILE, rateLimits: true });
    const created = await call(e, "POST", "/extensions", { json: { name: "Profiled" } });
    expect(created.status).toBe(200);
    const id = created.body.extension.id as string;
    // The create happened as the spec says: the extension exists, a draft.
    expect((await call(e, "GET", `/extensions/${id}`)).body).toMatchObject({ id, status: "draft" });
    await call(e, "PUT", `/extensions/${id}/secrets/API_TOKEN`, { json: { value: "s3cret-value" } });
    expect((await call(e, "GET", `/extensions/${id}/secrets`)).body).toEqual({ names: ["API_TOKEN"] });
    const list = await call(e, "GET", "/extensions");
    expect(list.body.extensions[0].installCount).toBe("0");
    expect(list.headers.get("x-ratelimit-limit")).toBeNull();
    expect(list.headers.get("x-ratelimit-remaining")).not.toBeNull();
    // Error answers too: the gate's 401 and a route's 404.
    expect((await call(e, "GET", "/extensions", { key: null })).body.error).toMatchObject({
      code: "invalid_key",
      status: 401,
    });
    expect(await call(e, "GET", "/extensions/ext_00000000000000000000000000")).toMatchObject({
      status: 403,
      body: { error: { code: "extension_not_found", status: 403 } },
    });
    // Operations and answers the profile does not name are the spec's.
    expect((await call(e, "GET", `/extensions/${id}/installs`)).body).toEqual({ total: 0, active: 0, byVersion: {} });
    expect((await call(e, "GET", "/extensions/ext_00000000000000000000000000/secrets")).status).toBe(404);
    expect((await call(e, "POST", "/extensions", { json: { name: 42 } })).status).toBe(422);
  });

  test("the control plane shows the active profile, in words naming both sides", async () => {
    const e = await start({ profile: PROFILE });
    const state = await e.profile();
    expect(state).toMatchObject({ source: "startEmulator's profile", target: "https://platform.example" });
    expect(state!.entries[0]).toEqual({
      operation: "GET /developer/v1/extensions/{id}/secrets",
      answer: "200",
      difference: "field-renamed",
      change: "keys is sent as names: ext's name for it is keys",
      evidence: "written by hand",
    });
    expect(state!.entries[4]!.evidence).toBe(
      "conformance check extensions.list-created, https://platform.example, 2026-11-22T10:00:00.000Z",
    );
    const plain = await start({});
    expect(await plain.profile()).toBeNull();
  });

  test("an export keeps the profile; an emulator started from it answers the same way", async () => {
    const e = await start({ profile: PROFILE });
    const { document } = exportState(e.runtime);
    expect(document.profile).toEqual(PROFILE);
    const again = await start({ fixture: { ...document, accounts: document.accounts } });
    expect(again.runtime.profile?.source).toBe("the seed's profile");
    // The demo's full key (an export lists keys made in the same millisecond in id order, not the fixture's).
    expect((await call(again, "POST", "/extensions", { key: e.apiKey, json: { name: "Again" } })).status).toBe(200);
  });

  test("loaded into a running emulator, a fixture's profile changes nothing: a profile is chosen at start", async () => {
    const e = await start({});
    const { data, error } = await e.admin.POST("/_emulator/seed", {
      body: { accounts: [{ id: "acc_more", name: "More" }], profile: PROFILE },
    });
    expect(error).toBeUndefined();
    expect(data?.accountsCreated).toBe(1);
    expect(await e.profile()).toBeNull();
    expect((await call(e, "POST", "/extensions", { json: { name: "Plain" } })).status).toBe(201);
  });

  test("the request log shows the answers as the client received them: the profile's status and code", async () => {
    const e = await start({ profile: PROFILE });
    expect((await call(e, "POST", "/extensions", { json: { name: "Logged" } })).status).toBe(200);
    expect((await call(e, "GET", "/extensions", { key: "ext_wrong_0123456789abcdefghijklmnopqr" })).status).toBe(401);
    const { data } = await e.admin.GET("/_emulator/requests");
    const logged = (data?.requests ?? []).map((r) => [r.method, r.path, r.status, r.errorCode]);
    expect(logged).toContainEqual(["POST", "/developer/v1/extensions", 200, null]);
    expect(logged).toContainEqual(["GET", "/developer/v1/extensions", 401, "invalid_key"]);
  });

  test("a profile that does not load refuses the start, naming the entry and why", async () => {
    const bad = { ...PROFILE, entries: [PROFILE.entries[0]!, { ...PROFILE.entries[0]!, path: "names" }] };
    expect(start({ profile: bad })).rejects.toThrow(
      new StartEmulatorError(
        "profile: entry 2 (GET /developer/v1/extensions/{id}/secrets, answer 200, field-renamed names): the answer has no field names (ext's 200 answer)",
      ),
    );
    expect(start({ profile: "/nonexistent/profile.json" })).rejects.toThrow(
      "profile /nonexistent/profile.json: no such file",
    );
  });
});

describe("ext serve --profile", () => {
  const dir = mkdtempSync(join(tmpdir(), "ext-profile-"));
  const file = join(dir, "profile.json");
  writeFileSync(file, JSON.stringify(PROFILE));
  const run = (args: string[], env: Record<string, string> = {}) => runCli(args, { env });

  test("--explain lists what changes, and where each was seen, and exits", async () => {
    const r = await run(["serve", "--memory", "--profile", file, "--explain"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toStartWith(
      `profile ${file}: 6 entries, observed on https://platform.example at 2026-11-22T10:00:00.000Z\n`,
    );
    expect(r.stdout).toContain(
      "  3. GET /developer/v1/extensions 401: error.code invalid_key is not the spec's code for 401: the spec's is `unauthorized`\n     seen: written by hand\n",
    );
    expect(r.stdout).toContain(
      "  5. GET /developer/v1/extensions 200: extensions[].installCount is a string: ext's is an integer\n",
    );
  });

  test("ext exec: a seed that brings a profile is announced, naming the file; --profile replaces it", async () => {
    const seed = join(dir, "shared-fixture.json");
    writeFileSync(seed, JSON.stringify({ ...demoFixture(), profile: PROFILE }));
    const r = await run(["exec", "--seed", seed, "--", "sh", "-c", "echo ran"]);
    expect([r.code, r.stdout]).toEqual([0, "ran\n"]);
    expect(r.stderr).toBe(
      `ext exec: warning: the seed ${seed} brings a platform profile: the developer API's answers change as that file says (6 differences), not as the spec does; --profile FILE replaces it\n`,
    );
    const replaced = await run(["exec", "--seed", seed, "--profile", file, "--", "sh", "-c", "echo ran"]);
    expect([replaced.code, replaced.stderr]).toEqual([0, ""]);
    const plain = await run(["exec", "--", "sh", "-c", "echo ran"]);
    expect([plain.code, plain.stderr]).toEqual([0, ""]);
  });

  test("a profile every user may write, or another user's, is refused before it is read: exit 2", async () => {
    const open = join(dir, "writable-by-all.json");
    writeFileSync(open, JSON.stringify(PROFILE));
    chmodSync(open, 0o666);
    const r = await run(["serve", "--memory", "--port", "0", "--profile", open]);
    expect([r.code, r.stderr]).toEqual([
      2,
      `error: --profile ${open}: ${open} can be written by every user: whoever can change a profile chooses how the emulator answers. Use a copy of your own that others cannot write (chmod o-w)\n`,
    ]);
    chmodSync(open, 0o644);
    expect((await run(["serve", "--memory", "--profile", open, "--explain"])).code).toBe(0);
    // Another user's file (root can give it away; run as root in CI): refused, however its mode.
    if (process.getuid?.() !== 0) return;
    chownSync(open, 65534, 65534);
    const theirs = await run(["serve", "--memory", "--profile", open, "--explain"]);
    expect([theirs.code, theirs.stderr]).toEqual([
      2,
      `error: --profile ${open}: ${open} is owned by another user (uid 65534): whoever can change a profile chooses how the emulator answers. Use a copy of your own that others cannot write (chmod o-w)\n`,
    ]);
  });

  test("a profile that does not load: one line naming the setting, the entry and why; exit 2", async () => {
    const bad = join(dir, "bad.json");
    writeFileSync(
      bad,
      JSON.stringify({
        profileVersion: 1,
        entries: [{ operation: "GET /developer/v1/secrets", answer: 200, difference: "status", observed: 201 }],
      }),
    );
    const r = await run(["serve", "--memory", "--port", "0"], { EXT_PROFILE: bad });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `error: EXT_PROFILE=${bad}: entry 1 (GET /developer/v1/secrets, answer 200, status): no such operation of the developer API; \`ext openapi\` lists the developer API's paths, written with {id} and {key}\n`,
    );
    const explain = await run(["serve", "--explain"]);
    expect(explain).toMatchObject({
      code: 2,
      stderr: "error: --explain lists what a profile changes: give --profile FILE (or EXT_PROFILE)\n",
    });
  });
});
