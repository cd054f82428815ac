/**
 * Whom the compiled `ext` trusts with a key and a secret when no --target is given: the server of the nearest
 * data directory up from its folder, once that server has answered a fresh challenge with the admin token of
 * its server.json. Impostors here are real listeners on free ports that record every byte they are sent.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { serverProof } from "../../common/server-proof-hmac";
import { BUILD_TIMEOUT_MS, type Built, buildBinary, cleanEnv, run, serve } from "./helpers";

const TOKEN = "adm_binary_test_token_0123456789abcdefghijk";
const API_KEY = "ext_key_that_must_not_leak_4f3e2d1c";
const VALUE = "tok_secret_value_that_must_not_leak_9a8b";

let built: Built;
beforeAll(() => {
  built = buildBinary();
}, BUILD_TIMEOUT_MS);
const listeners: Array<ReturnType<typeof Bun.serve>> = [];
afterAll(() => {
  for (const l of listeners) l.stop(true);
  built?.cleanup();
});

/** A listener that records each request whole (line, headers, body); /healthz answers with `prove`. */
function listener(prove: (nonce: string, url: string) => string | undefined) {
  const seen: string[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const url = new URL(req.url);
      seen.push(`${req.method} ${url.pathname}${url.search}\n${JSON.stringify([...req.headers])}\n${await req.text()}`);
      if (url.pathname === "/healthz") {
        const proof = prove(url.searchParams.get("challenge") ?? "", `http://127.0.0.1:${server.port}`);
        return Response.json({ status: "ok", ...(proof === undefined ? {} : { proof }) });
      }
      // What a real emulator answers to a stored secret.
      return new Response(null, { status: 204 });
    },
  });
  listeners.push(server);
  return { seen, url: `http://127.0.0.1:${server.port}` };
}

/** `<dir>/.ext-data/server.json` as `ext serve` writes it, naming a live process (this test's). */
function plant(dir: string, url: string): void {
  mkdirSync(join(dir, ".ext-data"), { recursive: true, mode: 0o700 });
  writeFileSync(join(dir, ".ext-data", "server.json"), JSON.stringify({ url, pid: process.pid, adminToken: TOKEN }), {
    mode: 0o600,
  });
}

/** `ext secrets set API_TOKEN` in `cwd`, the value on stdin and the key in EXT_API_KEY, as a user types it. */
async function setSecret(cwd: string) {
  const proc = Bun.spawn([built.bin, "secrets", "set", "API_TOKEN", "--extension", "ext_x"], {
    cwd,
    env: cleanEnv({ EXT_API_KEY: API_KEY }),
    stdin: new TextEncoder().encode(`${VALUE}\n`),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  return { code: await proc.exited, stdout, stderr };
}

describe("ext secrets set with no --target", () => {
  test("a server that answers the challenge with a wrong proof gets the challenge only: no key, no value", async () => {
    const impostor = listener((nonce, url) => serverProof("adm_a_token_it_guessed", nonce, url));
    const project = mkdtempSync(join(built.work, "impostor-"));
    plant(project, impostor.url);
    const r = await setSecret(project);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(
      `the server at ${impostor.url} did not prove it is the emulator of ${join(project, ".ext-data")}: its proof is wrong`,
    );
    expect(impostor.seen).toHaveLength(1);
    expect(impostor.seen[0]).toStartWith("GET /healthz?challenge=");
    for (const leak of [API_KEY, VALUE, TOKEN, "authorization"]) expect(impostor.seen.join("\n")).not.toContain(leak);
  });

  test("another folder's server is not used: nothing found says how to start or name one, and sends nothing", async () => {
    // Even one that would prove itself: it belongs to a folder this command is not in.
    const elsewhere = listener((nonce, url) => serverProof(TOKEN, nonce, url));
    plant(mkdtempSync(join(built.work, "other-project-")), elsewhere.url);
    const lonely = mkdtempSync(join(built.work, "lonely-"));
    const r = await setSecret(lonely);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `no emulator found in ${lonely} or a folder above it (none has a .ext-data of a running server): start one with \`ext serve\`, or name one with --target URL (or EXT_BASE_URL)`,
    );
    expect(r.stderr).not.toContain("--help");
    expect(elsewhere.seen).toHaveLength(0);
  });

  test("from a subfolder it finds the parent's server, verifies it, then sends the value", async () => {
    const emulator = listener((nonce, url) => serverProof(TOKEN, nonce, url));
    const project = mkdtempSync(join(built.work, "project-"));
    plant(project, emulator.url);
    const deep = join(project, "src", "deep");
    mkdirSync(deep, { recursive: true });
    const r = await setSecret(deep);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("stored secret API_TOKEN for ext_x (the value is never shown)\n");
    expect(emulator.seen).toHaveLength(2);
    expect(emulator.seen[0]).toStartWith("GET /healthz?challenge=");
    expect(emulator.seen[0]).not.toContain(API_KEY);
    expect(emulator.seen[1]).toStartWith("PUT /developer/v1/extensions/ext_x/secrets/API_TOKEN\n");
    expect(emulator.seen[1]).toContain(VALUE);
  });
});

describe("with a real `ext serve`", () => {
  test("a command in a subfolder finds it, proves it and acts on its control plane with the token it never typed", async () => {
    const project = mkdtempSync(join(built.work, "real-"));
    const server = await serve(built.bin, [], project);
    try {
      const deep = join(project, "packages", "board");
      mkdirSync(deep, { recursive: true });
      const created = await run(built.bin, ["extensions", "create", "--name", "Deep", "--json"], { cwd: deep });
      expect(created.stderr).toContain(`using account acc_local (Local Developer) on ${server.url}`);
      expect(created.code).toBe(0);
      // The request log is the control plane's: refused without the token, read here with the server.json's.
      const logs = await run(built.bin, ["logs", "--limit", "1", "--json"], { cwd: deep });
      expect(logs.code).toBe(0);
      expect(JSON.parse(logs.stdout)).toMatchObject({ path: "/developer/v1/extensions", status: 201 });
      expect((await fetch(`${server.adminUrl}/requests`)).status).toBe(401);
    } finally {
      await server.stop();
    }
  });

  test("--host localhost: server.json names the address bound, and `ext health` finds and proves it there", async () => {
    const project = mkdtempSync(join(built.work, "named-"));
    const server = await serve(built.bin, ["--host", "localhost"], project);
    try {
      const info = JSON.parse(readFileSync(join(project, ".ext-data", "server.json"), "utf8"));
      expect(info.url).toMatch(/^http:\/\/(127\.0\.0\.1|\[::1\]):\d+$/);
      expect(server.url).toBe(info.url);
      const health = await run(built.bin, ["health"], { cwd: project });
      expect(health.stderr).toBe("");
      expect(health.stdout).toBe(`ok: ${info.url}\n`);
      expect(health.code).toBe(0);
    } finally {
      await server.stop();
    }
  });
});

describe("ext health with no --url", () => {
  test("vouches for no guessed port: with nothing found it says how to start or name one", async () => {
    const lonely = mkdtempSync(join(built.work, "health-lonely-"));
    const r = await run(built.bin, ["health"], { cwd: lonely });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(`no emulator found in ${lonely} or a folder above it`);
  });

  test("a found server that does not prove itself is not healthy", async () => {
    const impostor = listener(() => undefined);
    const project = mkdtempSync(join(built.work, "health-impostor-"));
    plant(project, impostor.url);
    const r = await run(built.bin, ["health"], { cwd: project });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(`the server at ${impostor.url} did not prove it is the emulator`);
    expect(impostor.seen).toHaveLength(1);
  });
});
