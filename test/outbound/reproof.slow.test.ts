/**
 * A command that keeps talking to a server proves it again once its connection breaks: `ext deploy --wait`
 * challenged its server once and then sent the key with every poll to whatever answered at that address.
 * Here the server stops while the deploy waits, and a recorder takes its port at once (as another local user
 * could within milliseconds): the recorder gets a challenge it cannot answer, never a key; the deploy ends
 * saying the server is no longer the one it started with. A server that only closed an idle connection is
 * proven again and the wait goes on. Real sockets: an in-process emulator found through a planted
 * server.json, the CLI as a subprocess.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Fixture } from "../../server/seed/model";
import { cleanEnv } from "../helpers/clean-env";
import { startTestEmulator, stopTestEmulator, type TestEmulator } from "../helpers/emulator";
import { extBinary } from "../helpers/run-cli";
import { waitFor } from "../helpers/wait-for";

const KEY = "ext_reproof_key_0123456789abcdefghijkl";

const FIXTURE: Fixture = {
  accounts: [
    {
      id: "acc_wait",
      name: "Wait",
      apiKeys: [{ name: "ci", key: KEY, scopes: ["*"] }],
      extensions: [{ id: "ext_wait", name: "Wait Board" }],
    },
  ],
};

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "ext-reproof-"));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A project folder whose .ext-data/server.json names `emu` (this process runs it, so the pid is alive). */
function project(emu: TestEmulator): string {
  const dir = mkdtempSync(join(work, "project-"));
  mkdirSync(join(dir, ".ext-data"), { mode: 0o700 });
  writeFileSync(
    join(dir, ".ext-data", "server.json"),
    JSON.stringify({ url: emu.url, pid: process.pid, adminToken: emu.runtime.control.adminToken }),
    { mode: 0o600 },
  );
  mkdirSync(join(dir, "board"));
  writeFileSync(join(dir, "board", "manifest.json"), JSON.stringify({ version: "1.0.0" }));
  return dir;
}

/** A folder with the extension to deploy and no data directory up from it that matters. */
function boardOnly(): string {
  const dir = mkdtempSync(join(work, "elsewhere-"));
  mkdirSync(join(dir, "board"));
  writeFileSync(join(dir, "board", "manifest.json"), JSON.stringify({ version: "1.0.0" }));
  return dir;
}

interface Seen {
  path: string;
  authorization: string | null;
}

/** A listener on `port` once it is free, answering like an emulator that holds no token; records everything. */
async function takePort(port: number) {
  const seen: Seen[] = [];
  const server = await waitFor(() => {
    try {
      return Bun.serve({
        hostname: "127.0.0.1",
        port,
        fetch(req) {
          const url = new URL(req.url);
          seen.push({ path: url.pathname + url.search, authorization: req.headers.get("authorization") });
          if (url.pathname === "/healthz") return Response.json({ status: "ok" });
          return Response.json({ versions: [] });
        },
      });
    } catch {
      return null;
    }
  }, `port ${port} to be free`);
  return { server, seen };
}

function deployWait(cwd: string, env: Record<string, string> = {}) {
  const proc = Bun.spawn([extBinary(), "deploy", "board", "--extension", "ext_wait", "--wait", "--timeout", "60"], {
    cwd,
    env: cleanEnv(env),
    stdout: "pipe",
    stderr: "pipe",
  });
  let stderr = "";
  const decoder = new TextDecoder();
  const reading = (async () => {
    for await (const chunk of proc.stderr) stderr += decoder.decode(chunk, { stream: true });
  })();
  const finished = Promise.all([proc.exited, new Response(proc.stdout).text(), reading]).then(([code, stdout]) => ({
    code,
    stdout,
    stderr,
  }));
  let result: Awaited<typeof finished> | null = null;
  void finished.then((r) => (result = r));
  /** Until the deploy's stderr says `text` (a failure quotes all it said). */
  const said = (text: string) =>
    waitFor(() => stderr.includes(text) || (result !== null && "ended"), `the deploy to say "${text}"`).then((got) => {
      if (got === "ended") throw new Error(`the deploy ended before saying "${text}": ${stderr}`);
    });
  return { proc, stderr: () => stderr, ended: () => result, done: () => finished, said };
}

describe("ext deploy --wait, its server stopped and its port taken", () => {
  // Found by its folder (the token from server.json), or named by the banner's export line with a key only.
  for (const how of ["found", "named with a key only"] as const)
    test(`${how}: the key never reaches the new listener: it is challenged, fails, and the deploy ends saying so`, async () => {
      const emu = await startTestEmulator({ fixture: FIXTURE });
      const dir = project(emu);
      const port = Number(new URL(emu.url).port);
      const deploy = deployWait(
        how === "found" ? dir : boardOnly(),
        how === "found" ? {} : { EXT_BASE_URL: emu.baseUrl, EXT_API_KEY: KEY },
      );
      let taker: Awaited<ReturnType<typeof takePort>> | null = null;
      try {
        await deploy.said("waiting up to 60 s");
        // Held still while the port changes hands: a poll between the two listeners would find nothing there
        // (a refused connection, its own error), not the stranger this test is about.
        deploy.proc.kill("SIGSTOP");
        await stopTestEmulator(emu);
        taker = await takePort(port);
        deploy.proc.kill("SIGCONT");
        const leaked = () => taker?.seen.filter((s) => s.authorization !== null) ?? [];
        await waitFor(() => deploy.ended() ?? leaked().length > 0, "the deploy to end, or a credential to leak");
        expect(leaked()).toEqual([]);
        const r = await deploy.done();
        expect(r.stderr).toContain(`the server at ${emu.url} is no longer the one this command started with`);
        expect(r.code).toBe(1);
        expect(taker.seen.length).toBeGreaterThan(0);
        expect(taker.seen.every((s) => s.path.startsWith("/healthz?challenge="))).toBe(true);
      } finally {
        deploy.proc.kill("SIGCONT");
        deploy.proc.kill();
        taker?.server.stop(true);
        await stopTestEmulator(emu);
      }
    }, 30_000);

  test("the same server, its idle connection closed, is proven again and the wait goes on to the approval", async () => {
    // The server closes the kept connection between two polls, as its idle limit would; the limit's own timer
    // cannot be used: it fires up to 4 s early, at any moment, a POST's connection included.
    const emu = await startTestEmulator({ fixture: FIXTURE });
    const dir = project(emu);
    const deploy = deployWait(dir);
    const polls = async () => {
      const log = (await emu.control.GET("/_emulator/requests", { params: { query: { limit: 100 } } })).data;
      return (log?.requests ?? []).filter((e) => e.path.endsWith("/versions") && e.method === "GET").length;
    };
    try {
      await deploy.said("waiting up to 60 s");
      const text = /version (ver_[0-9a-z]+) \(/.exec(deploy.stderr())?.[1] ?? "";
      // The deploy's connection is idle between its polls (a poll takes milliseconds of each second).
      await waitFor(() => emu.closeIdleConnections() > 0, "an idle connection to close");
      const before = await polls();
      // The next poll needs a new connection, proven before the key is sent; then one more on it.
      await waitFor(async () => (await polls()) >= before + 2, "two polls after the close");
      const approved = await emu.control.POST("/_emulator/versions/{versionId}/approve", {
        params: { path: { versionId: text } },
      });
      expect(approved.response.status).toBe(200);
      const r = await deploy.done();
      expect(r.stderr).not.toContain("no longer the one");
      expect(r.code).toBe(0);
    } finally {
      deploy.proc.kill();
      await stopTestEmulator(emu);
    }
  }, 30_000);
});
