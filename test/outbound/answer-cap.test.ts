/**
 * A hostile server's endless answer is read only so far: every answer a tool reads whole (JSON, a page, text,
 * or any body where the API answers JSON) stops at 16 MiB with one clear line, instead of filling memory. Real
 * sockets: a server writing JSON chunks until the reader goes away, the CLI as a subprocess, the Bun helper
 * in process.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serverProof } from "../../common/server-proof-hmac";
import { connectEmulator } from "../../tools/helper/start-emulator";
import { runCli } from "../helpers/run-cli";

const TOKEN = "adm_endless_answer_token_0123456789abcdef";
const CHUNK = new TextEncoder().encode(`${JSON.stringify({ id: "ext_x", name: "x".repeat(4000) })},`);

let cwd: string;
const servers: Array<ReturnType<typeof Bun.serve>> = [];
beforeAll(() => {
  cwd = mkdtempSync(join(tmpdir(), "ext-answer-cap-"));
});
afterAll(() => {
  for (const s of servers) s.stop(true);
  rmSync(cwd, { recursive: true, force: true });
});

/** Proves itself with TOKEN; answers every other request with a JSON array that never ends, typed `type`. */
function endless(type: string) {
  let sent = 0;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const u = new URL(req.url);
      const challenge = u.searchParams.get("challenge");
      if (challenge) return Response.json({ status: "ok", proof: serverProof(TOKEN, challenge, u.origin) });
      const body = new ReadableStream<Uint8Array>({
        start: (c) => c.enqueue(new TextEncoder().encode('{"extensions":[')),
        pull(c) {
          sent += CHUNK.length;
          c.enqueue(CHUNK);
        },
      });
      return new Response(body, { headers: { "content-type": type } });
    },
  });
  servers.push(server);
  return { url: `http://127.0.0.1:${server.port}`, sent: () => sent };
}

const MIB = 1024 * 1024;

for (const type of ["application/json", "application/octet-stream"])
  test(`ext extensions list: an endless ${type} answer stops at 16 MiB with one line`, async () => {
    const s = endless(type);
    const r = await runCli(["extensions", "list", "--target", s.url], { cwd, env: { EXT_API_KEY: "ext_k" } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${s.url} answered GET /developer/v1/extensions with more than 16 MiB`);
    expect(r.stderr).not.toContain("    at ");
    // It stopped reading: what was sent is about the cap (plus what sat in the sockets' buffers).
    expect(s.sent()).toBeLessThan(64 * MIB);
  });

test("the Bun helper: an endless answer from a proven server rejects at 16 MiB", async () => {
  const s = endless("application/json");
  const conn = connectEmulator({
    EXT_BASE_URL: `${s.url}/developer/v1`,
    EXT_ADMIN_URL: `${s.url}/_emulator`,
    EXT_API_KEY: "ext_k",
    EXT_ADMIN_TOKEN: TOKEN,
  });
  const e = await conn.requests(1).then(
    () => null,
    (x: Error) => x,
  );
  expect(e?.message).toContain(`${s.url} answered GET /_emulator/requests with more than 16 MiB`);
  expect(s.sent()).toBeLessThan(64 * MIB);
});
