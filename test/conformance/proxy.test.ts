/**
 * `ext proxy`: answers pass through byte for byte (status, headers, streamed and compressed bodies); the
 * report names the differences of a differing server when the conformance run goes through it; `--shadow`
 * finds them by replaying ordinary traffic against an in-process emulator, knowing no expected value.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createApiClient } from "../../client/index";
import { startProxy } from "../../tools/conformance/proxy";
import { runConformance } from "../../tools/conformance/run";
import { type Emulator, startEmulator } from "../../tools/helper/start-emulator";
import { keepAliveServer } from "../calls/keep-alive-server";
import { extBinary } from "../helpers/run-cli";
import { waitFor } from "../helpers/wait-for";
import { type DifferingServer, startDifferingServer } from "./differing-server";

const ROOT = resolve(import.meta.dir, "../..");
const ALL = ["create-200", "401-code", "list-missing-field", "404-no-status", "secret-echo"] as const;

describe("passthrough", () => {
  test("status, headers and body bytes arrive unchanged; a body streams before the upstream has finished", async () => {
    let releaseRest!: () => void;
    const rest = new Promise<void>((r) => (releaseRest = r));
    const gz = Bun.gzipSync(new TextEncoder().encode('{"compressed":true}'));
    const seen: { method: string; path: string; body: string; auth: string | null }[] = [];
    const upstream = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      async fetch(req) {
        const url = new URL(req.url);
        // The proxy's challenge, which holds the upstream to its first answer, is not traffic it forwards.
        if (url.searchParams.has("challenge")) return Response.json({ status: "ok" });
        seen.push({
          method: req.method,
          path: url.pathname + url.search,
          body: await req.text(),
          auth: req.headers.get("authorization"),
        });
        if (url.pathname === "/gzip")
          return new Response(gz, {
            status: 200,
            headers: { "content-encoding": "gzip", "content-type": "application/json" },
          });
        if (url.pathname === "/stream")
          return new Response(
            new ReadableStream({
              async start(c) {
                c.enqueue(new TextEncoder().encode("first,"));
                await rest;
                c.enqueue(new TextEncoder().encode("second"));
                c.close();
              },
            }),
            { headers: { "content-type": "text/plain" } },
          );
        return new Response(new Uint8Array([0, 1, 2, 255, 13, 10]), {
          status: 429,
          headers: {
            "retry-after": "7",
            "x-ratelimit-limit": "120",
            "www-authenticate": 'Bearer realm="x"',
            "x-custom": "kept",
            "content-type": "application/octet-stream",
          },
        });
      },
    });
    const proxy = await startProxy({ upstream: `http://127.0.0.1:${upstream.port}` });
    try {
      const raw = await fetch(`${proxy.url}/developer/v1/extensions?x=1`, {
        method: "POST",
        body: "héllo",
        headers: { authorization: "Bearer k" },
      });
      expect(raw.status).toBe(429);
      expect([
        raw.headers.get("retry-after"),
        raw.headers.get("x-ratelimit-limit"),
        raw.headers.get("www-authenticate"),
        raw.headers.get("x-custom"),
      ]).toEqual(["7", "120", 'Bearer realm="x"', "kept"]);
      expect([...new Uint8Array(await raw.arrayBuffer())]).toEqual([0, 1, 2, 255, 13, 10]);
      expect(seen[0]).toEqual({
        method: "POST",
        path: "/developer/v1/extensions?x=1",
        body: "héllo",
        auth: "Bearer k",
      });

      const compressed = await fetch(`${proxy.url}/gzip`, { decompress: false } as RequestInit);
      expect(compressed.headers.get("content-encoding")).toBe("gzip");
      expect(new Uint8Array(await compressed.arrayBuffer())).toEqual(new Uint8Array(gz));

      const streamed = await fetch(`${proxy.url}/stream`);
      const reader = streamed.body!.getReader();
      expect(new TextDecoder().decode((await reader.read()).value)).toBe("first,");
      releaseRest();
      let tail = "";
      for (let r = await reader.read(); !r.done; r = await reader.read()) tail += new TextDecoder().decode(r.value);
      expect(tail).toBe("second");
    } finally {
      releaseRest();
      await proxy.stop();
      upstream.stop(true);
    }
  });
});

test("an upstream that does not answer: a 502 in the error envelope, and the proxy goes on", async () => {
  const gone = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
  const port = gone.port;
  gone.stop(true);
  const proxy = await startProxy({ upstream: `http://127.0.0.1:${port}` });
  try {
    for (let i = 0; i < 2; i++) {
      const answer = await fetch(`${proxy.url}/developer/v1/extensions`);
      expect(answer.status).toBe(502);
      expect(((await answer.json()) as { error: { code: string; status: number } }).error).toMatchObject({
        code: "bad_gateway",
        status: 502,
      });
    }
  } finally {
    await proxy.stop();
  }
});

test("an upstream that is no emulator stops and another listener takes its port at once: a 502, and no key reaches the listener", async () => {
  const listener = (port: number, seen: (string | null)[]) =>
    Bun.serve({
      port,
      hostname: "127.0.0.1",
      fetch(req) {
        seen.push(req.headers.get("authorization"));
        return Response.json({ extensions: [] });
      },
    });
  const owner: (string | null)[] = [];
  const upstream = listener(0, owner);
  const port = upstream.port as number;
  const proxy = await startProxy({ upstream: `http://127.0.0.1:${port}` });
  const call = () =>
    fetch(`${proxy.url}/developer/v1/extensions`, { headers: { authorization: "Bearer ext_owner_key" } });
  const taken: (string | null)[] = [];
  let taker: ReturnType<typeof Bun.serve> | null = null;
  try {
    expect((await call()).status).toBe(200);
    expect(owner.at(-1)).toBe("Bearer ext_owner_key");
    upstream.stop(true);
    taker = listener(port, taken);
    const answer = await call();
    expect(answer.status).toBe(502);
    expect(((await answer.json()) as { error: { message: string } }).error.message).toContain(
      `the server at http://127.0.0.1:${port} closed the connection this command sends its key or token on`,
    );
    expect(taken).toEqual([]);
  } finally {
    await proxy.stop();
    taker?.stop(true);
  }
});

test("an upstream that is no emulator closes only its listener, keeping its connection, and another takes its port: concurrent requests and an upload bring it no key", async () => {
  const owner = await keepAliveServer();
  const proxy = await startProxy({ upstream: owner.url });
  let taker: Awaited<ReturnType<typeof keepAliveServer>> | null = null;
  const call = (path: string, body?: Uint8Array) =>
    fetch(`${proxy.url}${path}`, {
      method: body ? "POST" : "GET",
      headers: { authorization: "Bearer ALICE_SECRET_KEY" },
      ...(body ? { body } : {}),
    });
  try {
    expect((await call("/developer/v1/extensions")).status).toBe(200);
    owner.closeListener();
    taker = await keepAliveServer(owner.port);
    const answers = await Promise.all([
      call("/developer/v1/extensions"),
      call("/developer/v1/extensions"),
      call("/developer/v1/extensions/ext_1/versions", new Uint8Array(2000)),
    ]);
    for (const a of answers) expect(await a.json()).toEqual({ status: "ok" });
    expect(taker.seen.filter((r) => r.authorization !== null)).toEqual([]);
    expect(owner.seen.filter((r) => r.authorization === "Bearer ALICE_SECRET_KEY")).toHaveLength(4);
    expect(owner.seen.some((r) => r.bodyBytes === 2000)).toBe(true);
  } finally {
    await proxy.stop();
    owner.stop();
    taker?.stop();
  }
});

describe("the report, through the proxy, against a differing server", () => {
  let emulator: Emulator;
  let differing: DifferingServer;
  beforeAll(async () => {
    emulator = await startEmulator({ rateLimits: true });
    differing = startDifferingServer(emulator.url, { differences: [...ALL] });
  });
  afterAll(async () => {
    differing.stop();
    await emulator.stop();
  });

  test("the conformance run through the proxy: the report names each difference once, with a count and an example", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "ext-proxy-")), "report.json");
    const proxy = await startProxy({ upstream: differing.url, reportFile: file });
    await runConformance({ url: proxy.url, apiKey: emulator.apiKey });
    await proxy.stop();
    const text = readFileSync(file, "utf8");
    const report = JSON.parse(text) as {
      differences: { source: string; endpoint: string; difference: string; count: number }[];
    };
    const answers = report.differences
      .filter((d) => d.source === "answer")
      .map((d) => `${d.endpoint}: ${d.difference}`);
    expect(answers).toEqual(
      expect.arrayContaining([
        "POST /developer/v1/extensions: status should be 201, got 200",
        "GET /developer/v1/extensions: error.code invalid_token is not the spec's code for 401: the spec's is `unauthorized`",
        "GET /developer/v1/extensions: extensions[]: field installCount is missing: the spec's answer carries it (integer)",
        "GET /developer/v1/extensions/:id: error.status should be 404 (the HTTP status), got nothing",
        "PUT /developer/v1/extensions/:id/secrets/:key: status should be 204, got 200",
        "PUT /developer/v1/extensions/:id/secrets/:key: the answer carries a secret value (shown as <secret value>)",
      ]),
    );
    // Against ext's own answers (the differing server keeps its headers and formats) no choice differs.
    expect(report.differences.filter((d) => d.source === "choice")).toEqual([]);
    const unauthorized = report.differences.find((d) => d.difference.includes("invalid_token"));
    expect(unauthorized!.count).toBeGreaterThanOrEqual(2);
    // The run's own deliberate mistakes are client bugs.
    expect(
      report.differences.some((d) => d.source === "request" && d.difference.startsWith("no Authorization header")),
    ).toBe(true);
    expect(text).not.toContain(emulator.apiKey);
    expect(text).not.toMatch(/conformance-[A-Za-z0-9_-]{24}/);
  }, 60_000);

  test("--shadow finds the differences from ordinary traffic, knowing no expected value", async () => {
    const proxy = await startProxy({ upstream: differing.url, shadow: true });
    try {
      const api = createApiClient({ baseUrl: proxy.url, apiKey: emulator.apiKey });
      const { data } = await api.POST("/developer/v1/extensions", { body: { name: "Shadowed" } });
      const id = (data as { extension: { id: string } }).extension.id;
      await api.GET("/developer/v1/extensions");
      await api.GET("/developer/v1/extensions/{id}", { params: { path: { id } } });
      await api.PUT("/developer/v1/extensions/{id}/secrets/{key}", {
        params: { path: { id, key: "TOKEN" } },
        body: { value: "shadow-secret-value" },
      });
      await api.GET("/developer/v1/extensions/{id}", { params: { path: { id: "ext_00000000000000000000000000" } } });
      await createApiClient({ baseUrl: proxy.url, apiKey: "ext_wrong_key_0000000000" }).GET("/developer/v1/extensions");
      await api.DELETE("/developer/v1/extensions/{id}", { params: { path: { id } } });
      await proxy.settled();
      const shadow = proxy.log
        .report()
        .differences.filter((d) => d.source === "shadow")
        .map((d) => `${d.endpoint}: ${d.difference}`);
      expect(shadow.sort()).toEqual(
        [
          "POST /developer/v1/extensions: status: 200 from the upstream, 201 from ext",
          "GET /developer/v1/extensions: extensions[].installCount: only ext sends it",
          "GET /developer/v1/extensions/:id: error.status: only ext sends it",
          "PUT /developer/v1/extensions/:id/secrets/:key: status: 200 from the upstream, 204 from ext",
          "PUT /developer/v1/extensions/:id/secrets/:key: body: the upstream sends one, ext none",
          "GET /developer/v1/extensions: error.code: invalid_token from the upstream, unauthorized from ext",
        ].sort(),
      );
      expect(JSON.stringify(proxy.log.report())).not.toContain("shadow-secret-value");
    } finally {
      await proxy.stop();
    }
  }, 60_000);

  test("--shadow against ext itself finds nothing: ids the two sides generated are mapped", async () => {
    const proxy = await startProxy({ upstream: emulator.url, shadow: true });
    try {
      const api = createApiClient({ baseUrl: proxy.url, apiKey: emulator.apiKey });
      const { data } = await api.POST("/developer/v1/extensions", { body: { name: "Mapped" } });
      const id = data!.extension.id;
      await api.GET("/developer/v1/extensions/{id}", { params: { path: { id } } });
      await api.PATCH("/developer/v1/extensions/{id}", { params: { path: { id } }, body: { short_description: "x" } });
      await api.GET("/developer/v1/extensions/{id}/installs", { params: { path: { id } } });
      await api.DELETE("/developer/v1/extensions/{id}", { params: { path: { id } } });
      await proxy.settled();
      expect(proxy.log.report().differences).toEqual([]);
      expect(proxy.log.report().exchanges).toBe(5);
    } finally {
      await proxy.stop();
    }
  });
});

test("the command: prints its address, writes the report, prints the summary on Ctrl-C and exits 0", async () => {
  const upstream = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: () => Response.json({ extensions: [{ id: "x" }] }),
  });
  const file = join(mkdtempSync(join(tmpdir(), "ext-proxy-")), "report.json");
  const proc = Bun.spawn(
    [extBinary(), "proxy", "--upstream", `http://127.0.0.1:${upstream.port}`, "--port", "0", "--report", file],
    {
      cwd: ROOT,
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  try {
    const reader = proc.stdout.getReader();
    let first = "";
    while (!first.includes("\n")) first += new TextDecoder().decode((await reader.read()).value);
    const url = first.match(/listening on (http:\/\/127\.0\.0\.1:\d+)/)![1]!;
    const answer = await fetch(`${url}/developer/v1/extensions`, {
      headers: { authorization: "Bearer secret-key-123" },
    });
    expect(await answer.json()).toEqual({ extensions: [{ id: "x" }] });
    // The report counts the exchange once it is checked (it is written while the proxy runs).
    await waitFor(() => {
      try {
        return JSON.parse(readFileSync(file, "utf8")).exchanges === 1;
      } catch {
        return false;
      }
    }, "the report to count the exchange");
    proc.kill("SIGINT");
    const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
    expect(code, stderr).toBe(0);
    expect(stderr).toContain("ext proxy: 1 exchanges with");
    expect(stderr).toContain("extensions[]: field slug is missing");
    expect(stderr, stderr).toContain(
      "[ext chose otherwise (not shown in the spec)] GET /developer/v1/extensions: no X-RateLimit-",
    );
    const report = readFileSync(file, "utf8");
    expect(JSON.parse(report).exchanges).toBe(1);
    expect(report).not.toContain("secret-key-123");
  } finally {
    proc.kill();
    upstream.stop(true);
  }
}, 30_000);
