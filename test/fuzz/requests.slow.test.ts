/**
 * Property-based request fuzzing of every developer-API and control-plane route the app registers, over a
 * real socket. Requests come from each route's own schemas (test/fuzz/schema-arbitrary.ts) plus hostile
 * values. Invariants: never a 5xx; every non-2xx is the error envelope with its own status; a 204 is
 * empty; the server keeps answering /healthz; the data stays consistent (no version row without its
 * bundle file or the reverse, no temp file, SQLite's integrity and foreign-key checks clean).
 *
 * `npm test` runs a fixed seed and a few runs per route; `npm run fuzz` (scripts/fuzz.ts) runs many more
 * with a printed seed. Replay a failure with EXT_FUZZ_SEED=<seed> (and EXT_FUZZ_PATH=<path> from the report).
 */

import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { isDeveloperApiPath } from "../../server/http/paths";
import { everyRoute } from "../../server/start/app";
import { bundleDir, uploadVersion } from "../helpers/bundles";
import {
  assertNoSecretValue,
  baseFixture,
  DEMO_KEY,
  OTHER_KEY,
  READ_KEY,
  rememberSecretValue,
  startTestEmulator,
  stopTestEmulator,
  type TestEmulator,
} from "../helpers/emulator";
import { OpenApiContract } from "../helpers/openapi-contract";
import { type FuzzRequest, type FuzzRoute, type Pools, requestArb } from "./requests";
import { isHostileConstant } from "./schema-arbitrary";

// Test files may read the environment (the rule is for server/ and tools/): this is how `npm run fuzz` steers it.
const SEED = Number(process.env.EXT_FUZZ_SEED ?? 0x12b);
const RUNS = Number(process.env.EXT_FUZZ_RUNS ?? 20);
const PATH = process.env.EXT_FUZZ_PATH || undefined;
const ADMIN = "adm_fuzz_token_0123456789abcdefghijklmnopq";
/** Generous for a loaded machine; a request left unanswered this long is a hung server, and fails. */
const ANSWER_WITHIN_MS = 15_000;

let emu: TestEmulator;
const bundles = bundleDir();
let routes: FuzzRoute[] = [];
let bundle: string;
let contract: OpenApiContract;

/**
 * Back to the start-up fixture, with one submitted version, before each route is fuzzed: a DELETE or a
 * reset fuzzed earlier must not leave the next route nothing real to reach. The pools give the real ids.
 */
async function freshWorld(): Promise<Pools> {
  await fetch(`${emu.adminUrl}/reset`, { method: "POST", headers: { authorization: `Bearer ${ADMIN}` } });
  const submitted = await uploadVersion(emu, "ext_fuzz_b", { version: "1.0.0", bundle });
  if (!submitted.data)
    throw new Error(`setup upload failed: ${submitted.response.status} ${JSON.stringify(submitted.error)}`);
  return {
    params: {
      id: [...EXTENSIONS, "acc_test", "ext_missing"],
      "accounts/:id": ["acc_test", "acc_other", "acc_missing"],
      "extensions/:id": [...EXTENSIONS, "ext_missing"],
      accountId: ["acc_test", "acc_other", "acc_missing"],
      versionId: [submitted.data.version.id, "ver_missing"],
      key: ["API_TOKEN", "_under", "lower_case"],
      keyId: ["key_missing"],
      memberId: ["mem_missing"],
    },
    keys: { valid: DEMO_KEY, readOnly: READ_KEY, otherAccount: OTHER_KEY, admin: ADMIN },
    bundle: new Uint8Array(readFileSync(bundle)),
  };
}

const EXTENSIONS = ["ext_fuzz", "ext_fuzz_b", "ext_fuzz_c", "ext_fuzz_d"];

beforeAll(async () => {
  const fixture = baseFixture();
  fixture.accounts[0]!.extensions = EXTENSIONS.map((id) => ({ id, name: `Fuzz ${id}` }));
  emu = await startTestEmulator({ fixture, config: { adminToken: ADMIN } });
  routes = (await everyRoute(emu.runtime)).routes
    .filter((r) => isDeveloperApiPath(r.path) || r.path.startsWith("/_emulator"))
    .map((r) => {
      const hooks = (r.hooks ?? {}) as Record<string, any>;
      return {
        method: r.method,
        path: r.path,
        params: hooks.params,
        query: hooks.query,
        body: hooks.body,
        multipart: hooks.detail?.requestBody?.content?.["multipart/form-data"] !== undefined,
      };
    });
  bundle = await bundles.make();
  contract = await OpenApiContract.create(await (await fetch(`${emu.url}/openapi.json`)).json());
  if (process.env.EXT_FUZZ_SEED) console.log(`fuzz: seed ${SEED}, ${RUNS} runs per route`);
});
afterAll(async () => {
  if (process.env.EXT_FUZZ_SEED) {
    for (const [route, byStatus] of seen)
      console.log(
        `  ${route}: ${[...byStatus]
          .sort(([a], [b]) => a - b)
          .map(([status, n]) => `${status}×${n}`)
          .join(" ")}`,
      );
  }
  await stopTestEmulator(emu);
  bundles.cleanup();
});

/** Answers by route and status: `npm run fuzz` prints them, to show how far the requests got. */
const seen = new Map<string, Map<number, number>>();

async function send(route: FuzzRoute, req: FuzzRequest): Promise<{ status: number; text: string; headers: Headers }> {
  // A secret value the fuzzer writes joins the suite's watch list: no later answer may carry it.
  // Only values no other request could make the server echo (an id in a 404, a field name in a 422): not
  // a shared hostile constant, not a run of one or two characters.
  if (req.body && req.method === "PUT") {
    try {
      const json = JSON.parse(new TextDecoder().decode(req.body));
      const value = json?.value;
      if (typeof value === "string" && value.length >= 12 && new Set(value).size >= 6 && !isHostileConstant(value))
        rememberSecretValue(req.method, req.url.split("?")[0]!, json);
    } catch {
      // not JSON: nothing was stored
    }
  }
  const res = await fetch(emu.url + req.url, {
    method: req.method,
    headers: req.headers,
    body: req.body,
    redirect: "manual",
    signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
  });
  // A stream (server-sent events) never ends by itself: its status and headers are the answer.
  if (res.ok && /^text\/event-stream/i.test(res.headers.get("content-type") ?? "")) {
    await res.body?.cancel();
    return { status: res.status, text: "", headers: res.headers };
  }
  const byStatus = seen.get(`${route.method} ${route.path}`) ?? new Map<number, number>();
  seen.set(`${route.method} ${route.path}`, byStatus.set(res.status, (byStatus.get(res.status) ?? 0) + 1));
  // An export is a tar, not JSON; it holds secret values only when the request asked for them in plain text.
  if (res.ok && /^application\/x-tar/i.test(res.headers.get("content-type") ?? "")) {
    const archive = Buffer.from(await res.arrayBuffer()).toString("latin1");
    if (!/includeSecretValues=(true|1)/i.test(req.url))
      assertNoSecretValue(`${req.method} ${req.url}`, archive, res.headers);
    return { status: res.status, text: "", headers: res.headers };
  }
  const text = await res.text();
  assertNoSecretValue(`${req.method} ${req.url}`, text, res.headers);
  return { status: res.status, text, headers: res.headers };
}

function describeRequest(req: FuzzRequest): string {
  return `${req.method} ${req.url.slice(0, 300)} headers=${JSON.stringify(req.headers).slice(0, 300)} body=${req.bodyKind.slice(0, 300)}`;
}

function findUnsafeNumber(value: unknown): string | null {
  if (typeof value === "number") return Number.isInteger(value) && !Number.isSafeInteger(value) ? String(value) : null;
  if (value && typeof value === "object") {
    for (const v of Object.values(value)) {
      const found = findUnsafeNumber(v);
      if (found !== null) return found;
    }
  }
  return null;
}

/** The invariants every answer keeps; throws with the request and the answer otherwise. */
function checkAnswer(req: FuzzRequest, res: { status: number; text: string; headers: Headers }) {
  const fail = (why: string) => {
    throw new Error(`${why}\n  request: ${describeRequest(req)}\n  answer: ${res.status} ${res.text.slice(0, 500)}`);
  };
  if (res.status >= 500) fail("a 5xx");
  if (res.status === 204 && res.text !== "") fail("a 204 with a body");
  // Bun answers a request line or headers past its size limit itself, without the envelope
  // (docs/behaviour.md, Errors): a 10 KB id with a 10 KB query string gets there.
  if (res.status === 431 && res.text === "") return;
  if (res.status < 300 && res.text !== "" && !res.text.startsWith("{"))
    fail("a success answer that is not a JSON object");
  if (res.status < 300 && res.text !== "") {
    // A number the API hands back must survive a round trip: an integer past 2^53 (a limit of 1e300) does not.
    const unsafe = findUnsafeNumber(JSON.parse(res.text));
    if (unsafe !== null) fail(`a success answer holding ${unsafe}, which is not a safe integer`);
  }
  if (res.status >= 400) {
    let body: any;
    try {
      body = JSON.parse(res.text);
    } catch {
      fail("an error answer that is not JSON");
    }
    const e = body?.error;
    if (!e || typeof e.code !== "string" || typeof e.message !== "string" || e.status !== res.status)
      fail("an error answer without the envelope");
    if (Object.keys(body).length !== 1) fail("an error envelope with extra top-level fields");
  }
  // What the operation's document says it answers: its statuses, each error's code among that status's codes, the
  // success's body and headers. The path as sent (dot segments resolved); one that names no operation (an empty
  // segment, `..`) is the router's 404 or 405.
  const op = contract.find(req.method, new URL(req.url, emu.url).pathname);
  if (op) {
    const json = /^application\/json/i.test(res.headers.get("content-type") ?? "") && res.text !== "";
    const problems = contract.responseProblems(
      op,
      res.status,
      res.headers,
      json ? JSON.parse(res.text) : undefined,
      res.text,
    );
    if (problems.length > 0) fail(`an answer its document does not describe: ${problems.join("; ")}`);
  }
}

/** The data directory agrees with the database, and SQLite with itself. */
function checkConsistency() {
  const db = new Database(join(emu.dataDir, "ext.sqlite"), { readonly: true });
  try {
    expect(db.query<{ integrity_check: string }, []>("PRAGMA integrity_check").get()!.integrity_check).toBe("ok");
    expect(db.query("PRAGMA foreign_key_check").all()).toEqual([]);
    const blobIds = db
      .query<{ id: string }, []>("SELECT bundle_blob_id AS id FROM versions")
      .all()
      .map((r) => r.id);
    expect(readdirSync(emu.runtime.blobs.objectsDir).sort()).toEqual([...blobIds].sort());
  } finally {
    db.close();
  }
  expect(readdirSync(emu.runtime.blobs.tmpDir)).toEqual([]);
}

describe("request fuzzing (every registered developer-API and control-plane route)", () => {
  test("the route table is read from the app, control plane and developer API alike", () => {
    expect(routes.some((r) => r.path.startsWith("/_emulator/"))).toBe(true);
    expect(routes.some((r) => r.path.startsWith("/developer/v1/"))).toBe(true);
    expect(routes.some((r) => r.multipart)).toBe(true);
    expect(routes.filter((r) => r.body).length).toBeGreaterThan(10);
  });

  // One property per route, each with its own seed derived from the run's seed: a failure names both.
  test("every route: never a 5xx, always the envelope, the server stays up, the data stays consistent", async () => {
    for (const [i, route] of routes.entries()) {
      const seed = (SEED + i * 7919) | 0;
      const pools = await freshWorld();
      const result = await fc.check(
        fc.asyncProperty(requestArb(route, pools), async (req) => {
          const res = await send(route, req);
          checkAnswer(req, res);
          // A fault rule would make the next developer-API answers its injected status (a 5xx among them).
          if (route.path === "/_emulator/faults" && route.method === "POST" && res.status === 201)
            await fetch(`${emu.adminUrl}/faults`, { method: "DELETE", headers: { authorization: `Bearer ${ADMIN}` } });
        }),
        { seed, numRuns: RUNS, ...(PATH ? { path: PATH } : {}), endOnFailure: true },
      );
      if (result.failed) {
        throw new Error(
          `${route.method} ${route.path}: replay with EXT_FUZZ_SEED=${SEED} (route seed ${seed}, path ${result.counterexamplePath})\n${String(result.errorInstance)}`,
        );
      }
      const health = await fetch(`${emu.url}/healthz`);
      expect(health.status).toBe(200);
      checkConsistency();
    }
  }, 600_000);
});
