/**
 * An early answer never breaks the client. Every refusal decided before the body is read — 401, 403, 404, 413,
 * 415, 429, an injected fault — on each upload route (a version submission, `POST /_emulator/seed`) is read by
 * the client that is still sending its body, with Node's fetch (a real `node`), Bun's fetch and curl: the body
 * is read and dropped while the answer goes out, and the connection stays open for the next request. (Closing it
 * instead made Node's fetch throw EPIPE in most tries.)
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Fixture } from "../../server/seed/model";
import {
  baseFixture,
  DEMO_KEY,
  dashboardSession,
  READ_KEY,
  startTestEmulator,
  stopTestEmulator,
  type TestEmulator,
} from "../helpers/emulator";

/** Large enough that a client is still writing when the answer comes, well under the drain bound (4 MiB). */
const BODY_BYTES = 300 * 1024;
const BOUNDARY = "early-answer-boundary";
const VERSIONS = "/developer/v1/extensions/ext_early/versions";
const SMALL_CAP = "/developer/v1/extensions/ext_small_cap/versions";
const FAULTED = "/developer/v1/extensions/ext_faulted/versions";
const SEED = "/_emulator/seed";

let emu: TestEmulator;
let dir: string;
let session: string;

beforeAll(async () => {
  const fixture: Fixture = baseFixture();
  fixture.accounts[0]!.extensions = [
    { id: "ext_early", name: "Early" },
    { id: "ext_faulted", name: "Faulted" },
    // A bundle cap of 1,000 bytes: a submission of BODY_BYTES is a 413 by its Content-Length.
    { id: "ext_small_cap", name: "Small cap", overrides: { bundle_total_bytes: 1_000 } },
  ];
  emu = await startTestEmulator({ fixture, config: { rateLimits: true } });
  session = await dashboardSession(emu);
  dir = mkdtempSync(join(tmpdir(), "ext-early-"));
  await emu.control.POST("/_emulator/faults", {
    body: { path: "/extensions/ext_faulted/versions", status: 503, times: 1_000 },
  });
});
afterAll(async () => {
  await stopTestEmulator(emu);
  rmSync(dir, { recursive: true, force: true });
});

/** A multipart submission of about BODY_BYTES: a version field and a bundle part of filler bytes. */
function submission(): Buffer {
  const head = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="version"\r\n\r\n1.0.0\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="bundle"; filename="b.tar.gz"\r\nContent-Type: application/gzip\r\n\r\n`;
  return Buffer.concat([Buffer.from(head), Buffer.alloc(BODY_BYTES, 7), Buffer.from(`\r\n--${BOUNDARY}--\r\n`)]);
}

interface Refusal {
  name: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer;
  status: number;
  code: string;
}

const MULTIPART = { "content-type": `multipart/form-data; boundary=${BOUNDARY}` };
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

/** Each refusal of each upload route that comes before its body is read (the 429 apart: it needs a spent window). */
function refusals(): Refusal[] {
  const upload = submission();
  const admin = bearer(emu.runtime.control.adminToken);
  return [
    {
      name: "401 key",
      path: VERSIONS,
      headers: { ...MULTIPART, ...bearer("ext_not_a_key") },
      body: upload,
      status: 401,
      code: "unauthorized",
    },
    {
      name: "403 scope",
      path: VERSIONS,
      headers: { ...MULTIPART, ...bearer(READ_KEY) },
      body: upload,
      status: 403,
      code: "forbidden",
    },
    {
      name: "404 extension",
      path: "/developer/v1/extensions/ext_missing/versions",
      headers: { ...MULTIPART, ...bearer(DEMO_KEY) },
      body: upload,
      status: 404,
      code: "extension_not_found",
    },
    {
      name: "413 Content-Length",
      path: SMALL_CAP,
      headers: { ...MULTIPART, ...bearer(DEMO_KEY) },
      body: upload,
      status: 413,
      code: "payload_too_large",
    },
    {
      name: "415 type",
      path: VERSIONS,
      headers: { "content-type": "text/plain", ...bearer(DEMO_KEY) },
      body: upload,
      status: 415,
      code: "unsupported_media_type",
    },
    {
      name: "503 fault",
      path: FAULTED,
      headers: { ...MULTIPART, ...bearer(DEMO_KEY) },
      body: upload,
      status: 503,
      code: "service_unavailable",
    },
    {
      name: "seed 401",
      path: SEED,
      headers: { "content-type": "application/x-tar" },
      body: upload,
      status: 401,
      code: "unauthorized",
    },
    {
      name: "seed 403",
      path: SEED,
      headers: { "content-type": "application/x-tar", "x-ext-session": session, origin: "http://evil.example" },
      body: upload,
      status: 403,
      code: "forbidden",
    },
    // Past the JSON body cap (1 MiB) by its Content-Length, under the drain bound.
    {
      name: "seed 413",
      path: SEED,
      headers: { "content-type": "application/json", ...admin },
      body: Buffer.alloc(1_500_000, 32),
      status: 413,
      code: "payload_too_large",
    },
    {
      name: "seed 415",
      path: SEED,
      headers: { "content-type": "text/plain", ...admin },
      body: upload,
      status: 415,
      code: "unsupported_media_type",
    },
  ];
}

interface Seen {
  status?: number;
  connection?: string | null;
  body?: string;
  error?: string;
}

function bodyFile(refusal: Refusal, i: number): string {
  const file = join(dir, `body-${i}`);
  writeFileSync(file, refusal.body);
  return file;
}

async function withNode(list: Refusal[]): Promise<Seen[]> {
  const requests = list.map((r, i) => ({
    url: emu.url + r.path,
    method: "POST",
    headers: r.headers,
    bodyFile: bodyFile(r, i),
  }));
  const file = join(dir, "requests.json");
  writeFileSync(file, JSON.stringify(requests));
  const proc = Bun.spawn(["node", join(import.meta.dir, "../helpers/early-answer-client.mjs"), file], {
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  if (code !== 0) throw new Error(`node exited ${code}: ${err}`);
  return JSON.parse(out) as Seen[];
}

async function withBun(list: Refusal[]): Promise<Seen[]> {
  const seen: Seen[] = [];
  for (const r of list) {
    try {
      const res = await fetch(emu.url + r.path, { method: "POST", headers: r.headers, body: r.body });
      seen.push({ status: res.status, connection: res.headers.get("connection"), body: await res.text() });
    } catch (e) {
      seen.push({ error: String(e) });
    }
  }
  return seen;
}

async function withCurl(list: Refusal[]): Promise<Seen[]> {
  const seen: Seen[] = [];
  for (const [i, r] of list.entries()) {
    const out = join(dir, `curl-body-${i}`);
    const head = join(dir, `curl-head-${i}`);
    const args = ["curl", "--silent", "--show-error", "--http1.1", "-X", "POST", "-o", out, "-D", head];
    args.push("-w", "%{http_code}", "--data-binary", `@${bodyFile(r, i)}`);
    // curl asks a large body's server for a 100 Continue first; a client that just sends is what is tested.
    args.push("-H", "Expect:");
    for (const [name, value] of Object.entries(r.headers)) args.push("-H", `${name}: ${value}`);
    args.push(emu.url + r.path);
    const proc = Bun.spawn(args, { stdout: "pipe", stderr: "pipe" });
    const [status, err, code] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
      proc.exited,
    ]);
    if (code !== 0) {
      seen.push({ error: `curl exit ${code}: ${err.trim()}` });
      continue;
    }
    const headers = await Bun.file(head).text();
    const connection = /^connection:\s*(.+?)\s*$/im.exec(headers)?.[1] ?? null;
    seen.push({ status: Number(status), connection, body: await Bun.file(out).text() });
  }
  return seen;
}

const CLIENTS = { "Node's fetch": withNode, "Bun's fetch": withBun, curl: withCurl } as const;

/** What a client should have seen: the refusal's status and envelope, on a connection left open. */
function expected(list: Refusal[]) {
  return list.map((r) => ({ name: r.name, status: r.status, code: r.code, connection: "kept" }));
}

function observed(list: Refusal[], seen: Seen[]) {
  return seen.map((s, i) => ({
    name: list[i]!.name,
    status: s.error ?? s.status,
    code: (JSON.parse(s.body || "{}") as { error?: { code?: string } }).error?.code,
    connection: s.connection === "close" ? "closed" : "kept",
  }));
}

/** Each client is a process of its own (node, curl per request): on a busy machine spawning them takes seconds. */
const SPAWNING_MS = 60_000;

describe("a refusal before the body is read, on every upload route", () => {
  for (const [client, send] of Object.entries(CLIENTS))
    test(
      `is read by ${client} while it is still sending`,
      async () => {
        const list = refusals();
        expect(observed(list, await send(list))).toEqual(expected(list));
      },
      SPAWNING_MS,
    );

  test(
    "a 429 too, once the submission window is spent, by every client",
    async () => {
      const limited: Refusal = {
        name: "429 window",
        path: VERSIONS,
        headers: { ...MULTIPART, ...bearer(DEMO_KEY) },
        body: submission(),
        status: 429,
        code: "rate_limited",
      };
      // Spend what is left of the 30 submissions an hour: each reaches the route and is a 404 (no such extension).
      for (let i = 0; i < 30; i++) {
        const res = await fetch(`${emu.url}/developer/v1/extensions/ext_missing/versions`, {
          method: "POST",
          headers: { ...MULTIPART, ...bearer(DEMO_KEY) },
          body: "x",
        });
        await res.arrayBuffer();
        if (res.status === 429) break;
      }
      for (const send of Object.values(CLIENTS))
        expect(observed([limited], await send([limited]))).toEqual(expected([limited]));
    },
    SPAWNING_MS,
  );
});
