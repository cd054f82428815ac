/**
 * `ext proxy` stays bounded whatever other local users send through it (it listens on 127.0.0.1, where any
 * of them can reach it): paths the spec does not have are one cause, not one per path; distinct differences,
 * their examples and the examples' bodies are capped; bodies waiting for the checks are held in a bounded
 * queue (past it an exchange is forwarded but not checked); the report is rewritten at most every interval
 * and at stop, not after every exchange.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startProxy } from "../../tools/conformance/proxy";
import { CAUSES_KEPT, EXAMPLES_KEPT, type ProxyReport, UNKNOWN_PATHS } from "../../tools/conformance/proxy-report";
import { waitFor } from "../helpers/wait-for";

const NOT_FOUND = { error: { code: "not_found", message: `No such path ${"m".repeat(20_000)}`, status: 404 } };

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "ext-proxy-bounds-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const readReport = (file: string) => JSON.parse(readFileSync(file, "utf8")) as ProxyReport;

/** Sends `count` requests made by `make(i)`, `width` at a time, reading every answer whole. */
async function send(count: number, width: number, make: (i: number) => Promise<Response>): Promise<number[]> {
  const statuses: number[] = [];
  for (let start = 0; start < count; start += width) {
    const batch = Array.from({ length: Math.min(width, count - start) }, async (_, k) => {
      const r = await make(start + k);
      await r.arrayBuffer();
      return r.status;
    });
    statuses.push(...(await Promise.all(batch)));
  }
  return statuses;
}

describe("the report's size", () => {
  test("3,500 requests to distinct paths the API does not have: one cause, counted, a few examples cut to a few KiB", async () => {
    const upstream = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: () => Response.json(NOT_FOUND, { status: 404 }),
    });
    const file = join(dir, "unknown-paths.json");
    const proxy = await startProxy({ upstream: `http://127.0.0.1:${upstream.port}`, reportFile: file });
    try {
      const big = "b".repeat(20_000);
      // The first five, with bodies, one by one, each checked before the next: the examples kept are theirs.
      for (let i = 0; i < 5; i++) {
        const first = await fetch(`${proxy.url}/developer/v1/x${i}`, { method: "POST", body: big });
        expect(first.status).toBe(404);
        await first.arrayBuffer();
        await waitFor(() => proxy.log.exchanges === i + 1, `exchange ${i} checked`);
      }
      const statuses = await send(3_495, 50, (i) => fetch(`${proxy.url}/developer/v1/x${i + 5}`));
      expect(statuses.every((s) => s === 404)).toBe(true);
      await proxy.stop();
      const report = readReport(file);
      expect(report.exchanges).toBe(3_500);
      const unknown = report.differences.filter((d) => d.endpoint === UNKNOWN_PATHS && d.source === "request");
      expect(unknown.map((d) => [d.difference, d.count])).toEqual([["requests to paths the API does not have", 3_500]]);
      // Every difference of these paths is under the one name; none names a path.
      expect(report.differences.every((d) => d.endpoint === UNKNOWN_PATHS)).toBe(true);
      const examples = unknown[0]!.examples;
      expect(examples.length).toBe(EXAMPLES_KEPT);
      expect(examples[0]!.request.path).toBe("/developer/v1/x0");
      expect(examples[0]!.request.body!.length).toBeLessThanOrEqual(4096 + 40);
      expect(examples[0]!.response!.body).toEndWith(`… (${JSON.stringify(NOT_FOUND).length - 4096} more characters)`);
      expect(statSync(file).size).toBeLessThan(32 * 1024);
      expect(proxy.log.summary().join("\n")).toContain(
        `[client bug] ${UNKNOWN_PATHS}: requests to paths the API does not have (×3500)`,
      );
    } finally {
      await proxy.stop().catch(() => undefined);
      upstream.stop(true);
    }
  }, 60_000);

  test("many distinct differences: the report keeps the first ones, counts what it left out and says so", async () => {
    const upstream = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      // The body read first: an answer before the upload's end cuts the proxy's copy of it.
      fetch: async (req) => {
        await req.arrayBuffer();
        return Response.json({ extension: {} }, { status: 201 });
      },
    });
    const file = join(dir, "causes.json");
    const proxy = await startProxy({ upstream: `http://127.0.0.1:${upstream.port}`, reportFile: file });
    const post = (field: string) =>
      fetch(`${proxy.url}/developer/v1/extensions`, {
        method: "POST",
        body: JSON.stringify({ [field]: 1 }),
        headers: { "content-type": "application/json", authorization: "Bearer ext_k" },
      });
    try {
      const sent = CAUSES_KEPT + 60;
      await send(sent, 20, (i) => post(`f${i}`));
      // A field name a megabyte long is one more difference, its text cut.
      await send(1, 1, () => post("n".repeat(1024 * 1024 - 16)));
      // A difference the report already holds still counts after the cap.
      await send(1, 1, () => post("f0"));
      await proxy.stop();
      const report = readReport(file);
      expect(report.differences.length).toBe(CAUSES_KEPT);
      const fields = report.differences.filter((d) => d.difference.includes("is not one the spec accepts here"));
      // The answer's own differences (one each, the same for every exchange) came first; then the fields.
      const others = CAUSES_KEPT - fields.length;
      expect(others).toBeGreaterThan(0);
      expect(report.differencesLeftOut).toBe(sent + 1 - fields.length);
      expect(fields[0]).toMatchObject({ difference: "field f0 is not one the spec accepts here", count: 2 });
      expect(fields[0]!.examples.length).toBe(2);
      expect(report.differences.every((d) => d.difference.length <= 400)).toBe(true);
      expect(statSync(file).size).toBeLessThan(2 * 1024 * 1024);
      expect(proxy.log.summary()).toContain(
        `  ${report.differencesLeftOut} sightings of further differences left out: the report keeps at most ${CAUSES_KEPT} distinct ones`,
      );
    } finally {
      await proxy.stop().catch(() => undefined);
      upstream.stop(true);
    }
  }, 60_000);
});

describe("the queue of bodies waiting for the checks", () => {
  /** An upstream that reads each request whole, then holds every answer until `open()`. */
  function gatedUpstream() {
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    let received = 0;
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(req) {
        // The proxy's challenge, which holds the upstream to its first answer, is not traffic it forwards.
        if (new URL(req.url).searchParams.has("challenge")) return Response.json({ status: "ok" });
        const bytes = (await req.arrayBuffer()).byteLength;
        received++;
        await gate;
        return Response.json({ bytes });
      },
    });
    return { url: `http://127.0.0.1:${server.port}`, received: () => received, open, stop: () => server.stop(true) };
  }

  test("a burst of large bodies: the bytes held stay within the bound; the rest are forwarded whole, not checked (busy)", async () => {
    const upstream = gatedUpstream();
    const limit = 1024 * 1024;
    const proxy = await startProxy({ upstream: upstream.url, queueLimits: { entries: 1000, bytes: limit } });
    const size = 256 * 1024;
    const n = 16;
    try {
      // No key: requests with one go to an upstream that gives no proof one at a time, on one connection,
      // and the upstream must hold every answer at once here.
      const answers = Array.from({ length: n }, () =>
        fetch(`${proxy.url}/developer/v1/extensions`, {
          method: "POST",
          body: new Uint8Array(size).fill(120),
          headers: { "content-type": "application/json" },
        }).then((r) => r.json() as Promise<{ bytes: number }>),
      );
      await waitFor(() => upstream.received() === n, "the upstream to have every body");
      // While every answer is held, at most four bodies fit: the other twelve (at least) are busy.
      await waitFor(() => proxy.log.notCheckedBusy >= n - limit / size, "the bodies past the bound to be busy");
      expect(proxy.queue().bytes).toBeLessThanOrEqual(limit);
      upstream.open();
      expect((await Promise.all(answers)).map((a) => a.bytes)).toEqual(Array(n).fill(size));
      await proxy.settled();
      const report = proxy.log.report();
      expect(report.exchanges + report.notChecked.busy).toBe(n);
      expect(report.notChecked.busy).toBeGreaterThanOrEqual(n - limit / size);
      expect(proxy.queue()).toMatchObject({ entries: 0, bytes: 0 });
      expect(proxy.queue().peakBytes).toBeLessThanOrEqual(limit);
      expect(proxy.queue().peakBytes).toBeGreaterThan(0);
      expect(proxy.log.summary()).toContain(
        `  ${report.notChecked.busy} more exchanges forwarded but not checked: busy (the checks' queue was full)`,
      );
    } finally {
      upstream.open();
      await proxy.stop();
      upstream.stop();
    }
  });

  test("past the entries bound an exchange is forwarded as it is and counted busy; the queue empties as checks finish", async () => {
    const upstream = gatedUpstream();
    const proxy = await startProxy({ upstream: upstream.url, queueLimits: { entries: 2, bytes: 1024 * 1024 } });
    try {
      const answers = Array.from({ length: 5 }, (_, i) =>
        fetch(`${proxy.url}/developer/v1/extensions`, { method: "POST", body: `{"name":"n${i}"}` }).then((r) =>
          r.json(),
        ),
      );
      await waitFor(() => upstream.received() === 5, "the upstream to have every request");
      expect(proxy.log.notCheckedBusy).toBe(3);
      expect(proxy.queue().entries).toBe(2);
      upstream.open();
      expect((await Promise.all(answers)).length).toBe(5);
      await proxy.settled();
      expect(proxy.log.report()).toMatchObject({ exchanges: 2, notChecked: { busy: 3 } });
      expect(proxy.queue()).toMatchObject({ entries: 0, bytes: 0, peakEntries: 2 });
      // Room again: the next exchange is checked.
      await (await fetch(`${proxy.url}/developer/v1/extensions`)).arrayBuffer();
      await proxy.settled();
      expect(proxy.log.report()).toMatchObject({ exchanges: 3, notChecked: { busy: 3 } });
    } finally {
      upstream.open();
      await proxy.stop();
      upstream.stop();
    }
  });
});

test("bodies past what the checks keep pass through whole both ways (the checks' copy is dropped, not the body)", async () => {
  const big = new Uint8Array(3 * 1024 * 1024).map((_, i) => i % 251);
  const upstream = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      if (new URL(req.url).searchParams.has("challenge")) return Response.json({ status: "ok" });
      const got = new Uint8Array(await req.arrayBuffer());
      return new Response(got, { headers: { "content-type": "application/octet-stream" } });
    },
  });
  const proxy = await startProxy({ upstream: `http://127.0.0.1:${upstream.port}` });
  try {
    const answer = await fetch(`${proxy.url}/developer/v1/extensions`, { method: "POST", body: big });
    expect(new Uint8Array(await answer.arrayBuffer())).toEqual(big);
    await proxy.settled();
    expect(proxy.log.report().exchanges).toBe(1);
    expect(proxy.queue()).toMatchObject({ entries: 0, bytes: 0 });
  } finally {
    await proxy.stop();
    upstream.stop(true);
  }
});

describe("when the report is written", () => {
  const upstream = () => Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => Response.json({ extensions: [] }) });

  test("not after every exchange: nothing before the interval has passed, the whole report at stop", async () => {
    const server = upstream();
    const file = join(dir, "at-stop.json");
    const proxy = await startProxy({
      upstream: `http://127.0.0.1:${server.port}`,
      reportFile: file,
      writeEveryMs: 10 * 60_000,
    });
    try {
      await send(20, 5, () => fetch(`${proxy.url}/developer/v1/extensions`));
      await proxy.settled();
      expect(existsSync(file)).toBe(false);
      await proxy.stop();
      expect(readReport(file).exchanges).toBe(20);
    } finally {
      await proxy.stop().catch(() => undefined);
      server.stop(true);
    }
  });

  test("once the interval has passed, while the proxy runs; a write that fails is told", async () => {
    const server = upstream();
    const file = join(dir, "throttled.json");
    const proxy = await startProxy({ upstream: `http://127.0.0.1:${server.port}`, reportFile: file, writeEveryMs: 20 });
    const blocked = mkdtempSync(join(dir, "a-folder-"));
    const problems: string[] = [];
    const failing = await startProxy({
      upstream: `http://127.0.0.1:${server.port}`,
      reportFile: blocked,
      writeEveryMs: 20,
      onReportError: (m) => problems.push(m),
    });
    try {
      await send(3, 3, () => fetch(`${proxy.url}/developer/v1/extensions`));
      await waitFor(() => existsSync(file) && readReport(file).exchanges === 3, "the report of three exchanges");
      await send(1, 1, () => fetch(`${failing.url}/developer/v1/extensions`));
      await waitFor(() => problems.length > 0, "the failed write to be told");
      expect(problems[0]).toContain(`cannot write the report to ${blocked}`);
    } finally {
      await proxy.stop();
      await failing.stop().catch(() => undefined);
      server.stop(true);
    }
  });
});
