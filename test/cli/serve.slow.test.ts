/**
 * `ext serve` as a user runs it: a real process, the README's curl, a clean SIGTERM or SIGINT, and a port
 * already in use reported as one line with a non-zero exit.
 */

import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { readServerFile } from "../../common/server-file";
import { cleanEnv } from "../helpers/clean-env";
import { sessionFromLogin } from "../helpers/emulator";
import { readUntil } from "../helpers/read-until";
import { extBinary } from "../helpers/run-cli";
import { waitFor } from "../helpers/wait-for";

const ROOT = join(import.meta.dir, "../..");
const DEMO_KEY = (
  JSON.parse(readFileSync(join(ROOT, "fixtures/demo.json"), "utf8")) as { accounts: { apiKeys: { key: string }[] }[] }
).accounts[0]!.apiKeys[0]!.key;

const spawned: Subprocess[] = [];
afterAll(() => {
  for (const p of spawned) if (p.exitCode === null) p.kill("SIGKILL");
});

function serve(...args: string[]) {
  // No EXT_* from the developer's shell: the flags alone decide.
  const proc = Bun.spawn([extBinary(), "serve", ...args], {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "pipe",
    env: cleanEnv(),
  });
  spawned.push(proc);
  return proc;
}

describe("ext serve", () => {
  test("the banner says how other shells find a server whose data directory is not ./.ext-data", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "ext-serve-banner-"));
    try {
      const proc = serve("--data-dir", dataDir, "--port", "0", "--log-level", "warn");
      const out = await readUntil(proc.stdout as ReadableStream<Uint8Array>, /other shells:.*\n/);
      expect(out).toContain(
        `other shells:  (commands run with EXT_DATA_DIR=${dataDir} find this server by themselves)`,
      );
      proc.kill("SIGTERM");
      expect(await proc.exited).toBe(0);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test("prints the base URL once listening; the README's curl answers 200 {extensions:[]}; SIGTERM exits 0", async () => {
    const proc = serve("--memory", "--port", "0", "--seed", "fixtures/demo.json", "--log-level", "warn");
    // The banner ends with the demo keys; the first line is the base URL.
    const out = await readUntil(proc.stdout as ReadableStream<Uint8Array>, /api key: .*\n/);
    const match = /^ext emulator listening on (http:\/\/127\.0\.0\.1:(\d+)\/developer\/v1)\n/.exec(out);
    expect(match).not.toBeNull();
    const baseUrl = match![1]!;
    // A pipe is not a terminal: the key's line says where it is, not what it is.
    expect(out).toContain(
      'api key:       not printed: output is not a terminal; as written in the fixture  (account acc_demo, "demo")',
    );
    expect(out).not.toContain(DEMO_KEY);

    const res = await fetch(`${baseUrl}/extensions`, { headers: { Authorization: `Bearer ${DEMO_KEY}` } });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('{"extensions":[]}');
    const health = await fetch(baseUrl.replace("/developer/v1", "/healthz"));
    expect(await health.json()).toEqual({ status: "ok" });

    // A second server on the same port: one line on stderr, exit 1 (a runtime error), no stack trace.
    const second = serve("--memory", "--port", match![2]!);
    const [code, stderr] = await Promise.all([second.exited, new Response(second.stderr as ReadableStream).text()]);
    expect(code).toBe(1);
    const lines = stderr.trim().split("\n");
    expect(lines, stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/^error: .*in use/);
    expect(stderr).not.toMatch(/^\s+at /m);

    // The first server is still there, unharmed.
    expect((await fetch(`${baseUrl}/extensions`, { headers: { Authorization: `Bearer ${DEMO_KEY}` } })).status).toBe(
      200,
    );

    proc.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
  });

  test("a fixture key without `key` is generated, given once (in the ready file, not on a piped banner), and works", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ext-serve-gen-"));
    try {
      const fixture = join(dir, "fixture.json");
      const readyFile = join(dir, "ready.json");
      writeFileSync(
        fixture,
        JSON.stringify({
          accounts: [{ id: "acc_gen", name: "Gen", apiKeys: [{ name: "ci", scopes: ["extensions:read"] }] }],
        }),
      );
      /** Starts, hands the ready file to `whileUp`, stops with SIGTERM, and returns everything it printed. */
      const run = async (
        whileUp: (ready: {
          baseUrl: string;
          apiKeys: { accountId: string; name: string; key: string }[];
        }) => Promise<void>,
      ) => {
        const args = ["--data-dir", join(dir, "data"), "--port", "0", "--seed", fixture, "--log-level", "warn"];
        const proc = serve(...args, "--ready-file", readyFile);
        const head = await readUntil(proc.stdout as ReadableStream<Uint8Array>, /listening on \S+\n/);
        await whileUp(JSON.parse(readFileSync(readyFile, "utf8")));
        proc.kill("SIGTERM");
        expect(await proc.exited).toBe(0);
        return head + (await readUntil(proc.stdout as ReadableStream<Uint8Array>, /(?!)/)); // never matches: read to the end
      };
      let key = "";
      const first = await run(async (ready) => {
        expect(ready.apiKeys).toEqual([
          { accountId: "acc_gen", name: "ci", key: expect.stringMatching(/^ext_[0-9A-Za-z]{40}$/) },
        ]);
        key = ready.apiKeys[0]!.key;
      });
      expect(first).toContain(
        `api key:       not printed: output is not a terminal; in the ready file's apiKeys  (account acc_gen, "ci", generated)`,
      );
      expect(first).not.toContain(key);
      const second = await run(async (ready) => {
        expect(ready.apiKeys).toEqual([]);
        expect(
          (await fetch(`${ready.baseUrl}/extensions`, { headers: { Authorization: `Bearer ${key}` } })).status,
        ).toBe(200);
      });
      expect(second).not.toContain("generated");
      expect(second).not.toContain(key);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test.each(["SIGTERM", "SIGINT"] as const)(
    "%s lets an in-flight request finish, then closes the database cleanly (exit 0)",
    async (signal) => {
      const dir = mkdtempSync(join(tmpdir(), "ext-serve-drain-"));
      try {
        const proc = serve("--data-dir", dir, "--port", "0", "--seed", "fixtures/demo.json", "--log-level", "warn");
        const head = await readUntil(proc.stdout as ReadableStream<Uint8Array>, /listening on \S+\n/);
        const baseUrl = /listening on (\S+)\n/.exec(head)![1]!;
        const adminUrl = baseUrl.replace("/developer/v1", "/_emulator");
        // The owner's token, from the data directory's server.json.
        const owner = { authorization: `Bearer ${readServerFile(dir)?.adminToken}` };
        // A latency-only fault holds the next GET /extensions for 1.5 s: a request surely in flight.
        const fault = await fetch(`${adminUrl}/faults`, {
          method: "POST",
          headers: { "content-type": "application/json", ...owner },
          body: JSON.stringify({ method: "GET", path: "/extensions", latencyMs: 1500, times: 1 }),
        });
        expect(fault.status).toBe(201);
        const inFlight = fetch(`${baseUrl}/extensions`, { headers: { Authorization: `Bearer ${DEMO_KEY}` } });
        // Until the rule has fired, i.e. the request is inside the server.
        await waitFor(async () => {
          const rules = (await (await fetch(`${adminUrl}/faults`, { headers: owner })).json()) as {
            faults: { fired: number }[];
          };
          return rules.faults[0]?.fired === 1;
        }, "the held request to reach the server");
        proc.kill(signal);
        const res = await inFlight;
        expect(res.status).toBe(200);
        expect(await res.text()).toBe('{"extensions":[]}');
        expect(await proc.exited).toBe(0);
        expect(await new Response(proc.stderr as ReadableStream).text()).toContain(
          `[ext] ${signal}: draining requests`,
        );
        // SQLite removes the write-ahead log when the last connection closes cleanly.
        expect(existsSync(join(dir, "ext.sqlite"))).toBe(true);
        expect(existsSync(join(dir, "ext.sqlite-wal"))).toBe(false);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  test("bound to a non-loopback address, a generated admin token opens the control plane; a piped banner names the ready file, not the token", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ext-serve-token-"));
    try {
      const readyFile = join(dir, "ready.json");
      const proc = serve(
        "--memory",
        "--host",
        "0.0.0.0",
        "--port",
        "0",
        "--log-level",
        "warn",
        "--ready-file",
        readyFile,
      );
      const head = await readUntil(proc.stdout as ReadableStream<Uint8Array>, /admin token:.*\n/);
      const { adminToken: token } = JSON.parse(readFileSync(readyFile, "utf8")) as { adminToken: string };
      expect(token).toStartWith("adm_");
      expect(head).toContain(`admin token:   in the ready file ${readyFile} (not printed: output is not a terminal)\n`);
      expect(head).not.toContain(token);
      const adminUrl = /control plane: (\S+)\n/.exec(head)![1]!;
      expect((await fetch(`${adminUrl}/state`)).status).toBe(401);
      expect((await fetch(`${adminUrl}/state`, { headers: { Authorization: `Bearer ${token}` } })).status).toBe(200);
      proc.kill("SIGTERM");
      expect(await proc.exited).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("neither the banner nor the ready file holds a login link or code; the ready file's token logs a script in, by header", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ext-serve-link-"));
    try {
      const readyFile = join(dir, "ready.json");
      const proc = serve("--memory", "--port", "0", "--log-level", "warn", "--ready-file", readyFile);
      const head = await readUntil(proc.stdout as ReadableStream<Uint8Array>, /admin token:.*\n/);
      const ready = JSON.parse(readFileSync(readyFile, "utf8")) as {
        url: string;
        dashboardUrl: string;
        adminToken: string;
      };
      expect(JSON.stringify(ready)).not.toContain("/dashboard/login");
      expect(head).toContain(`  dashboard:     at an address of its own each start  (to log a browser in: \``);
      expect(head).not.toContain("/dashboard/login");
      const adminUrl = /control plane: (\S+)\n/.exec(head)![1]!;
      expect((await fetch(`${adminUrl}/state`)).status).toBe(401);
      const login = () =>
        fetch(`${ready.dashboardUrl}/dashboard/login`, {
          method: "POST",
          headers: { authorization: `Bearer ${ready.adminToken}` },
          redirect: "manual",
        });
      const session = await sessionFromLogin(await login());
      expect((await fetch(`${adminUrl}/state`, { headers: { "x-ext-session": session } })).status).toBe(200);
      // In a URL, the token opens nothing.
      const inUrl = await fetch(`${ready.dashboardUrl}/dashboard/login?token=${ready.adminToken}`, {
        redirect: "manual",
      });
      expect(inUrl.status).toBe(400);
      proc.kill("SIGTERM");
      expect(await proc.exited).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("--open-control-plane: the banner warns and no header is needed; with a non-loopback --host it is refused", async () => {
    const proc = serve("--memory", "--port", "0", "--log-level", "warn", "--open-control-plane");
    const head = await readUntil(proc.stdout as ReadableStream<Uint8Array>, /WARNING:.*\n.*\n/);
    expect(head).toContain("WARNING:       --open-control-plane: any local user");
    const adminUrl = /control plane: (\S+)\n/.exec(head)![1]!;
    expect((await fetch(`${adminUrl}/state`)).status).toBe(200);
    proc.kill("SIGTERM");
    expect(await proc.exited).toBe(0);

    const refused = serve("--memory", "--port", "0", "--host", "0.0.0.0", "--open-control-plane");
    const [code, stderr] = await Promise.all([refused.exited, new Response(refused.stderr as ReadableStream).text()]);
    expect(code).toBe(2);
    expect(stderr).toContain("--open-control-plane opens the control plane to anyone who can reach 0.0.0.0");
  });

  test("a bad flag value → one-line error, exit 2", async () => {
    const proc = serve("--memory", "--port", "70000");
    const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr as ReadableStream).text()]);
    expect(code).toBe(2);
    expect(stderr.trim()).toBe('error: port must be an integer from 0 to 65535 (got "70000")');
  });
});
