/**
 * Every outbound call of the CLI and the parity tools has one timeout: a target that accepts the connection
 * and never answers ends the command with a line naming the URL and the wait (`ext conformance` once
 * printed nothing for over two minutes). EXT_REQUEST_TIMEOUT sets it (seconds). Real sockets: a listener
 * that accepts and stays silent, the CLI as a subprocess.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cleanEnv } from "../helpers/clean-env";
import { extBinary } from "../helpers/run-cli";
import { waitFor } from "../helpers/wait-for";

let silent: Server;
let url: string;
const sockets: Socket[] = [];
let cwd: string;
beforeAll(async () => {
  silent = createServer((socket) => {
    sockets.push(socket);
    socket.on("error", () => {});
  });
  await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
  const address = silent.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  url = `http://127.0.0.1:${address.port}`;
  cwd = mkdtempSync(join(tmpdir(), "ext-timeouts-"));
});
afterAll(() => {
  for (const s of sockets) s.destroy();
  silent.close();
  rmSync(cwd, { recursive: true, force: true });
});

/** Runs the CLI; a run still going after `bound` ms is killed and reported as such. */
function ext(args: string[], env: Record<string, string>) {
  const proc = Bun.spawn([extBinary(), ...args], {
    cwd,
    env: cleanEnv(env),
    stdout: "pipe",
    stderr: "pipe",
  });
  let result: { code: number; stdout: string; stderr: string } | null = null;
  void Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]).then(
    ([code, stdout, stderr]) => (result = { code, stdout, stderr }),
  );
  return {
    async end() {
      try {
        return await waitFor(() => result, `ext ${args[0]} to end`, 15_000);
      } finally {
        proc.kill("SIGKILL");
      }
    },
  };
}

describe("a target that accepts and never answers", () => {
  test("ext conformance ends with the URL and the wait (EXT_REQUEST_TIMEOUT=1)", async () => {
    const r = await ext(["conformance", "--target", `${url}/developer/v1`], {
      EXT_API_KEY: "ext_timeout_key_0123456789abcdef",
      EXT_REQUEST_TIMEOUT: "1",
    }).end();
    expect(r.stderr).toContain(`${url} did not answer`);
    expect(r.stderr).toContain("within 1 s");
    expect(r.stderr).toContain("EXT_REQUEST_TIMEOUT");
    expect(r.code).toBe(1);
  }, 20_000);

  test("ext extensions list ends the same way", async () => {
    const r = await ext(["extensions", "list", "--target", url], {
      EXT_API_KEY: "ext_timeout_key_0123456789abcdef",
      EXT_REQUEST_TIMEOUT: "1",
    }).end();
    expect(r.stderr).toContain(`${url} did not answer GET /developer/v1/extensions within 1 s`);
    expect(r.code).toBe(1);
  }, 20_000);

  test("a timeout that is not a whole number of seconds is refused before anything is sent", async () => {
    const r = await ext(["extensions", "list", "--target", url], {
      EXT_API_KEY: "ext_timeout_key_0123456789abcdef",
      EXT_REQUEST_TIMEOUT: "soon",
    }).end();
    expect(r.stderr).toContain('EXT_REQUEST_TIMEOUT must be a whole number of seconds from 1 to 3600 (got "soon")');
    expect(r.code).toBe(2);
  }, 20_000);
});
