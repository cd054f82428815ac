/**
 * How a command with no --target finds its emulator and verifies it: the nearest data directory up from the
 * working directory, then a challenge the server must answer with the admin token of that directory's
 * server.json. Real sockets and real files; each fake server records every request it is sent.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serverProof } from "../../common/server-proof-hmac";
import { UsageError } from "../../tools/calls/usage-error";
import {
  candidateDataDirs,
  nearestServerFile,
  UnprovenServerError,
  UnprovenTargetError,
} from "../../tools/cli/lib/find-server";
import { resolveApi, resolveServer } from "../../tools/cli/lib/target";
import { parseClientEnv } from "../../tools/config";

interface Seen {
  method: string;
  url: string;
  authorization: string | null;
}

/** A server on a free port that answers /healthz with `prove(nonce, url)` (undefined: no proof) and records all. */
function fakeServer(prove: (nonce: string, url: string) => string | undefined) {
  const seen: Seen[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const url = new URL(req.url);
      seen.push({
        method: req.method,
        url: url.pathname + url.search,
        authorization: req.headers.get("authorization"),
      });
      if (url.pathname === "/healthz") {
        const proof = prove(url.searchParams.get("challenge") ?? "", `http://127.0.0.1:${server.port}`);
        return Response.json({ status: "ok", ...(proof === undefined ? {} : { proof }) });
      }
      if (url.pathname === "/_emulator/accounts") return Response.json({ accounts: [{ id: "acc_1", name: "One" }] });
      if (url.pathname.endsWith("/dashboard-key")) return Response.json({ plaintext: "ext_from_fake" });
      return Response.json({ error: { code: "not_found", message: "no", status: 404 } }, { status: 404 });
    },
  });
  return { server, seen, url: `http://127.0.0.1:${server.port}` };
}

const TOKEN = "adm_test_token_for_the_proof_0123456789abcdef";
const honest = (token = TOKEN) => fakeServer((nonce, url) => serverProof(token, nonce, url));

/** Writes `<dir>/.ext-data/server.json` as `ext serve` does (0600), naming a live pid (this test's). */
function plant(dir: string, url: string, extra: Record<string, unknown> = { adminToken: TOKEN }): void {
  mkdirSync(join(dir, ".ext-data"), { recursive: true, mode: 0o700 });
  writeFileSync(join(dir, ".ext-data", "server.json"), JSON.stringify({ url, pid: process.pid, ...extra }), {
    mode: 0o600,
  });
}

const env = (vars: Record<string, string> = {}) => parseClientEnv(vars);

let root: string;
const servers: Array<ReturnType<typeof Bun.serve>> = [];
const track = <T extends { server: ReturnType<typeof Bun.serve> }>(s: T): T => {
  servers.push(s.server);
  return s;
};

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "ext-find-"));
  // The walk goes on above the temp folder: nothing of this user's may be found there, or these tests mean nothing.
  expect(nearestServerFile(env(), root)).toBeNull();
});
afterAll(() => {
  for (const s of servers) s.stop(true);
  rmSync(root, { recursive: true, force: true });
});

describe("finding the server: the nearest data directory up from the working directory", () => {
  test("a subfolder finds its parent's server, verified, with the token of its server.json", async () => {
    const fake = track(honest());
    const project = mkdtempSync(join(root, "project-"));
    plant(project, fake.url);
    const deep = join(project, "src", "deep");
    mkdirSync(deep, { recursive: true });
    const target = await resolveServer({}, env(), deep);
    expect(target.endpoints.root).toBe(fake.url);
    expect(target.adminToken).toBe(TOKEN);
    // The challenge is all that was sent, with no credential.
    expect(fake.seen).toHaveLength(1);
    expect(fake.seen[0]!.url).toMatch(/^\/healthz\?challenge=[A-Za-z0-9_-]{43}$/);
    expect(fake.seen[0]!.authorization).toBeNull();
  });

  test("the nearest wins over one further up; a fresh nonce each time", async () => {
    const outer = track(honest());
    const inner = track(honest());
    const project = mkdtempSync(join(root, "nested-"));
    plant(project, outer.url);
    const sub = join(project, "sub");
    plant(sub, inner.url);
    expect((await resolveServer({}, env(), sub)).endpoints.root).toBe(inner.url);
    expect((await resolveServer({}, env(), sub)).endpoints.root).toBe(inner.url);
    expect(outer.seen).toHaveLength(0);
    expect(inner.seen[0]!.url).not.toBe(inner.seen[1]!.url);
  });

  test("EXT_DATA_DIR names the one data directory looked at", async () => {
    const fake = track(honest());
    const dataDir = join(mkdtempSync(join(root, "envdir-")), "state");
    mkdirSync(dataDir, { mode: 0o700 });
    writeFileSync(
      join(dataDir, "server.json"),
      JSON.stringify({ url: fake.url, pid: process.pid, adminToken: TOKEN }),
      {
        mode: 0o600,
      },
    );
    expect(candidateDataDirs(env({ EXT_DATA_DIR: dataDir }), "/anywhere")).toEqual([dataDir]);
    expect((await resolveServer({}, env({ EXT_DATA_DIR: dataDir }), root)).endpoints.root).toBe(fake.url);
  });

  test("a server.json whose process is gone is passed over", async () => {
    const fake = track(honest());
    const project = mkdtempSync(join(root, "stale-"));
    plant(project, fake.url);
    const sub = join(project, "sub");
    mkdirSync(join(sub, ".ext-data"), { recursive: true });
    const dead = Bun.spawnSync(["true"]).pid;
    writeFileSync(join(sub, ".ext-data", "server.json"), JSON.stringify({ url: "http://127.0.0.1:1", pid: dead }), {
      mode: 0o600,
    });
    expect((await resolveServer({}, env(), sub)).endpoints.root).toBe(fake.url);
  });
});

describe("a data directory found by walking up must be the user's own folder", () => {
  test("a planted link to another project's data directory is skipped, saying so; the link's server gets nothing", async () => {
    const other = track(honest());
    const project = mkdtempSync(join(root, "linked-project-"));
    plant(project, other.url);
    // Another user's shared folder, where a link to this user's project was planted above the working directory.
    const shared = mkdtempSync(join(root, "shared-"));
    symlinkSync(join(project, ".ext-data"), join(shared, ".ext-data"));
    const work = join(shared, "work");
    mkdirSync(work);
    const warnings: string[] = [];
    expect(nearestServerFile(env(), work, (line) => warnings.push(line))).toBeNull();
    expect(warnings).toEqual([
      `warning: skipped ${join(shared, ".ext-data")}: it is a link, so it may not be your project's data directory`,
    ]);
    expect(other.seen).toEqual([]);
  });

  test("a data directory other users may write is skipped; the nearest proper one further up is found", async () => {
    const outer = track(honest());
    const inner = track(honest());
    const project = mkdtempSync(join(root, "writable-"));
    plant(project, outer.url);
    const sub = join(project, "sub");
    plant(sub, inner.url);
    chmodSync(join(sub, ".ext-data"), 0o777);
    const warnings: string[] = [];
    const found = nearestServerFile(env(), sub, (line) => warnings.push(line));
    expect(found?.dataDir).toBe(join(project, ".ext-data"));
    expect(warnings).toEqual([
      `warning: skipped ${join(sub, ".ext-data")}: other users may write to it, so it may not be your project's data directory`,
    ]);
  });
});

describe("nothing found: no port is guessed", () => {
  test("says how to start one or name one, and connects nowhere", async () => {
    const bystander = track(honest());
    // Another folder's server is not this folder's.
    plant(mkdtempSync(join(root, "other-")), bystander.url);
    const lonely = mkdtempSync(join(root, "lonely-"));
    const e = await resolveServer({}, env(), lonely).catch((x) => x);
    expect(e).toBeInstanceOf(UsageError);
    expect(e.message).toBe(
      `no emulator found in ${lonely} or a folder above it (none has a .ext-data of a running server): start one with \`ext serve\`, or name one with --target URL (or EXT_BASE_URL)`,
    );
    const viaNpx = await resolveServer({}, env({ npm_command: "exec" }), lonely).catch((x) => x);
    expect(viaNpx.message).toContain("start one with `npx ext serve`");
    const named = await resolveServer({}, env({ EXT_DATA_DIR: "state" }), lonely).catch((x) => x);
    expect(named.message).toStartWith(
      `no emulator found for the data directory ${join(lonely, "state")} (EXT_DATA_DIR)`,
    );
    expect(bystander.seen).toHaveLength(0);
  });
});

describe("a server that does not prove itself gets nothing but the challenge", () => {
  const refusedWith = async (prove: (nonce: string, url: string) => string | undefined, why: string) => {
    const impostor = track(fakeServer(prove));
    const project = mkdtempSync(join(root, "impostor-"));
    plant(project, impostor.url);
    const e = await resolveApi({}, env({ EXT_API_KEY: "ext_must_not_leak" }), project).catch((x) => x);
    expect(e).toBeInstanceOf(UnprovenServerError);
    expect(e.message).toBe(
      `the server at ${impostor.url} did not prove it is the emulator of ${join(project, ".ext-data")}: ${why}`,
    );
    expect(impostor.seen.map((s) => s.url.replace(/=.*/, ""))).toEqual(["/healthz?challenge"]);
    expect(impostor.seen[0]!.authorization).toBeNull();
  };

  test("a wrong proof (made with another token)", async () => {
    await refusedWith((nonce, url) => serverProof("adm_some_other_token", nonce, url), "its proof is wrong");
  });

  test("a proof made for another URL (an answer relayed from the real server)", async () => {
    await refusedWith((nonce) => serverProof(TOKEN, nonce, "http://127.0.0.1:4780"), "its proof is wrong");
  });

  test("no proof at all (a server that only says ok)", async () => {
    await refusedWith(() => undefined, "its answer carries no proof");
  });

  test("a server.json without a token: refused before any request", async () => {
    const fake = track(honest());
    const project = mkdtempSync(join(root, "tokenless-"));
    plant(project, fake.url, {});
    const e = await resolveServer({}, env(), project).catch((x) => x);
    expect(e).toBeInstanceOf(UnprovenServerError);
    expect(e.message).toContain("its server.json holds no admin token");
    expect(fake.seen).toHaveLength(0);
  });

  test("a server.json naming a host, not an IP address: refused before any request", async () => {
    // `localhost` may resolve to ::1, where another local user can listen and relay the real server's proof.
    const fake = track(fakeServer((nonce, url) => serverProof(TOKEN, nonce, url.replace("127.0.0.1", "localhost"))));
    const project = mkdtempSync(join(root, "named-"));
    plant(project, `http://localhost:${fake.server.port}`);
    const e = await resolveServer({}, env(), project).catch((x) => x);
    expect(e).toBeInstanceOf(UnprovenServerError);
    expect(e.message).toContain("its server.json names a host, not an IP address");
    expect(fake.seen).toHaveLength(0);
  });

  test("an explicit --target or EXT_BASE_URL with no admin token is the user's choice: not challenged", async () => {
    const fake = track(fakeServer(() => undefined));
    const viaFlag = await resolveServer({ target: fake.url }, env(), root);
    expect(viaFlag).toMatchObject({ endpoints: { root: fake.url }, adminToken: null });
    const viaEnv = await resolveServer({}, env({ EXT_BASE_URL: fake.url }), root);
    expect(viaEnv).toMatchObject({ endpoints: { root: fake.url }, adminToken: null });
    expect(fake.seen).toHaveLength(0);
  });

  test("an explicit server given an admin token must prove it holds it, for the address it was named by", async () => {
    const fake = track(honest("adm_given"));
    const viaFlag = await resolveServer({ target: fake.url, "admin-token": "adm_given" }, env(), root);
    expect(viaFlag).toMatchObject({ endpoints: { root: fake.url }, adminToken: "adm_given" });
    const wrong = await resolveServer({}, env({ EXT_BASE_URL: fake.url, EXT_ADMIN_TOKEN: "adm_env" }), root).catch(
      (x) => x,
    );
    expect(wrong).toBeInstanceOf(UnprovenTargetError);
    expect(wrong.message).toContain("its proof is wrong");
    // The same server named as localhost: its proof names its own address, so it does not vouch for this one.
    const byName = `http://localhost:${fake.server.port}`;
    const named = await resolveServer({ target: byName, "admin-token": "adm_given" }, env(), root).catch((x) => x);
    expect(named).toBeInstanceOf(UnprovenTargetError);
    // Only challenges came, none carrying a credential (localhost may not reach this IPv4 listener at all).
    expect(fake.seen.length).toBeGreaterThanOrEqual(2);
    expect(fake.seen.every((s) => s.url.startsWith("/healthz?challenge=") && s.authorization === null)).toBe(true);
  });
});
