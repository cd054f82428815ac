/**
 * A 20,000-account fixture (each account with a plaintext key: about 2.7 MB of JSON), loaded by the compiled
 * emulator two ways, alternating with an idle start so both see the same machine:
 * - `ext serve --seed FILE`: spawn to the first 200 of /healthz (the server listens once the fixture is in),
 *   beside the same binary started with `--empty`; peak RSS (VmHWM) of each at that moment.
 * - `POST /_emulator/seed` with the fixture as an archive (how `ext seed FILE --target` sends a fixture this
 *   size) into a running `--empty` server: the request's time, and how far its peak RSS rose.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fixtureArchive } from "../../server/exports/archive";
import { table } from "../lib/markdown";
import { EXT_BINARY, WORK_DIR } from "../lib/paths";
import { freePort, MB, peakRssBytes, removeDir, spawnServer, stopServer, tempDir } from "../lib/proc";
import type { BenchSection, TargetCheck } from "../lib/results";
import { round, type Summary, summarize } from "../lib/stats";

const ACCOUNTS = 20_000;
const ADMIN_TOKEN = "ext-bench-admin-token-0123456789abcdef";

export interface LargeFixtureResult {
  accounts: number;
  fixtureBytes: number;
  idleStartMs: Summary;
  seededStartMs: Summary;
  idlePeakMB: Summary;
  /** Peak RSS of each seeded start minus that of the idle start run just before it. */
  seededPeakAboveIdleMB: Summary;
  seedRequestMs: Summary;
  seedRequestPeakAboveIdleMB: Summary;
}

/** The fixture file, written once into the bench's scratch space. */
function writeFixture(): string {
  const accounts = Array.from({ length: ACCOUNTS }, (_, i) => {
    const n = String(i).padStart(5, "0");
    return {
      id: `acc_${n}`,
      name: `Developer ${n}`,
      apiKeys: [{ name: "ci", key: `ext_load_${n}_abcdefghijklmnopqrstuvwx`, scopes: ["*"] }],
    };
  });
  const dir = join(WORK_DIR, "large-fixture");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "fixture.json");
  writeFileSync(file, JSON.stringify({ accounts }));
  return file;
}

async function start(extra: string[]) {
  const dataDir = tempDir("ext-large");
  const port = freePort();
  const cmd = [EXT_BINARY, "serve", "--port", String(port), "--data-dir", dataDir, "--log-level", "warn", ...extra];
  const server = await spawnServer({
    cmd,
    port,
    timeoutMs: 120_000,
    env: { ...process.env, EXT_ADMIN_TOKEN: ADMIN_TOKEN },
  });
  return {
    server,
    peakMB: peakRssBytes(server.pid) / MB,
    async stop() {
      await stopServer(server);
      removeDir(dataDir);
    },
  };
}

async function archiveOf(file: string): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of fixtureArchive(readFileSync(file))) chunks.push(chunk);
  return Buffer.concat(chunks);
}

const summary = (values: number[]): Summary => summarize(values.map((v) => round(v)));

export const largeFixture: BenchSection<LargeFixtureResult> = {
  id: "large-fixture",
  label: "a 20,000-account fixture: ext serve --seed and POST /_emulator/seed",
  async run({ settings, log }) {
    const file = writeFixture();
    const archive = await archiveOf(file);
    const rounds = settings.quick ? 2 : 5;
    const idleStart: number[] = [];
    const seededStart: number[] = [];
    const idlePeak: number[] = [];
    const seededAbove: number[] = [];
    const requestMs: number[] = [];
    const requestAbove: number[] = [];
    // One untimed seeded start first: the page cache then holds the binary and the fixture for every round.
    await (await start(["--seed", file])).stop();
    for (let i = 0; i < rounds; i++) {
      const idle = await start(["--empty"]);
      idleStart.push(idle.server.startMs);
      idlePeak.push(idle.peakMB);
      // The same server takes the fixture through the control plane.
      const t0 = performance.now();
      const res = await fetch(`${idle.server.url}/_emulator/seed`, {
        method: "POST",
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/x-tar" },
        body: archive,
      });
      const body = await res.text();
      requestMs.push(performance.now() - t0);
      if (res.status !== 200) throw new Error(`POST /_emulator/seed answered ${res.status}: ${body.slice(0, 300)}`);
      requestAbove.push(peakRssBytes(idle.server.pid) / MB - idle.peakMB);
      await idle.stop();
      const seeded = await start(["--seed", file]);
      seededStart.push(seeded.server.startMs);
      seededAbove.push(seeded.peakMB - idle.peakMB);
      await seeded.stop();
      log(
        `  round ${i + 1}: --seed start ${round(seeded.server.startMs)} ms (idle ${round(idle.server.startMs)} ms), +${round(seeded.peakMB - idle.peakMB)} MB peak; POST ${round(requestMs.at(-1)!)} ms`,
      );
    }
    return {
      accounts: ACCOUNTS,
      fixtureBytes: readFileSync(file).length,
      idleStartMs: summary(idleStart),
      seededStartMs: summary(seededStart),
      idlePeakMB: summary(idlePeak),
      seededPeakAboveIdleMB: summary(seededAbove),
      seedRequestMs: summary(requestMs),
      seedRequestPeakAboveIdleMB: summary(requestAbove),
    };
  },
  render(r) {
    const row = (what: string, s: Summary, unit: string) => [
      what,
      s.n,
      `${s.median} ${unit}`,
      `${s.min} ${unit}`,
      `${s.max} ${unit}`,
    ];
    return [
      `## A ${r.accounts.toLocaleString("en")}-account fixture (${round(r.fixtureBytes / MB, 2)} MB), compiled emulator`,
      "",
      table(
        ["what", "runs", "median", "min", "max"],
        [
          row("`ext serve --seed FILE`: spawn to first 200", r.seededStartMs, "ms"),
          row("`ext serve --empty`: spawn to first 200", r.idleStartMs, "ms"),
          row("`--seed`: peak RSS above the idle start's", r.seededPeakAboveIdleMB, "MB"),
          row("`POST /_emulator/seed` (archive) into the idle server", r.seedRequestMs, "ms"),
          row("that request: peak RSS above idle", r.seedRequestPeakAboveIdleMB, "MB"),
          row("idle start: peak RSS", r.idlePeakMB, "MB"),
        ],
      ),
      "",
      "Each round starts an idle server (`--empty`), posts the fixture to it, stops it, then starts a server with `--seed`: both rows of a round see the same machine. Every row of the fixture goes through its table's writer in one transaction.",
      "",
    ];
  },
  targets(r) {
    const time: TargetCheck = {
      id: "large_fixture_load",
      target: "a 20,000-account fixture (~2.7 MB) loads in ≤ 3 s (`ext serve --seed`, spawn to first 200, median)",
      measured: r ? `${r.seededStartMs.median} ms (idle start ${r.idleStartMs.median} ms)` : "not run",
      met: r ? r.seededStartMs.median <= 3000 : null,
    };
    const memory: TargetCheck = {
      id: "large_fixture_memory",
      target: "its peak memory ≤ 64 MB above an idle start (`ext serve --seed`, median)",
      measured: r ? `+${r.seededPeakAboveIdleMB.median} MB` : "not run",
      met: r ? r.seededPeakAboveIdleMB.median <= 64 : null,
    };
    const request: TargetCheck = {
      id: "large_fixture_request",
      target:
        "the same through `POST /_emulator/seed` (an archive, as `ext seed FILE --target` sends it): ≤ 3 s, ≤ 64 MB above idle (medians)",
      measured: r ? `${r.seedRequestMs.median} ms, +${r.seedRequestPeakAboveIdleMB.median} MB` : "not run",
      met: r ? r.seedRequestMs.median <= 3000 && r.seedRequestPeakAboveIdleMB.median <= 64 : null,
    };
    return [time, memory, request];
  },
};
