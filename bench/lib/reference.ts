/**
 * The reference side of `npm run bench -- --against REF`: REF (any git ref) built beside this tree, the way a
 * fresh clone builds it — its own lockfile installed with `npm ci`, its own `npm run build` — so the two
 * binaries differ by the code between them and nothing else. Each commit is built once, under
 * $TMPDIR/ext-bench-against/<commit>, and reused by later runs, of this checkout or another one; only its
 * binary is kept (the clone with its node_modules is six times its size), and a commit no run used for a week
 * is removed.
 *
 * Beside the tree, not inside it: a checkout under this one would hand its test files to `bun test` and its
 * sources to the type check. A shared clone (`git clone --shared`, objects borrowed from this repository) rather
 * than a worktree: it leaves nothing in the repository's own metadata (no worktree to prune). It is built under
 * a name of its own and renamed into place when done, so two runs building the same commit never share a
 * half-built tree, and an interrupted build is never taken for a finished one.
 */
import { existsSync, mkdirSync, readdirSync, renameSync, statSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "./paths";
import { removeDir } from "./proc";

const CACHE_DIR = join(tmpdir(), "ext-bench-against");
/** A built commit no run used this long is removed (each is a 120 MB binary). */
const UNUSED_MS = 7 * 24 * 60 * 60_000;

/** Marks `dir` used now, and removes the other commits' builds unused for UNUSED_MS. */
function keepUsed(dir: string): void {
  const now = new Date();
  utimesSync(dir, now, now);
  for (const name of readdirSync(CACHE_DIR)) {
    const other = join(CACHE_DIR, name);
    try {
      if (other !== dir && Date.now() - statSync(other).mtimeMs > UNUSED_MS) removeDir(other);
    } catch {
      // removed by another run meanwhile
    }
  }
}

export interface Reference {
  /** The ref as given (`main`, `HEAD^1`, `01593f1`). */
  ref: string;
  commit: string;
  binary: string;
}

function run(cmd: string[], cwd: string): string {
  const proc = Bun.spawnSync(cmd, { cwd, stdout: "pipe", stderr: "pipe", env: { ...process.env, CI: "1" } });
  if (proc.exitCode !== 0) {
    const said = `${proc.stderr.toString()}${proc.stdout.toString()}`.trim().split("\n").slice(-15).join("\n");
    throw new Error(`${cmd.join(" ")} (in ${cwd}) failed with exit ${proc.exitCode}:\n${said}`);
  }
  return proc.stdout.toString().trim();
}

/** The full commit REF names in this repository; a clear error when it names none (a shallow clone's HEAD^1). */
export function resolveCommit(ref: string): string {
  const proc = Bun.spawnSync(["git", "rev-parse", "--verify", "--quiet", `${ref}^{commit}`], {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "pipe",
  });
  const commit = proc.stdout.toString().trim();
  if (proc.exitCode !== 0 || !/^[0-9a-f]{40}$/.test(commit))
    throw new Error(
      `--against ${ref}: this repository has no such commit (a shallow clone has no parents: fetch more history)`,
    );
  return commit;
}

/** Builds REF's binary (once per commit) and returns where it is. */
export function buildReference(ref: string, log: (line: string) => void): Reference {
  const commit = resolveCommit(ref);
  const dir = join(CACHE_DIR, commit);
  const binary = join(dir, "dist", "ext");
  if (existsSync(binary)) {
    log(`reference ${ref} (${commit.slice(0, 12)}): built earlier, ${binary}`);
    keepUsed(dir);
    return { ref, commit, binary };
  }
  mkdirSync(CACHE_DIR, { recursive: true });
  const building = `${dir}.building-${process.pid}`;
  const kept = `${dir}.kept-${process.pid}`;
  removeDir(building);
  removeDir(kept);
  try {
    log(`reference ${ref} (${commit.slice(0, 12)}): cloning beside this tree into ${building}`);
    run(["git", "clone", "--quiet", "--shared", "--no-checkout", ROOT, building], ROOT);
    run(["git", "checkout", "--quiet", "--detach", commit], building);
    log(`reference ${ref}: npm ci (its own lockfile)`);
    run(["npm", "ci", "--no-audit", "--no-fund"], building);
    log(`reference ${ref}: npm run build`);
    run(["npm", "run", "build"], building);
    if (!existsSync(join(building, "dist", "ext"))) throw new Error(`reference ${ref}: npm run build left no dist/ext`);
    // The binary alone, under the layout the clone had (dist/ext); the clone goes.
    mkdirSync(join(kept, "dist"), { recursive: true });
    renameSync(join(building, "dist", "ext"), join(kept, "dist", "ext"));
    // Another run may have finished the same commit meanwhile: its build is as good as this one.
    if (!existsSync(binary)) renameSync(kept, dir);
  } finally {
    removeDir(building);
    removeDir(kept);
  }
  keepUsed(dir);
  return { ref, commit, binary };
}
