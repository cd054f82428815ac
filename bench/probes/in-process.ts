/**
 * The app's own CPU per answer, in process (no sockets, no load generator): a checkout's runtime and app built
 * as `ext serve` builds them (a real SQLite file, the bench fixture), then `app.fetch` called in a loop for each
 * request kind, CPU time (user + system) per answer, best, first quartile and median of the rounds. What a change
 * to the request path costs shows here even on a busy machine, where throughput figures swing with the load:
 *   bun bench/probes/in-process.ts [checkout[,other checkout] (default: this one)] [answers per round] [rounds] [kinds]
 * Given two checkouts (comma-separated), both apps are built in this one process and their rounds alternate
 * (A B, B A, A B, …), so a change of the machine's load falls on both alike: the with/without figure of
 * bench/results/tricks.md. Kinds: list, patch (comma-separated). Prints one line per checkout.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { benchFixture } from "../lib/servers";

const [treesArg, perRound = "6000", roundsArg = "5", kindsArg = "list,patch"] = process.argv.slice(2);
const trees = (treesArg ?? join(import.meta.dir, "../..")).split(",").map((tree) => resolve(tree));
const [n, rounds] = [Number(perRound), Number(roundsArg)];
const KEY = "Bearer ext_demo_0123456789abcdefghijklmnopqrstuv";
const ORIGIN = "http://127.0.0.1:4780";
const dataDirs: string[] = [];

async function appOf(tree: string): Promise<{ fetch(request: Request): Promise<Response> }> {
  const { createRuntime } = await import(join(tree, "server/runtime/runtime.ts"));
  const { createApp } = await import(join(tree, "server/start/app.ts"));
  const { parseServerConfig } = await import(join(tree, "server/base/config.ts"));
  const dataDir = mkdtempSync(join(tmpdir(), "ext-in-process-"));
  dataDirs.push(dataDir);
  const config = parseServerConfig(
    { port: 0, dataDir, logLevel: "silent", rateLimits: false, seed: benchFixture(10) },
    {},
  );
  return createApp(createRuntime(config));
}
const apps = [];
for (const tree of trees) apps.push(await appOf(tree));

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

const out: string[][] = trees.map(() => []);
for (const kind of kindsArg.split(",")) {
  const make = kinds[kind];
  if (!make) throw new Error(`unknown kind ${kind}: ${Object.keys(kinds).join(", ")}`);
  for (const app of apps) {
    const first = await app.fetch(make());
    if (first.status !== 200) throw new Error(`${kind}: ${first.status} ${await first.text()}`);
    for (let i = 0; i < 2000; i++) await (await app.fetch(make())).text();
  }
  const perAnswer: number[][] = apps.map(() => []);
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? apps.keys() : [...apps.keys()].reverse();
    for (const side of order) {
      const app = apps[side]!;
      Bun.gc(true);
      const before = process.cpuUsage();
      for (let i = 0; i < n; i++) await (await app.fetch(make())).text();
      const used = process.cpuUsage(before);
      perAnswer[side]!.push((used.user + used.system) / n);
    }
  }
  for (const [side, figures] of perAnswer.entries()) {
    const sorted = figures.sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.floor(rounds * q)]!.toFixed(2);
    out[side]!.push(`${kind} ${at(0)} µs best, ${at(0.25)} q1, ${at(0.5)} median`);
  }
}
for (const [side, tree] of trees.entries()) console.log(`${tree}: ${out[side]!.join(" · ")}`);
for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
process.exit(0);
