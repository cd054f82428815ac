/**
 * Getting the bench ready from a fresh clone: its own tools (bench/package.json, installed with
 * `npm ci --prefix bench`, so the project's lockfile never carries them), the compiled binary, and a record
 * of the machine and versions that the results were taken on.
 */
import { existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { cpus, loadavg, release, totalmem } from "node:os";
import { join } from "node:path";
import { wrkVersion } from "./load";
import { BENCH_DIR, BENCH_PACKAGE, BUN, EXT_BINARY, GIVEN_BINARY, ROOT, WORK_DIR } from "./paths";

function run(cmd: string[], cwd = ROOT): string {
  const proc = Bun.spawnSync(cmd, { cwd, stdout: "pipe", stderr: "pipe" });
  if (proc.exitCode !== 0)
    throw new Error(`${cmd.join(" ")} failed (${proc.exitCode}): ${proc.stderr.toString().slice(0, 800)}`);
  return proc.stdout.toString().trim();
}

/** Installs bench/node_modules from bench/package-lock.json when it is missing or older than the lockfile. */
export function ensureBenchTools(log: (line: string) => void): void {
  const marker = join(BENCH_DIR, "node_modules", ".package-lock.json");
  const lock = join(BENCH_DIR, "package-lock.json");
  if (existsSync(marker) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs) return;
  log("installing bench tools: npm ci --prefix bench");
  run(["npm", "ci", "--prefix", BENCH_DIR, "--no-audit", "--no-fund"]);
}

/**
 * Builds dist/ext from the code checked out, every run: an mtime check would miss what else goes into the
 * binary (build flags in scripts/build.ts, migrations, the demo fixture, the docs UI), and the build takes
 * about a second of a run that takes minutes.
 */
export function ensureBinary(log: (line: string) => void): void {
  if (GIVEN_BINARY) {
    if (!existsSync(GIVEN_BINARY)) throw new Error(`EXT_BENCH_BINARY: no file at ${GIVEN_BINARY}`);
    log(`using ${GIVEN_BINARY} (EXT_BENCH_BINARY), not building dist/ext`);
    return;
  }
  log("building dist/ext: bun scripts/build.ts");
  run([BUN, "scripts/build.ts"]);
}

export function ensureWorkDir(): void {
  mkdirSync(join(WORK_DIR, "tmp"), { recursive: true });
}

function packageVersion(name: string): string {
  return (JSON.parse(readFileSync(BENCH_PACKAGE(name), "utf8")) as { version: string }).version;
}

export interface Environment {
  date: string;
  machine: { cpuModel: string; cores: number; memoryGiB: number; kernel: string; loadAvgAtStart: number[] };
  versions: { bun: string; node: string; wrk: string; prism: string; ext: string; commit: string };
  /** What the person running the bench says about the conditions (`--note="..."`), printed with the results. */
  note?: string;
}

export function describeEnvironment(note?: string): Environment {
  const cpu = cpus();
  let commit = "unknown";
  try {
    commit =
      run(["git", "rev-parse", "--short", "HEAD"]) +
      (run([
        "git",
        "status",
        "--porcelain",
        "--",
        "server",
        "tools",
        "common",
        "client",
        "scripts",
        "drizzle",
        "fixtures",
        "package.json",
      ])
        ? " (+ uncommitted changes)"
        : "");
  } catch {
    // Not a git checkout: the bench still runs.
  }
  return {
    date: new Date().toISOString(),
    machine: {
      cpuModel: cpu[0]?.model.trim() ?? "unknown",
      cores: cpu.length,
      memoryGiB: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
      kernel: release(),
      loadAvgAtStart: loadavg().map((n) => Math.round(n * 100) / 100),
    },
    versions: {
      bun: run([BUN, "--version"]),
      node: run(["node", "--version"]).replace(/^v/, ""),
      wrk: wrkVersion(),
      prism: packageVersion("@stoplight/prism-cli"),
      ext: run([EXT_BINARY, "--version"]),
      commit,
    },
    ...(note ? { note } : {}),
  };
}
