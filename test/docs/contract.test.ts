/**
 * The contract: a run through every route and every status each one documents, over a real socket with
 * rate limits on, every response (status, body, headers) and every accepted request body — the multipart
 * submission included — checked against the served /openapi.json by a real OpenAPI validator, and every
 * developer-API response also against the spec's own field tables (test/helpers/spec-fields.ts). A field
 * added to a response but not to the document fails it; so does a documented status nothing can produce.
 */

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { API_PREFIX, DEPLOY_LIMITS_PREFIX } from "../../common/addresses";
import { JSON_BODY_MAX_BYTES } from "../../common/api-rules";
import { audioHeader } from "../../scripts/lib/archive-writer";
import { validEntries } from "../../scripts/lib/samples";
import { MAX_REQUEST_STREAMS, openRequestStreams } from "../../server/control-plane/request-stream";
import { SNAPSHOTS_MAX } from "../../server/resources/snapshots/store";
import { type BundleDir, bundleDir } from "../helpers/bundles";
import {
  baseFixture,
  DEMO_KEY,
  dashboardSession,
  type RawResponse,
  startTestEmulator,
  stopTestEmulator,
  type TestEmulator,
} from "../helpers/emulator";
import { OpenApiContract, type Operation } from "../helpers/openapi-contract";
import { specProblems } from "../helpers/spec-fields";
import { waitFor } from "../helpers/wait-for";

const EXT_READ_ONLY = "ext_contract_extensions_read_only_0001";
const SECRETS_READ_ONLY = "ext_contract_secrets_read_only_000001";

let emu: TestEmulator;
let contract: OpenApiContract;
let bundles: BundleDir;
const observed = new Map<string, Set<number>>();
const problems: string[] = [];

beforeAll(async () => {
  const fixture = baseFixture();
  fixture.accounts[0]!.apiKeys!.push(
    { name: "extensions read", key: EXT_READ_ONLY, scopes: ["extensions:read"] },
    { name: "secrets read", key: SECRETS_READ_ONLY, scopes: ["secrets:read"] },
  );
  emu = await startTestEmulator({ fixture, config: { rateLimits: true } });
  contract = await OpenApiContract.create((await emu.rawRequest("GET", "/openapi.json")).body);
  bundles = bundleDir();
});
afterAll(async () => {
  await stopTestEmulator(emu);
  bundles.cleanup();
});

interface Call {
  /** A developer API key, or an Authorization value for the control plane; none by default there. */
  key?: string | null;
  auth?: string;
  json?: unknown;
  body?: Bun.BodyInit;
  contentType?: string;
  headers?: Record<string, string>;
  /** An injected fault answers: before authentication, so without the rate window's headers. */
  injected?: boolean;
  /** The multipart fields as the document describes them, to check an accepted submission against. */
  form?: Record<string, string>;
}

/** Sends one request, checks it and its response against the document, records the status. */
async function send(method: string, path: string, call: Call = {}): Promise<RawResponse> {
  const developer = path.startsWith(API_PREFIX) || path.startsWith(DEPLOY_LIMITS_PREFIX);
  const headers: Record<string, string> = { ...call.headers };
  if (call.auth) headers.authorization = call.auth;
  if (call.contentType) headers["content-type"] = call.contentType;
  const res = await emu.rawRequest(method, path, {
    key: call.key !== undefined ? call.key : developer ? DEMO_KEY : call.auth ? null : emu.runtime.control.adminToken,
    headers,
    ...(call.json !== undefined ? { json: call.json } : {}),
    ...(call.body !== undefined ? { body: call.body } : {}),
  });
  const op = contract.find(method, path);
  if (!op) {
    problems.push(`${method} ${path}: no documented operation`);
    return res;
  }
  if (!observed.has(op.operationId)) observed.set(op.operationId, new Set());
  observed.get(op.operationId)!.add(res.status);
  problems.push(...contract.responseProblems(op, res.status, res.headers, res.body, res.text));
  // The document is the emulator's own: the spec's field tables are checked too, where they speak.
  if (path.startsWith(`${API_PREFIX}/`))
    problems.push(
      ...specProblems(method, path.slice(API_PREFIX.length), res.status, res.headers, res.body, res.text, {
        injected: call.injected ?? false,
      }),
    );
  if (developer && res.status !== 401 && !call.injected) {
    for (const h of ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"])
      if (!res.headers.has(h)) problems.push(`${method} ${path} → ${res.status}: no ${h}`);
  }
  if (res.status === 401 && !res.headers.has("WWW-Authenticate") && !call.key)
    problems.push(`${method} ${path} → 401 without WWW-Authenticate`);
  if (res.status === 429 && !/^\d+$/.test(res.headers.get("Retry-After") ?? ""))
    problems.push(`${method} ${path} → 429 without Retry-After`);
  if (res.status < 300) {
    if (call.json !== undefined)
      problems.push(
        ...contract.requestProblems(op, "application/json", call.json).map((p) => `request of ${method} ${path}: ${p}`),
      );
    if (call.form)
      problems.push(
        ...contract
          .requestProblems(op, "multipart/form-data", call.form)
          .map((p) => `request of ${method} ${path}: ${p}`),
      );
  }
  return res;
}

/** A response of the expected status, whose body the contract has checked: read by key path. */
interface Checked extends RawResponse {
  /** The value at `keys` (object keys or array indexes); throws when it is not there. */
  at(...keys: string[]): unknown;
  /** The string at `keys`; throws when it is not one. */
  str(...keys: string[]): string;
}

async function expectStatus(status: number, method: string, path: string, call?: Call): Promise<Checked> {
  const res = await send(method, path, call);
  if (res.status !== status)
    throw new Error(`${method} ${path}: expected ${status}, got ${res.status} ${res.text.slice(0, 300)}`);
  const at = (...keys: string[]): unknown =>
    keys.reduce<unknown>((value, key) => {
      if (typeof value !== "object" || value === null || !(key in value))
        throw new Error(`${method} ${path}: no ${keys.join(".")} in ${res.text.slice(0, 300)}`);
      return (value as Record<string, unknown>)[key];
    }, res.body);
  const str = (...keys: string[]): string => {
    const value = at(...keys);
    if (typeof value !== "string") throw new Error(`${method} ${path}: ${keys.join(".")} is not a string`);
    return value;
  };
  return Object.assign(res, { at, str });
}

async function submission(version: string, file?: string): Promise<{ body: FormData; form: Record<string, string> }> {
  const body = new FormData();
  body.append("version", version);
  body.append("changelog", "First cut");
  body.append("bundle", Bun.file(file ?? (await bundles.make())), "bundle.tar.gz");
  return { body, form: { version, changelog: "First cut", bundle: "(binary)" } };
}

/** An id no log entry has: an integer (anything else is a 422), far past what a run logs. */
const UNKNOWN_INTEGER_ID = "999999999";
const isIntegerParam = (o: Operation, name: string) =>
  (o.op.parameters ?? []).some((p: any) => p.in === "path" && p.name === name && p.schema?.type === "integer");

/** A concrete path for an operation: its parameters from `ids`, a valid but unknown one where none is given. */
function pathOf(o: Operation, ids: Record<string, string> = {}): string {
  const unknown = (name: string) =>
    isIntegerParam(o, name) ? UNKNOWN_INTEGER_ID : name === "key" ? "MISSING_KEY" : "missing_1";
  return o.template.replace(/\{([^}]+)\}/g, (_, name: string) => ids[name] ?? unknown(name));
}

/**
 * Opens an event stream, reads up to its first event and closes it. The status and headers are checked
 * against the document like any response, the text read as the body; the event's data against `model`.
 */
async function firstEvent(path: string, model: string): Promise<{ event: string; data: any }> {
  const res = await fetch(emu.url + path, { headers: { authorization: `Bearer ${emu.runtime.control.adminToken}` } });
  const op = contract.find("GET", path)!;
  if (!observed.has(op.operationId)) observed.set(op.operationId, new Set());
  observed.get(op.operationId)!.add(res.status);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let block: string | undefined;
  while (!block) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`${path}: the stream ended before its first event: ${JSON.stringify(text)}`);
    text += decoder.decode(value, { stream: true });
    // Comment blocks (": connected", keep-alives) are not events.
    block = text
      .split("\n\n")
      .slice(0, -1)
      .find((b) => b.split("\n").some((line) => line.startsWith("data:")));
  }
  await reader.cancel();
  const field = (name: string) =>
    block!
      .split("\n")
      .filter((l) => l.startsWith(`${name}:`))
      .map((l) => l.slice(name.length + 1).trimStart())
      .join("\n");
  const data = JSON.parse(field("data"));
  problems.push(...contract.responseProblems(op, res.status, res.headers, undefined, text));
  problems.push(...contract.modelProblems(model, data).map((p) => `${path} event data: ${p}`));
  if (field("id") !== String(data.id))
    problems.push(`${path}: event id ${field("id")} is not its entry's id ${data.id}`);
  return { event: field("event"), data };
}

const _jsonBodyOps = () => contract.operations.filter((o) => o.op.requestBody?.content?.["application/json"]);

describe("every route, every documented status, against /openapi.json", () => {
  let ext = "";
  let version = "";

  test("the developer API's happy path, then its conflicts and refusals", async () => {
    const created = await expectStatus(201, "POST", `${API_PREFIX}/extensions`, {
      json: { name: "Contract Board", short_description: "Sounds", pricing: { type: "free" } },
    });
    ext = created.str("extension", "id");
    await expectStatus(200, "GET", `${API_PREFIX}/extensions`);
    await expectStatus(200, "GET", `${API_PREFIX}/extensions/${ext}`);
    await expectStatus(200, "PATCH", `${API_PREFIX}/extensions/${ext}`, {
      json: { description: "All the sounds", visibility: "public" },
    });
    const first = await submission("1.0.0");
    version = (
      await expectStatus(202, "POST", `${API_PREFIX}/extensions/${ext}/versions`, {
        body: first.body,
        form: first.form,
      })
    ).str("version", "id");
    await expectStatus(200, "GET", `${API_PREFIX}/extensions/${ext}/versions?include=archived`);
    await expectStatus(200, "GET", `${API_PREFIX}/extensions/${ext}/installs`);
    await expectStatus(204, "PUT", `${API_PREFIX}/extensions/${ext}/secrets/API_TOKEN`, {
      json: { value: "contract-secret-value-1" },
    });
    await expectStatus(200, "GET", `${API_PREFIX}/extensions/${ext}/secrets`);
    await expectStatus(200, "GET", `${API_PREFIX}/extensions/${ext}/limits`);
    await expectStatus(200, "GET", `${DEPLOY_LIMITS_PREFIX}/extensions/${ext}/limits`);
    await expectStatus(404, "DELETE", `${API_PREFIX}/extensions/${ext}/secrets/NOT_THERE`);
    await expectStatus(204, "DELETE", `${API_PREFIX}/extensions/${ext}/secrets/API_TOKEN`);
    await expectStatus(422, "DELETE", `${API_PREFIX}/extensions/${ext}/secrets/1bad`);
    await expectStatus(422, "GET", `${API_PREFIX}/extensions/${ext}/versions?include=everything`);

    const again = await submission("1.0.0");
    await expectStatus(409, "POST", `${API_PREFIX}/extensions/${ext}/versions`, { body: again.body });
    const broken = await submission("2.0.0", await bundles.make([{ name: "README.md", data: "no manifest" }]));
    await expectStatus(422, "POST", `${API_PREFIX}/extensions/${ext}/versions`, { body: broken.body });
    await expectStatus(415, "POST", `${API_PREFIX}/extensions/${ext}/versions`, { json: { version: "2.0.0" } });
    // The extension's bundle cap lowered below the archive: refused before the upload is read.
    await expectStatus(200, "PUT", `/_emulator/overrides/extensions/${ext}`, { json: { bundle_total_bytes: 1024 } });
    const big = await submission(
      "3.0.0",
      await bundles.make([{ name: "noise.bin", generated: { size: 512 * 1024, fill: "random" } }]),
    );
    await expectStatus(413, "POST", `${API_PREFIX}/extensions/${ext}/versions`, { body: big.body });
    await expectStatus(204, "DELETE", `/_emulator/overrides/extensions/${ext}`);

    // Approved and public: listed, so it can no longer be deleted.
    await expectStatus(200, "POST", `/_emulator/versions/${version}/approve`);
    await expectStatus(409, "DELETE", `${API_PREFIX}/extensions/${ext}`);
    const doomed = (await expectStatus(201, "POST", `${API_PREFIX}/extensions`, { json: { name: "Short Lived" } })).str(
      "extension",
      "id",
    );
    await expectStatus(204, "DELETE", `${API_PREFIX}/extensions/${doomed}`);
  });

  test("the control plane's happy path, then its conflicts and refusals", async () => {
    await expectStatus(200, "GET", "/healthz", { key: null });
    await expectStatus(200, "GET", "/healthz?challenge=c0ntract_t3st_nonce_0123456789", { key: null });
    await expectStatus(422, "GET", "/healthz?challenge=short", { key: null });
    const login = (await expectStatus(200, "POST", "/_emulator/dashboard-login")).str("id");
    await expectStatus(200, "GET", `/_emulator/dashboard-login/${login}`);
    await expectStatus(200, "GET", "/_emulator/state");
    await expectStatus(200, "GET", "/_emulator/clock");
    await expectStatus(200, "POST", "/_emulator/clock", { json: { advanceSeconds: 1 } });
    await expectStatus(422, "POST", "/_emulator/clock", { json: {} });
    const fault = (
      await expectStatus(201, "POST", "/_emulator/faults", {
        json: { method: "GET", path: "/nowhere/*", status: 503, times: 1 },
      })
    ).str("fault", "id");
    await expectStatus(200, "GET", "/_emulator/faults");
    await expectStatus(204, "DELETE", `/_emulator/faults/${fault}`);
    await expectStatus(204, "DELETE", "/_emulator/faults");
    await expectStatus(200, "GET", "/_emulator/requests?limit=5");
    await expectStatus(422, "GET", "/_emulator/requests?limit=0");
    await expectStatus(204, "DELETE", "/_emulator/requests");

    const key = (
      await expectStatus(201, "POST", "/_emulator/accounts/acc_other/keys", {
        json: { name: "ci", scopes: ["extensions:read"] },
      })
    ).str("apiKey", "id");
    await expectStatus(200, "GET", "/_emulator/accounts/acc_other/keys");
    await expectStatus(204, "DELETE", `/_emulator/accounts/acc_other/keys/${key}`);
    const member = (
      await expectStatus(201, "POST", "/_emulator/accounts/acc_other/members", {
        json: { email: "dev@example.com", role: "developer" },
      })
    ).str("member", "id");
    await expectStatus(409, "POST", "/_emulator/accounts/acc_other/members", {
      json: { email: "dev@example.com", role: "viewer" },
    });
    await expectStatus(200, "GET", "/_emulator/accounts/acc_other/members");
    await expectStatus(204, "DELETE", `/_emulator/accounts/acc_other/members/${member}`);

    await expectStatus(200, "PUT", "/_emulator/overrides/accounts/acc_other", {
      json: { max_sounds_per_extension: 80 },
    });
    await expectStatus(200, "GET", "/_emulator/overrides/accounts/acc_other");
    await expectStatus(204, "DELETE", "/_emulator/overrides/accounts/acc_other");
    await expectStatus(200, "PUT", `/_emulator/overrides/extensions/${ext}`, {
      json: { max_sounds_per_extension: 90 },
    });
    await expectStatus(200, "GET", `/_emulator/overrides/extensions/${ext}`);

    const reason = "We ship a large sound pack for schools.";
    const request = { accountId: "acc_test", scope: "account", limits: { max_sounds_per_extension: 80 }, reason };
    const approved = (await expectStatus(201, "POST", "/_emulator/limit-requests", { json: request })).str(
      "limitRequest",
      "id",
    );
    const rejected = (await expectStatus(201, "POST", "/_emulator/limit-requests", { json: request })).str(
      "limitRequest",
      "id",
    );
    await expectStatus(200, "GET", "/_emulator/limit-requests?status=pending");
    await expectStatus(422, "GET", "/_emulator/limit-requests?status=maybe");
    await expectStatus(200, "GET", `/_emulator/limit-requests/${approved}`);
    await expectStatus(200, "POST", `/_emulator/limit-requests/${approved}/approve`, { json: { reason: "ok" } });
    await expectStatus(409, "POST", `/_emulator/limit-requests/${approved}/approve`, { json: {} });
    await expectStatus(200, "POST", `/_emulator/limit-requests/${rejected}/reject`, { json: { reason: "not now" } });
    await expectStatus(409, "POST", `/_emulator/limit-requests/${rejected}/reject`, { json: { reason: "still not" } });

    const second = await submission("1.1.0");
    const pending = (
      await expectStatus(202, "POST", `${API_PREFIX}/extensions/${ext}/versions`, {
        body: second.body,
        form: second.form,
      })
    ).str("version", "id");
    await expectStatus(200, "POST", `/_emulator/versions/${pending}/reject`, {
      json: { reason: "Clipping in two sounds" },
    });
    await expectStatus(409, "POST", `/_emulator/versions/${pending}/reject`, { json: { reason: "again" } });
    await expectStatus(409, "POST", `/_emulator/versions/${version}/approve`);

    await expectStatus(200, "POST", `/_emulator/extensions/${ext}/installs`, { json: { count: 3 } });
    await expectStatus(200, "POST", `/_emulator/extensions/${ext}/uninstalls`, { json: { count: 1 } });
    await expectStatus(409, "POST", `/_emulator/extensions/${ext}/uninstalls`, { json: { count: 50 } });
    const third = await submission("1.2.0");
    const newer = (
      await expectStatus(202, "POST", `${API_PREFIX}/extensions/${ext}/versions`, {
        body: third.body,
        form: third.form,
      })
    ).str("version", "id");
    await expectStatus(200, "POST", `/_emulator/versions/${newer}/approve`);
    await expectStatus(200, "POST", `/_emulator/extensions/${ext}/rollouts`, {
      json: { fromVersionId: version, toVersionId: newer, count: 1 },
    });
    await expectStatus(409, "POST", `/_emulator/extensions/${ext}/rollouts`, { json: { toVersionId: pending } });
    const bare = (
      await expectStatus(201, "POST", `${API_PREFIX}/extensions`, { json: { name: "No Versions Yet" } })
    ).str("extension", "id");
    await expectStatus(409, "POST", `/_emulator/extensions/${bare}/installs`, { json: {} });
    await expectStatus(200, "POST", `/_emulator/extensions/${ext}/disable`);
    await expectStatus(200, "POST", `/_emulator/extensions/${ext}/enable`);

    await expectStatus(200, "POST", "/_emulator/seed", { json: { accounts: [{ id: "acc_seeded", name: "Seeded" }] } });
    await expectStatus(422, "POST", "/_emulator/seed", { json: { accounts: "none" } });

    const exported = await expectStatus(200, "GET", "/_emulator/export");
    expect(exported.headers.get("content-type")).toBe("application/x-tar");
    await expectStatus(422, "GET", "/_emulator/export?includeSecretValues=maybe");
    const snapshots: string[] = [];
    for (let i = 0; i < SNAPSHOTS_MAX; i++)
      snapshots.push((await expectStatus(201, "POST", "/_emulator/snapshots")).str("snapshot", "id"));
    await expectStatus(422, "POST", "/_emulator/snapshots");
    await expectStatus(204, "POST", `/_emulator/snapshots/${snapshots[0]}/restore`);
    for (const id of snapshots) await expectStatus(204, "DELETE", `/_emulator/snapshots/${id}`);
  });

  test("the dashboard's control plane: accounts, its key, the review queue, a bundle and its sounds, limits, the request log live", async () => {
    await expectStatus(200, "GET", "/_emulator/accounts");
    expect((await expectStatus(200, "POST", "/_emulator/accounts/acc_other/dashboard-key")).at("created")).toBe(true);
    expect((await expectStatus(200, "POST", "/_emulator/accounts/acc_other/dashboard-key")).at("created")).toBe(false);
    await expectStatus(404, "POST", "/_emulator/accounts/acc_missing/dashboard-key");
    // An account at its cap of active keys has no room for the dashboard's.
    await expectStatus(200, "PUT", "/_emulator/overrides/accounts/acc_test", { json: { max_api_keys: 1 } });
    await expectStatus(422, "POST", "/_emulator/accounts/acc_test/dashboard-key");
    await expectStatus(204, "DELETE", "/_emulator/overrides/accounts/acc_test");

    // A sound over the player's 10 MB (the extension's sound cap raised so the upload takes it).
    const board = (
      await expectStatus(201, "POST", `${API_PREFIX}/extensions`, { json: { name: "Dashboard Board" } })
    ).str("extension", "id");
    await expectStatus(200, "PUT", `/_emulator/overrides/extensions/${board}`, {
      json: { sound_file_bytes: 12 * 1024 * 1024 },
    });
    const big = {
      name: "sounds/big.wav",
      generated: { size: 11 * 1024 * 1024, fill: "zero" as const, prefix: audioHeader("WAV") },
    };
    const upload = await submission("1.0.0", await bundles.make(validEntries({ entries: [big] })));
    const pending = (
      await expectStatus(202, "POST", `${API_PREFIX}/extensions/${board}/versions`, {
        body: upload.body,
        form: upload.form,
      })
    ).str("version", "id");
    const queue = await expectStatus(200, "GET", "/_emulator/review-queue");
    const queued = queue.at("versions");
    expect(Array.isArray(queued) && queued.map((_, i) => queue.str("versions", String(i), "versionId"))).toContain(
      pending,
    );
    await expectStatus(200, "GET", `/_emulator/versions/${pending}/bundle`);
    const sound = await expectStatus(200, "GET", `/_emulator/versions/${pending}/sound?path=sounds/s0.mp3`);
    expect(sound.headers.get("content-type")).toBe("audio/mpeg");
    await expectStatus(404, "GET", `/_emulator/versions/${pending}/sound?path=sounds/none.mp3`);
    await expectStatus(413, "GET", `/_emulator/versions/${pending}/sound?path=sounds/big.wav`);
    await expectStatus(422, "GET", `/_emulator/versions/${pending}/sound`);

    await expectStatus(200, "GET", "/_emulator/limits?accountId=acc_test");
    await expectStatus(200, "GET", `/_emulator/limits?accountId=acc_test&extensionId=${board}`);
    await expectStatus(404, "GET", "/_emulator/limits?accountId=acc_missing");
    await expectStatus(422, "GET", "/_emulator/limits");

    const latest = (await expectStatus(200, "GET", "/_emulator/requests?limit=1")).at("requests", "0", "id");
    await expectStatus(200, "GET", `/_emulator/requests/${latest}`);
    await expectStatus(422, "GET", "/_emulator/requests/not-a-number");
    await expectStatus(422, "GET", "/_emulator/requests/stream?recent=-1");
    const first = await firstEvent("/_emulator/requests/stream?recent=1", "RequestLogEntry");
    expect(first.event).toBe("request");
    expect(first.data.id).toBe(latest);
    // Every stream the server allows open at once, then one more.
    const streams: AbortController[] = [];
    try {
      for (let i = 0; i < MAX_REQUEST_STREAMS; i++) {
        const controller = new AbortController();
        streams.push(controller);
        const res = await fetch(`${emu.url}/_emulator/requests/stream`, {
          signal: controller.signal,
          headers: { authorization: `Bearer ${emu.runtime.control.adminToken}` },
        });
        const reader = res.body!.getReader();
        await reader.read();
        reader.releaseLock();
      }
      await expectStatus(503, "GET", "/_emulator/requests/stream");
    } finally {
      for (const controller of streams) controller.abort();
      const log = emu.runtime.control.requestLog;
      // A cleanup: a failure of the test itself is the one to report.
      await waitFor(() => openRequestStreams(log) === 0, "the aborted streams to close").catch(() => undefined);
    }
  }, 60_000);

  test("what any route can answer: 400, 401, 403, 404, 413, 415, 422, 429 and 500, route by route", async () => {
    const idsFor = (o: Operation) => ({
      ...(isIntegerParam(o, "id") ? {} : { id: o.template.includes("/overrides/accounts/") ? "acc_test" : ext }),
      accountId: "acc_test",
      key: "API_TOKEN",
      versionId: version,
    });
    /** A body each JSON route accepts, so that only the thing under test is wrong. */
    const valid: Record<string, unknown> = {
      createExtension: { name: "Valid" },
      updateExtension: { name: "Valid" },
      putSecret: { value: "contract-secret-value-2" },
      seedEmulator: { accounts: [] },
      changeClock: { advanceSeconds: 0 },
      createFault: { path: "/nowhere" },
      createApiKey: { name: "k", scopes: ["*"] },
      addTeamMember: { email: "x@example.com", role: "viewer" },
      setExtensionOverrides: {},
      setAccountOverrides: {},
      createLimitRequest: {
        accountId: "missing_1",
        scope: "account",
        limits: { max_sounds_per_extension: 80 },
        reason: "A reason that is long enough.",
      },
      approveLimitRequest: {},
      rejectLimitRequest: { reason: "no" },
      rejectVersion: { reason: "no" },
      recordInstalls: {},
      recordUninstalls: {},
      recordRollout: {},
    };
    for (const o of contract.operations) {
      const documented = Object.keys(o.op.responses).map(Number);
      const developer = o.template.startsWith(API_PREFIX) || o.template.startsWith(DEPLOY_LIMITS_PREFIX);
      const method = o.method.toUpperCase();
      const jsonBody = o.op.requestBody?.content?.["application/json"] ? { json: valid[o.operationId] ?? {} } : {};
      if (documented.includes(401))
        await expectStatus(
          401,
          method,
          pathOf(o, idsFor(o)),
          developer ? { key: null } : { auth: "Bearer not-the-admin-token" },
        );
      if (documented.includes(403)) {
        if (developer) {
          const key = o.operationId === "listSecretKeys" ? EXT_READ_ONLY : SECRETS_READ_ONLY;
          await expectStatus(403, method, pathOf(o, idsFor(o)), { key, ...jsonBody });
        }
        // The dashboard's session, sent from another site's page.
        else
          await expectStatus(403, method, pathOf(o), {
            key: null,
            headers: { origin: "http://evil.example", "x-ext-session": await dashboardSession(emu) },
          });
      }
      if (documented.includes(404) && !observed.get(o.operationId)?.has(404)) {
        await expectStatus(404, method, pathOf(o), jsonBody);
      }
      if (documented.includes(400)) {
        // A parameter that cannot be decoded (server/http/path-encoding.ts).
        await expectStatus(400, method, o.template.replace(/\{[^}]+\}/g, "%FF"), jsonBody);
      }
      if (documented.includes(415) && !observed.get(o.operationId)?.has(415)) {
        await expectStatus(415, method, pathOf(o, idsFor(o)), { body: "{}", contentType: "text/plain" });
      }
      if (documented.includes(413) && !observed.get(o.operationId)?.has(413)) {
        // Chunked, so the cap is checked while reading (a declared length is refused before, by the gate).
        const chunk = new TextEncoder().encode(" ".repeat(64 * 1024));
        let sent = 0;
        const stream = new ReadableStream({
          pull(c) {
            if (sent > JSON_BODY_MAX_BYTES) return c.close();
            sent += chunk.length;
            c.enqueue(chunk);
          },
        });
        await expectStatus(413, method, pathOf(o, idsFor(o)), { body: stream, contentType: "application/json" });
      }
      if (documented.includes(422) && !observed.get(o.operationId)?.has(422) && jsonBody.json !== undefined) {
        await expectStatus(422, method, pathOf(o, idsFor(o)), { json: { surely_not_a_field: 1 } });
      }
      // What the document leaves out cannot be answered either: a body sent to an operation that takes none is
      // ignored (malformed JSON included), and a 5,000-character path parameter is an id like any other.
      if (!o.op.requestBody && method !== "GET" && o.operationId !== "resetEmulator") {
        await send(method, pathOf(o, idsFor(o)), { body: "{", contentType: "application/json" });
        await send(method, pathOf(o), { body: "not json", contentType: "text/plain" });
      }
      if (o.template.includes("{")) await send(method, o.template.replace(/\{[^}]+\}/g, "a".repeat(5_000)), jsonBody);
      if (developer) {
        for (const status of [429, 500].filter((s) => documented.includes(s))) {
          await expectStatus(201, "POST", "/_emulator/faults", {
            json: { method, path: pathOf(o, idsFor(o)), status, times: 1 },
          });
          await expectStatus(status, method, pathOf(o, idsFor(o)), { ...jsonBody, injected: true });
        }
      }
    }
  }, 60_000);

  test("a reset answers as documented too (last: it wipes the state the run made), a body sent to it ignored", async () => {
    await expectStatus(200, "POST", "/_emulator/reset", { body: "{", contentType: "application/json" });
    await expectStatus(200, "POST", "/_emulator/reset");
  });

  test("no response and no accepted request departed from the document", () => {
    expect(problems).toEqual([]);
  });

  test("every documented status of every operation was seen (a 500 of the control plane has no trigger)", () => {
    const missing: string[] = [];
    for (const o of contract.operations) {
      for (const status of Object.keys(o.op.responses).map(Number)) {
        if (status === 500 && !(o.template.startsWith(API_PREFIX) || o.template.startsWith(DEPLOY_LIMITS_PREFIX)))
          continue;
        if (!observed.get(o.operationId)?.has(status)) missing.push(`${o.operationId} ${status}`);
      }
    }
    expect(missing).toEqual([]);
  });

  test("every example the document shows validates against its schema (the error examples included)", () => {
    const { checked, problems } = contract.exampleProblems();
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThan(100);
  });

  test("the validator does refuse a field, a status or an error code the document does not know", () => {
    const o = contract.operations.find((x) => x.operationId === "getInstallStatistics")!;
    const headers = new Headers({ "content-type": "application/json" });
    expect(contract.responseProblems(o, 200, headers, { total: 1, active: 1, byVersion: {} }, "{}")).toEqual([]);
    expect(
      contract.responseProblems(o, 200, headers, { total: 1, active: 1, byVersion: {}, perUser: [] }, "{}").length,
    ).toBeGreaterThan(0);
    expect(
      contract.responseProblems(o, 200, headers, { total: "1", active: 1, byVersion: {} }, "{}").length,
    ).toBeGreaterThan(0);
    expect(contract.responseProblems(o, 418, headers, {}, "{}").length).toBeGreaterThan(0);
    // A documented status with a code it does not list.
    const envelope = (code: string) => ({ error: { code, message: "m", status: 404 } });
    expect(contract.responseProblems(o, 404, headers, envelope("extension_not_found"), "{}")).toEqual([]);
    expect(contract.responseProblems(o, 404, headers, envelope("version_not_found"), "{}").length).toBeGreaterThan(0);
  });
});
