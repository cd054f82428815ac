/**
 * One server per data directory: a second one is refused with the holder's PID, a lock left by a dead
 * process is taken over, `--memory` directories of dead servers are swept, and nobody sweeps a live
 * server's upload temp files.
 */
import { afterAll, describe, expect, test } from "bun:test";
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { parseServerConfig } from "../server/base/config";
import { createLogger } from "../server/base/logger";
import {
  createMemoryDir,
  DataDirInUseError,
  LOCK_FILE,
  lockDataDir,
  memoryDirPrefix,
  PID_FILE,
} from "../server/data-dir/lock";
import { createRuntime } from "../server/runtime/runtime";
import { cleanEnv } from "./helpers/clean-env";
import { readUntil } from "./helpers/read-until";
import { extBinary } from "./helpers/run-cli";

const ROOT = join(import.meta.dir, "..");
const BUN = join(ROOT, "node_modules/.bin/bun");
const dirs: string[] = [];
const children: Bun.Subprocess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "ext-lock-"));
  dirs.push(dir);
  return dir;
}

const config = (dataDir: string) => parseServerConfig({ dataDir, logLevel: "silent", seed: null }, {});
const silent = { logger: createLogger("silent") };

/** A PID that belonged to a process which has exited (and been reaped). */
async function deadPid(): Promise<number> {
  const proc = Bun.spawn(["true"]);
  await proc.exited;
  return proc.pid;
}

/** A child process that runs `code` (with the lock module imported as `lock`), prints READY and waits. */
async function childHolding(code: string): Promise<{ proc: Bun.Subprocess; out: string }> {
  const script = `import * as lock from ${JSON.stringify(join(ROOT, "server/data-dir/lock.ts"))};\n${code}\nconsole.log("READY");\nsetInterval(() => {}, 1000);`;
  const proc = Bun.spawn([BUN, "-e", script], { cwd: ROOT, env: cleanEnv(), stdout: "pipe", stderr: "inherit" });
  children.push(proc);
  const out = await readUntil(proc.stdout as ReadableStream<Uint8Array>, /READY\n/);
  if (!out.includes("READY")) throw new Error(`child did not start: ${out}`);
  return { proc, out };
}

describe("data directory lock", () => {
  test("a second runtime on a directory in use is refused with the directory and the holder's PID; closing frees it", () => {
    const dir = tempDir();
    const first = createRuntime(config(dir), silent);
    try {
      let error: unknown;
      try {
        createRuntime(config(dir), silent).close();
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(DataDirInUseError);
      expect((error as Error).message).toBe(
        `data directory ${dir} is in use by another ext serve (PID ${process.pid}); stop it or give another --data-dir`,
      );
      expect((error as Error).message).not.toContain("\n");
    } finally {
      first.close();
    }
    createRuntime(config(dir), silent).close();
  });

  test("a lock held by another process names that process; once it is killed (-9) the lock is taken over", async () => {
    const dir = tempDir();
    const { proc } = await childHolding(`lock.lockDataDir(${JSON.stringify(dir)});`);
    expect(() => lockDataDir(dir)).toThrow(`data directory ${dir} is in use by another ext serve (PID ${proc.pid})`);
    proc.kill("SIGKILL");
    await proc.exited;
    const lock = lockDataDir(dir);
    expect(readFileSync(join(dir, PID_FILE), "utf8").trim()).toBe(String(process.pid));
    lock.release();
  });

  test("a stale lock (a dead PID, a lock file nobody holds, even one that is not a database) is taken over", async () => {
    for (const lockContent of ["", "not a database, left by something else"]) {
      const dir = tempDir();
      writeFileSync(join(dir, PID_FILE), `${await deadPid()}\n`);
      writeFileSync(join(dir, LOCK_FILE), lockContent);
      const runtime = createRuntime(config(dir), silent);
      expect(readFileSync(join(dir, PID_FILE), "utf8").trim()).toBe(String(process.pid));
      runtime.close();
    }
  });

  test("a runtime refused a held directory (`ext seed --data-dir` tries one first) sweeps nothing", () => {
    const dir = tempDir();
    const server = createRuntime(config(dir), silent);
    try {
      const inFlight = server.blobs.tempPath();
      writeFileSync(inFlight, "half an upload, still arriving");
      expect(() => createRuntime(config(dir), silent)).toThrow(DataDirInUseError);
      expect(existsSync(inFlight)).toBe(true);
    } finally {
      server.close();
    }
  });
});

describe("--memory directories", () => {
  test("are private directories in the temp dir; a start removes those of dead servers and keeps the live ones", async () => {
    const prefix = join(tempDir(), "ext-memory-");
    const P = JSON.stringify(prefix);
    // One alive in another process, one alive here (each start sweeps: these come first).
    const live = await childHolding(`const m = lock.createMemoryDir(${P}); console.log("DIR " + m.dir);`);
    const liveDir = /DIR (.+)\n/.exec(live.out)![1]!;
    const ours = createMemoryDir(prefix);
    // A server killed with -9 leaves its directory (and its bundles) behind; so does one killed mid-creation.
    const dead = await childHolding(
      `const m = lock.createMemoryDir(${P}); require("node:fs").mkdirSync(m.dir + "/blobs/objects", { recursive: true }); console.log("DIR " + m.dir);`,
    );
    const deadDir = /DIR (.+)\n/.exec(dead.out)![1]!;
    dead.proc.kill("SIGKILL");
    await dead.proc.exited;
    const halfMade = `${prefix}new-${await deadPid()}-abcdef`;
    mkdirSync(halfMade, { mode: 0o700 });
    for (const d of [deadDir, liveDir, ours.dir]) {
      expect(d.startsWith(prefix)).toBe(true);
      expect(statSync(d).mode & 0o777).toBe(0o700);
    }
    expect(existsSync(deadDir)).toBe(true);

    const next = createMemoryDir(prefix);
    expect(next.swept).toContain(basename(deadDir));
    expect(existsSync(deadDir)).toBe(false);
    expect(existsSync(halfMade)).toBe(false);
    expect(existsSync(liveDir)).toBe(true);
    expect(existsSync(ours.dir)).toBe(true);

    next.release();
    ours.release();
    expect(existsSync(ours.dir)).toBe(false);
    live.proc.kill("SIGKILL");
    await live.proc.exited;
  });

  test("two memory servers in one process: the second start's sweep keeps the first's lock, so another process's sweep leaves its directory", async () => {
    const prefix = join(tempDir(), "ext-memory-");
    const first = createMemoryDir(prefix);
    const second = createMemoryDir(prefix);
    try {
      // A start in another process sweeps too: the first directory's lock must still be held.
      const other = await childHolding(`lock.createMemoryDir(${JSON.stringify(prefix)});`);
      other.proc.kill("SIGKILL");
      await other.proc.exited;
      expect(existsSync(first.dir)).toBe(true);
      expect(existsSync(second.dir)).toBe(true);
    } finally {
      second.release();
      first.release();
    }
  });

  test("the sweep follows no symlink and leaves what another user (or an open mode) says is not ours", () => {
    const tmp = tempDir();
    const prefix = join(tmp, "ext-memory-");
    // A victim's folder, and a planted link named like a dead server's directory pointing at it.
    const victim = join(tmp, "victim");
    mkdirSync(victim);
    writeFileSync(join(victim, "precious"), "x");
    symlinkSync(victim, `${prefix}1-planted`);
    // A dead server's directory with a link inside: rm removes the link, not what it points to.
    const dead = `${prefix}2-dead`;
    mkdirSync(dead, { mode: 0o700 });
    symlinkSync(victim, join(dead, "blobs"));
    // Named like ours, but open to everyone: someone else's, not judged.
    const open = `${prefix}3-open`;
    mkdirSync(open);
    chmodSync(open, 0o777);
    const made = createMemoryDir(prefix);
    try {
      expect(made.swept).toEqual([basename(dead)]);
      expect(readFileSync(join(victim, "precious"), "utf8")).toBe("x");
      expect(lstatSync(`${prefix}1-planted`).isSymbolicLink()).toBe(true);
      expect(existsSync(open)).toBe(true);
    } finally {
      made.release();
    }
  });

  test.skipIf(process.getuid?.() !== 0)(
    "a directory another user owns is never swept (run as root: the test chowns one)",
    () => {
      const tmp = tempDir();
      const prefix = join(tmp, "ext-memory-");
      const theirs = `${prefix}4-theirs`;
      mkdirSync(theirs, { mode: 0o700 });
      writeFileSync(join(theirs, "bundle"), "theirs");
      chownSync(theirs, 65534, 65534);
      const made = createMemoryDir(prefix);
      made.release();
      expect(made.swept).toEqual([]);
      expect(readFileSync(join(theirs, "bundle"), "utf8")).toBe("theirs");
    },
  );

  test("a memory runtime's bundles live in its own private directory in the temp dir, removed on close", () => {
    const runtime = createRuntime(parseServerConfig({ memory: true, logLevel: "silent", seed: null }, {}), silent);
    const root = runtime.blobs.objectsDir;
    expect(root.startsWith(memoryDirPrefix())).toBe(true);
    expect(statSync(join(root, "../..")).mode & 0o777).toBe(0o700);
    runtime.close();
    expect(existsSync(root)).toBe(false);
  });
});

describe("ext serve", () => {
  test("a second `ext serve` on a data directory in use exits 1 with one line naming the directory and the PID", async () => {
    const dir = tempDir();
    const serve = (stdout: "pipe" | "ignore") =>
      Bun.spawn([extBinary(), "serve", "--port", "0", "--data-dir", dir, "--log-level", "warn"], {
        cwd: ROOT,
        env: cleanEnv(),
        stdout,
        stderr: "pipe",
      });
    const first = serve("pipe");
    children.push(first);
    await readUntil(first.stdout as ReadableStream<Uint8Array>, /listening on/);
    const second = serve("ignore");
    children.push(second);
    expect(await second.exited).toBe(1);
    const stderr = await new Response(second.stderr as ReadableStream).text();
    expect(stderr).toBe(
      `error: data directory ${dir} is in use by another ext serve (PID ${first.pid}); stop it or give another --data-dir\n`,
    );
    first.kill("SIGTERM");
    expect(await first.exited).toBe(0);
  });
});
