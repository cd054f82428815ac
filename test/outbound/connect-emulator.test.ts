/**
 * Both helpers' `connectEmulator()` (Bun: tools/helper/start-emulator.ts; Node: packaging/npm/src) prove the server
 * before the first call that sends the admin token or the key: a listener at the variables' address that
 * cannot answer the challenge gets the challenge and nothing else, and the call rejects saying why. The real
 * emulator, reached by its variables, still works. The Node helper is bundled as the package build does and
 * run by plain `node`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { serverProof } from "../../common/server-proof-hmac";
import { connectEmulator, StartEmulatorError, startEmulator } from "../../tools/helper/start-emulator";
import { cleanEnv } from "../helpers/clean-env";
import { DEMO_KEY, startTestEmulator, stopTestEmulator, type TestEmulator } from "../helpers/emulator";
import { waitFor } from "../helpers/wait-for";

const ROOT = resolve(import.meta.dir, "../..");

const TOKEN_OF_REDIRECTING = "adm_redirecting_server_token_0123456789";

interface Seen {
  path: string;
  authorization: string | null;
}

let emu: TestEmulator;
let dir: string;
const servers: Array<ReturnType<typeof Bun.serve>> = [];
beforeAll(async () => {
  emu = await startTestEmulator();
  dir = mkdtempSync(join(tmpdir(), "ext-connect-"));
});
afterAll(async () => {
  for (const s of servers) s.stop(true);
  await stopTestEmulator(emu);
  rmSync(dir, { recursive: true, force: true });
});

/** Answers everything 200 as an emulator would, /healthz without a proof; records every request. */
function impostor(port = 0) {
  const seen: Seen[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port,
    fetch(req) {
      const u = new URL(req.url);
      seen.push({ path: u.pathname + u.search, authorization: req.headers.get("authorization") });
      if (u.pathname === "/healthz") return Response.json({ status: "ok" });
      return Response.json({ extension: { id: "ext_x" }, state: {} });
    },
  });
  servers.push(server);
  const url = `http://127.0.0.1:${server.port}`;
  return { seen, url, server };
}

/** An impostor on `port` once the server that had it let it go. */
const impostorOn = (port: number) =>
  waitFor(() => {
    try {
      return impostor(port);
    } catch {
      return null;
    }
  }, `port ${port} to be free`);

/** The paths a listener was sent, but for the challenges. */
const calls = (seen: Seen[]) => seen.map((s) => s.path).filter((p) => !p.startsWith("/healthz?challenge="));

/** A folder a deploy could pack. */
function extensionFolder(): string {
  const folder = mkdtempSync(join(dir, "ext-folder-"));
  writeFileSync(join(folder, "manifest.json"), JSON.stringify({ name: "x", version: "1.0.0" }));
  writeFileSync(join(folder, "index.js"), "export {};\n");
  return folder;
}

const variables = (url: string, token: string) => ({
  EXT_BASE_URL: `${url}/developer/v1`,
  EXT_ADMIN_URL: `${url}/_emulator`,
  EXT_API_KEY: DEMO_KEY,
  EXT_ADMIN_TOKEN: token,
});

describe("the Bun helper's connectEmulator()", () => {
  test("a server that cannot prove it holds the token gets the challenge only; the call rejects", async () => {
    const fake = impostor();
    const token = emu.runtime.control.adminToken;
    const conn = connectEmulator(variables(fake.url, token));
    const reset = await conn.reset().then(
      () => null,
      (e) => e,
    );
    expect(reset).toBeInstanceOf(StartEmulatorError);
    expect((reset as Error).message).toContain(`the server at ${fake.url} did not prove it is the emulator`);
    const created = await conn.createExtension({ name: "x" }).then(
      () => null,
      (e) => e,
    );
    expect(created).toBeInstanceOf(StartEmulatorError);
    expect(fake.seen.length).toBeGreaterThan(0);
    expect(fake.seen.every((s) => s.path.startsWith("/healthz?challenge=") && s.authorization === null)).toBe(true);
    expect(JSON.stringify(fake.seen)).not.toContain(token);
  });

  test("the real emulator proves itself, and every call goes through", async () => {
    const conn = connectEmulator(variables(emu.url, emu.runtime.control.adminToken));
    const created = await conn.createExtension({ name: "Proven" });
    expect(created.name).toBe("Proven");
    expect((await conn.requests(1))[0]?.path).toBe(`/developer/v1/extensions/${created.id}`);
  });
});

test("a connection that proved its server proves it again once a call could not reach it", async () => {
  const own = await startTestEmulator();
  const port = Number(new URL(own.url).port);
  const conn = connectEmulator(variables(own.url, own.runtime.control.adminToken));
  await conn.reset();
  await stopTestEmulator(own);
  // Nothing listens for a moment: the call fails, and the connection forgets that its server was proven.
  expect(
    await conn.reset().then(
      () => "sent",
      (e) => (e as Error).name,
    ),
  ).not.toBe("sent");
  const fake = await impostorOn(port);
  const again = await conn.reset().then(
    () => null,
    (e) => e,
  );
  expect(again).toBeInstanceOf(StartEmulatorError);
  expect(fake.seen.every((s) => s.path.startsWith("/healthz?challenge=") && s.authorization === null)).toBe(true);
});

test("a proven connection whose server stopped and whose port was taken at once challenges the new listener before any credential", async () => {
  const own = await startTestEmulator();
  const port = Number(new URL(own.url).port);
  const conn = connectEmulator(variables(own.url, own.runtime.control.adminToken));
  await conn.reset();
  await conn.createExtension({ name: "Before" });
  await stopTestEmulator(own);
  // No call failed in between: the port is taken before the next call.
  const fake = await impostorOn(port);
  const outcome = (call: () => Promise<unknown>) =>
    call().then(
      () => null,
      (x: Error) => x,
    );
  // The kept connection may not have seen its end yet: a POST on it fails (it cannot be sent again); every new
  // connection is challenged first.
  expect(await outcome(() => conn.reset())).toBeInstanceOf(Error);
  const e = await outcome(() => conn.createExtension({ name: "After" }));
  expect(e).toBeInstanceOf(StartEmulatorError);
  expect(e?.message).toContain(`connectEmulator: the server at ${own.url} did not prove it is the emulator`);
  expect(fake.seen.length).toBeGreaterThan(0);
  expect(fake.seen.filter((s) => !s.path.startsWith("/healthz?challenge=") || s.authorization !== null)).toEqual([]);
});

test("after stop(), a started emulator's connection sends nothing to whatever takes its port", async () => {
  const emu = await startEmulator();
  const port = emu.port;
  await emu.reset();
  await emu.stop();
  const fake = await impostorOn(port);
  const e = await emu.reset().then(
    () => null,
    (x) => x,
  );
  expect(e).toBeInstanceOf(StartEmulatorError);
  expect((e as Error).message).toContain(`startEmulator: the emulator at ${emu.url} has stopped; nothing was sent`);
  expect(fake.seen).toEqual([]);
});

test("without the admin token, deploy() is refused at once: neither the server nor a new listener on its port sees the key", async () => {
  const first = impostor();
  const port = Number(new URL(first.url).port);
  const { EXT_ADMIN_TOKEN: _, ...tokenless } = variables(first.url, "");
  const conn = connectEmulator(tokenless);
  // An ordinary call stays on the first connection, as the transport allows a server that gives no proof.
  const { response } = await conn.client.GET("/developer/v1/extensions");
  expect(response.status).toBe(200);
  servers.splice(servers.indexOf(first.server), 1);
  first.server.stop(true);
  const second = await impostorOn(port);
  const folder = extensionFolder();
  const e = await conn.deploy(folder, { extensionId: "ext_x", version: "1.0.0" }).then(
    () => null,
    (x: Error) => x,
  );
  expect(e).toBeInstanceOf(StartEmulatorError);
  expect(e?.message).toContain(
    `connectEmulator: deploy() needs the admin token: without it the server at ${first.url}`,
  );
  expect(e?.message).toContain("nothing was sent. Pass EXT_ADMIN_TOKEN (or { adminToken })");
  // The challenge the transport asks first, then the ordinary call; nothing of the deploy.
  expect(calls(first.seen)).toEqual(["/developer/v1/extensions"]);
  expect(second.seen).toEqual([]);
});

test("a redirect is answered as it is, never followed with the key", async () => {
  const elsewhere = impostor();
  const redirecting = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req): Response {
      const u = new URL(req.url);
      if (u.pathname !== "/healthz") return Response.redirect(`${elsewhere.url}/developer/v1/extensions`, 307);
      return Response.json({
        status: "ok",
        proof: serverProof(TOKEN_OF_REDIRECTING, u.searchParams.get("challenge") ?? "", u.origin),
      });
    },
  });
  servers.push(redirecting);
  const conn = connectEmulator(variables(`http://127.0.0.1:${redirecting.port}`, TOKEN_OF_REDIRECTING));
  const { response } = await conn.client.GET("/developer/v1/extensions");
  expect(response.status).toBe(307);
  expect(elsewhere.seen).toEqual([]);
});

describe("the Node helper's connectEmulator()", () => {
  let index: string;
  beforeAll(async () => {
    const out = join(dir, "node-helper");
    const built = await Bun.build({
      entrypoints: [join(ROOT, "packaging/npm/src/index.ts")],
      target: "node",
      format: "esm",
      outdir: out,
      naming: "index.mjs",
    });
    if (!built.success) throw new Error(built.logs.join("\n"));
    index = join(out, "index.mjs");
  });

  async function node(
    script: string,
    env: Record<string, string> = {},
  ): Promise<{ code: number; stdout: string; stderr: string }> {
    const file = join(dir, `script-${Math.random().toString(36).slice(2)}.mjs`);
    writeFileSync(file, `import { connectEmulator } from ${JSON.stringify(index)};\n${script}`);
    const proc = Bun.spawn(["node", file], { env: { ...cleanEnv(), ...env }, stdout: "pipe", stderr: "pipe" });
    const [code, stdout, stderr] = await Promise.all([
      proc.exited,
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
    ]);
    return { code, stdout, stderr };
  }

  test("a server that cannot prove it holds the token gets the challenge only; the call rejects", async () => {
    const fake = impostor();
    const token = emu.runtime.control.adminToken;
    const r = await node(`
      const conn = connectEmulator(${JSON.stringify(variables(fake.url, token))});
      const out = [];
      for (const call of [() => conn.reset(), () => conn.createExtension({ name: "x" })]) {
        try { await call(); out.push("sent"); } catch (e) { out.push(e.name + ": " + e.message); }
      }
      console.log(JSON.stringify(out));
    `);
    expect(r.stderr).toBe("");
    const out = JSON.parse(r.stdout) as string[];
    for (const line of out)
      expect(line).toContain(`StartEmulatorError: connectEmulator: the server at ${fake.url} did not prove`);
    expect(fake.seen.every((s) => s.path.startsWith("/healthz?challenge=") && s.authorization === null)).toBe(true);
    expect(JSON.stringify(fake.seen)).not.toContain(token);
  });

  test("a proven connection whose server stopped and whose port was taken at once challenges the new listener before any credential", async () => {
    const own = await startTestEmulator();
    const port = Number(new URL(own.url).port);
    const file = join(dir, `script-${Math.random().toString(36).slice(2)}.mjs`);
    // Two calls, then a third once told (a line on stdin): meanwhile the server stops and its port is taken.
    writeFileSync(
      file,
      `import { connectEmulator } from ${JSON.stringify(index)};
      import { createInterface } from "node:readline";
      const conn = connectEmulator(${JSON.stringify(variables(own.url, own.runtime.control.adminToken))});
      await conn.reset();
      await conn.createExtension({ name: "Before" });
      console.log("first");
      const lines = createInterface({ input: process.stdin });
      for await (const _ of lines) break;
      const out = [];
      for (const call of [() => conn.reset(), () => conn.createExtension({ name: "After" })]) {
        try { await call(); out.push("sent"); } catch (e) { out.push(e.name + ": " + e.message); }
      }
      console.log(JSON.stringify(out));
      process.exit(0);`,
    );
    const proc = Bun.spawn(["node", file], { env: cleanEnv(), stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let stdout = "";
    const until = async (done: () => boolean) => {
      while (!done()) {
        const { value, done: ended } = await reader.read();
        if (ended) throw new Error(`the script ended: ${stdout} ${await new Response(proc.stderr).text()}`);
        stdout += decoder.decode(value, { stream: true });
      }
    };
    try {
      await until(() => stdout.includes("first\n"));
      await stopTestEmulator(own);
      const fake = await impostorOn(port);
      proc.stdin.write("go\n");
      proc.stdin.flush();
      await until(() => stdout.trim().endsWith("]"));
      const out = JSON.parse(stdout.slice(stdout.indexOf("first\n") + 6)) as string[];
      // The first may fail on the kept connection if its end was not seen yet; a new connection is challenged.
      expect(out[0]).not.toBe("sent");
      expect(out[1]).toContain(`StartEmulatorError: connectEmulator: the server at ${own.url} did not prove`);
      expect(fake.seen.length).toBeGreaterThan(0);
      expect(fake.seen.filter((s) => !s.path.startsWith("/healthz?challenge=") || s.authorization !== null)).toEqual(
        [],
      );
    } finally {
      proc.kill();
      await stopTestEmulator(own);
    }
  });

  test("an endless answer from a proven server rejects at 16 MiB; the reading stops", async () => {
    let sent = 0;
    const chunk = new TextEncoder().encode(`"${"x".repeat(8190)}",`);
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch(req) {
        const u = new URL(req.url);
        const challenge = u.searchParams.get("challenge");
        if (challenge)
          return Response.json({ status: "ok", proof: serverProof(TOKEN_OF_REDIRECTING, challenge, u.origin) });
        const body = new ReadableStream<Uint8Array>({
          start: (c) => c.enqueue(new TextEncoder().encode('{"requests":[')),
          pull(c) {
            sent += chunk.length;
            c.enqueue(chunk);
          },
        });
        return new Response(body, { headers: { "content-type": "application/json" } });
      },
    });
    servers.push(server);
    const url = `http://127.0.0.1:${server.port}`;
    const r = await node(`
      const conn = connectEmulator(${JSON.stringify(variables(url, TOKEN_OF_REDIRECTING))});
      try { await conn.requests(1); console.log("read"); } catch (e) { console.log(e.name + ": " + e.message); }
    `);
    expect(r.stdout).toContain(`AnswerTooLargeError: ${url} answered GET /_emulator/requests with more than 16 MiB`);
    expect(sent).toBeLessThan(64 * 1024 * 1024);
  });

  test("a listener that accepts and never answers is cut by the timeout, not waited on forever", async () => {
    const { createServer } = await import("node:net");
    const silent = createServer(() => {});
    await new Promise<void>((done) => silent.listen(0, "127.0.0.1", done));
    const port = (silent.address() as { port: number }).port;
    try {
      const r = await node(
        `
        const conn = connectEmulator(${JSON.stringify(variables(`http://127.0.0.1:${port}`, TOKEN_OF_REDIRECTING))});
        try { await conn.reset(); console.log("sent"); } catch (e) { console.log(e.name + ": " + e.message); }
      `,
        { EXT_REQUEST_TIMEOUT: "1" },
      );
      expect(r.stdout).toContain("RequestTimeoutError");
      expect(r.stdout).toContain("within 1 s");
    } finally {
      silent.close();
    }
  });

  test("without the admin token, deploy() is refused before any ext deploy runs; the server sees no key", async () => {
    const fake = impostor();
    const { EXT_ADMIN_TOKEN: _, ...tokenless } = variables(fake.url, "");
    const folder = extensionFolder();
    const r = await node(`
      const conn = connectEmulator(${JSON.stringify(tokenless)});
      const out = [];
      out.push((await conn.client.GET("/developer/v1/extensions")).response.status);
      try {
        await conn.deploy(${JSON.stringify(folder)}, { extensionId: "ext_x", version: "1.0.0" });
        out.push("sent");
      } catch (e) { out.push(e.name + ": " + e.message); }
      console.log(JSON.stringify(out));
    `);
    expect(r.stderr).toBe("");
    const [status, refusal] = JSON.parse(r.stdout) as [number, string];
    expect(status).toBe(200);
    expect(refusal).toContain(
      `StartEmulatorError: connectEmulator: deploy() needs the admin token: without it the server at ${fake.url}`,
    );
    expect(calls(fake.seen)).toEqual(["/developer/v1/extensions"]);
  });

  test("the real emulator proves itself, and every call goes through", async () => {
    const r = await node(`
      const conn = connectEmulator(${JSON.stringify(variables(emu.url, emu.runtime.control.adminToken))});
      const created = await conn.createExtension({ name: "Proven from Node" });
      console.log(JSON.stringify({ name: created.name, logged: (await conn.requests(1))[0].path }));
    `);
    expect(r.stderr).toBe("");
    expect(JSON.parse(r.stdout)).toMatchObject({ name: "Proven from Node" });
  });
});
