/**
 * Answers the CLI does not expect get one clear line each, through one reader: a redirect (never followed,
 * and `ext health` says it is not an emulator), JSON of another shape, HTML, an empty body, a 401 from the
 * control plane. Never a TypeError, never "Body already used". Real sockets: small servers answering each
 * case, the real emulator for the control plane, the CLI as a subprocess.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEMO_KEY, startTestEmulator, stopTestEmulator, type TestEmulator } from "../helpers/emulator";
import { runCli } from "../helpers/run-cli";

let cwd: string;
let emu: TestEmulator;
const servers: Array<ReturnType<typeof Bun.serve>> = [];
beforeAll(async () => {
  cwd = mkdtempSync(join(tmpdir(), "ext-unexpected-"));
  emu = await startTestEmulator();
});
afterAll(async () => {
  for (const s of servers) s.stop(true);
  await stopTestEmulator(emu);
  rmSync(cwd, { recursive: true, force: true });
});

/** A server answering every request with `answer()`, recording the paths it was asked. */
function answering(answer: (req: Request) => Response | Promise<Response>) {
  const seen: { path: string; authorization: string | null }[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const u = new URL(req.url);
      seen.push({ path: u.pathname + u.search, authorization: req.headers.get("authorization") });
      return answer(req);
    },
  });
  servers.push(server);
  return { seen, url: `http://127.0.0.1:${server.port}` };
}

const ext = (args: string[], env: Record<string, string> = {}) => runCli(args, { cwd, env });

const neverTypeError = (r: { stderr: string }) => {
  expect(r.stderr).not.toContain("TypeError");
  expect(r.stderr).not.toContain("Body already used");
  expect(r.stderr).not.toContain("undefined is not");
};

describe("a server that never answers", () => {
  test("ext health --url: a server that never answers, or never ends its answer, is named with the wait and the flag that sets it", async () => {
    // One never sends a byte back; the other sends its headers, then a body that never ends.
    const silent = answering(() => new Promise<Response>(() => undefined));
    const stalled = answering(() => new Response(new ReadableStream({ pull: () => new Promise(() => undefined) })));
    for (const { url } of [silent, stalled]) {
      const r = await ext(["health", "--url", url, "--timeout", "300"]);
      expect(r.stderr).toContain(`no emulator answered at ${url}/healthz within 300 ms (--timeout)`);
      expect(r.code).toBe(1);
    }
  });
});

describe("redirects are never followed", () => {
  test("ext health --url: a 307 to a real emulator is not an emulator; the other server is never asked", async () => {
    const elsewhere = answering(() => Response.json({ status: "ok" }));
    const redirecting = answering(() => Response.redirect(`${elsewhere.url}/healthz`, 307));
    const r = await ext(["health", "--url", redirecting.url]);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(`${redirecting.url}/healthz answered a redirect (307 to ${elsewhere.url}/healthz)`);
    expect(r.stderr).toContain("not an emulator");
    expect(r.code).toBe(1);
    expect(elsewhere.seen).toEqual([]);
  });

  test("an API call answered by a redirect: the key goes nowhere else, the line names where it was sent", async () => {
    const elsewhere = answering(() => Response.json({ extensions: [] }));
    const redirecting = answering(() => Response.redirect(`${elsewhere.url}/developer/v1/extensions`, 302));
    const r = await ext(["extensions", "list", "--target", redirecting.url], { EXT_API_KEY: DEMO_KEY });
    neverTypeError(r);
    expect(r.stderr).toContain(`error: ${redirecting.url} answered GET /developer/v1/extensions with a redirect`);
    expect(r.stderr).toContain(`(302 to ${elsewhere.url}/developer/v1/extensions)`);
    expect(r.stderr).toContain("redirects are not followed");
    expect(r.code).toBe(1);
    expect(elsewhere.seen).toEqual([]);
  });
});

describe("answers of another shape", () => {
  test('ext extensions list against {"status":"ok"}: not the API\'s answer, no TypeError', async () => {
    const other = answering(() => Response.json({ status: "ok" }));
    const r = await ext(["extensions", "list", "--target", other.url], { EXT_API_KEY: DEMO_KEY });
    neverTypeError(r);
    expect(r.stderr).toContain(
      `error: the server at ${other.url} answered something that is not the emulator's API (GET /developer/v1/extensions got 200 with JSON that is not the API's ({"status":"ok"}))`,
    );
    expect(r.code).toBe(1);
  });

  test("an empty 200 and an HTML page each get their own line", async () => {
    const empty = answering(() => new Response("", { headers: { "content-type": "application/json" } }));
    const r1 = await ext(["extensions", "list", "--target", empty.url], { EXT_API_KEY: DEMO_KEY });
    neverTypeError(r1);
    expect(r1.stderr).toContain("GET /developer/v1/extensions got 200 with an empty answer");
    expect(r1.code).toBe(1);
    const html = answering(
      () => new Response("<html><title>Sign in</title></html>", { headers: { "content-type": "text/html" } }),
    );
    const r2 = await ext(["extensions", "list", "--target", html.url], { EXT_API_KEY: DEMO_KEY });
    neverTypeError(r2);
    expect(r2.stderr).toContain(`${html.url} did not answer as an ext emulator`);
    expect(r2.stderr).toContain('an HTML page titled "Sign in"');
    expect(r2.code).toBe(1);
  });

  test("ext versions list and ext extensions list against lists of the wrong objects: not the API's answer", async () => {
    const other = answering(() =>
      Response.json({ versions: [{}, { id: 5, status: null }], extensions: [{ id: "ext_1" }] }),
    );
    for (const args of [
      ["versions", "list", "--extension", "ext_x"],
      ["extensions", "list"],
    ]) {
      const r = await ext([...args, "--target", other.url], { EXT_API_KEY: DEMO_KEY });
      neverTypeError(r);
      expect(r.stderr).toContain("answered something that is not the emulator's API");
      expect(r.code).toBe(1);
    }
  });

  test("ext versions list against a list of the wrong kind: not the API's answer", async () => {
    const other = answering(() => Response.json({ versions: "none" }));
    const r = await ext(["versions", "list", "--extension", "ext_x", "--target", other.url], {
      EXT_API_KEY: DEMO_KEY,
    });
    neverTypeError(r);
    expect(r.stderr).toContain("answered something that is not the emulator's API");
    expect(r.code).toBe(1);
  });

  test("members of the wrong type inside a well-formed answer are shown as JSON, never a TypeError", async () => {
    const item = {
      id: "ext_1",
      slug: "one",
      name: "One",
      visibility: "private",
      status: 7,
      installCount: 0,
      currentVersionId: {},
      createdAt: "2026-01-01T00:00:00.000Z",
      updatedAt: "2026-01-01T00:00:00.000Z",
    };
    const other = answering((req) =>
      new URL(req.url).pathname.endsWith("/secrets")
        ? Response.json({ keys: [{ name: "x" }, 5] })
        : Response.json({ extensions: [item] }),
    );
    for (const args of [
      ["extensions", "list"],
      ["secrets", "list", "--extension", "ext_1"],
    ]) {
      const r = await ext([...args, "--target", other.url], { EXT_API_KEY: DEMO_KEY });
      neverTypeError(r);
      expect(r.stderr).not.toContain("is not a function");
    }
  });
});

describe("a 401 from the control plane", () => {
  test("ext export DIR with no admin token says the control plane needs it and how to give it", async () => {
    const dir = join(cwd, "export-no-token");
    const r = await ext(["export", dir, "--target", emu.url]);
    neverTypeError(r);
    expect(r.stderr).toContain(`error: the control plane at ${emu.url} needs its admin token`);
    expect(r.stderr).toContain("EXT_ADMIN_TOKEN");
    expect(r.code).toBe(1);
    expect(existsSync(dir)).toBe(false);
  });

  test("ext logs with no admin token: the same line", async () => {
    const r = await ext(["logs", "--target", emu.url]);
    neverTypeError(r);
    expect(r.stderr).toContain(`error: the control plane at ${emu.url} needs its admin token`);
    expect(r.code).toBe(1);
  });

  test("a token the server refuses (sent unchallenged on the user's word): said so, not as a missing one", async () => {
    const r = await ext(["logs", "--target", emu.url], {
      EXT_ADMIN_TOKEN: "adm_not_this_servers_token_0123456789",
      EXT_TRUST_TARGET: "1",
    });
    neverTypeError(r);
    expect(r.stderr).toContain(`error: the control plane at ${emu.url} refused the admin token`);
    expect(r.code).toBe(1);
  });
});
