/**
 * The app's own CPU per answer, in process (no sockets, no load generator): a checkout's runtime and app built
 * as `ext serve` builds them (a real SQLite file, the bench fixture), then `app.fetch` called in a loop for each
 * request kind, CPU time (user + system) per answer, best and median of the rounds. What a change to the request
 * path costs shows here even on a busy machine, where throughput figures swing with the load; run it for two
 * checkouts alternately for a with/without figure (bench/results/tricks.md):
 *   bun bench/probes/in-process.ts [checkout (default: this one)] [answers per round] [rounds] [kinds]
 * Kinds: list, patch (comma-separated). Prints one line per checkout.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { benchFixture } from "../lib/servers";

const [treeArg, perRound = "6000", roundsArg = "5", kindsArg = "list,patch"] = process.argv.slice(2);
const tree = resolve(treeArg ?? join(import.meta.dir, "../.."));
const [n, rounds] = [Number(perRound), Number(roundsArg)];
const { createRuntime } = await import(join(tree, "server/runtime/runtime.ts"));
const { createApp } = await import(join(tree, "server/start/app.ts"));
const { parseServerConfig } = await import(join(tree, "server/base/config.ts"));

const dataDir = mkdtempSync(join(tmpdir(), "ext-in-process-"));
const config = parseServerConfig(
  { port: 0, dataDir, logLevel: "silent", rateLimits: false, seed: benchFixture(10) },
  {},
);
const app = createApp(createRuntime(config));
const KEY = "Bearer ext_demo_0123456789abcdefghijklmnopqrstuv";
const ORIGIN = "http://127.0.0.1:4780";
let serial = 0;
const kinds: Record<string, () => Request> = {
  list: () =>
    new Request(`${ORIGIN}/developer/v1/extensions`, { headers: { authorization: KEY, host: "127.0.0.1:4780" } }),
  patch: () => {
    const body = `{"description":"Changed ${serial++}"}`;
    return new Request(`${ORIGIN}/developer/v1/extensions/ext_bench_02`, {
      method: "PATCH",
      headers: {
        authorization: KEY,
        host: "127.0.0.1:4780",
        "content-type": "application/json",
        "content-length": String(body.length),
      },
      body,
    });
  },
};

const out: string[] = [];
for (const kind of kindsArg.split(",")) {
  const make = kinds[kind];
  if (!make) throw new Error(`unknown kind ${kind}: ${Object.keys(kinds).join(", ")}`);
  const first = await app.fetch(make());
  if (first.status !== 200) throw new Error(`${kind}: ${first.status} ${await first.text()}`);
  for (let i = 0; i < 2000; i++) await (await app.fetch(make())).text();
  const perAnswer: number[] = [];
  for (let r = 0; r < rounds; r++) {
    Bun.gc(true);
    const before = process.cpuUsage();
    for (let i = 0; i < n; i++) await (await app.fetch(make())).text();
    const used = process.cpuUsage(before);
    perAnswer.push((used.user + used.system) / n);
  }
  perAnswer.sort((a, b) => a - b);
  out.push(`${kind} ${perAnswer[0]!.toFixed(1)} µs best, ${perAnswer[Math.floor(rounds / 2)]!.toFixed(1)} median`);
}
console.log(`${tree}: ${out.join(" · ")}`);
rmSync(dataDir, { recursive: true, force: true });
process.exit(0);
