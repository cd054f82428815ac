/**
 * The reference side of `npm run bench -- --against REF`: REF (any git ref) built beside this tree, the way a
 * fresh clone builds it — its own lockfile installed with `npm ci`, its own `npm run build` — so the two
 * binaries differ by the code between them and nothing else. Each commit is built once, under
 * $TMPDIR/ext-bench-against/<commit>, and reused by later runs, of this checkout or another one.
 *
 * Beside the tree, not inside it: a checkout under this one would hand its test files to `bun test` and its
 * sources to the type check. A shared clone (`git clone --shared`, objects borrowed from this repository) rather
 * than a worktree: it leaves nothing in the repository's own metadata (no worktree to prune). It is built under
 * a name of its own and renamed into place when done, so two runs building the same commit never share a
 * half-built tree, and an interrupted build is never taken for a finished one.
 */
import { existsSync, mkdirSync, renameSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "./paths";
import { removeDir } from "./proc";

const CACHE_DIR = join(tmpdir(), "ext-bench-against");

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
    return { ref, commit, binary };
  }
  mkdirSync(CACHE_DIR, { recursive: true });
  const building = `${dir}.building-${process.pid}`;
  removeDir(building);
  try {
    log(`reference ${ref} (${commit.slice(0, 12)}): cloning beside this tree into ${building}`);
    run(["git", "clone", "--quiet", "--shared", "--no-checkout", ROOT, building], ROOT);
    run(["git", "checkout", "--quiet", "--detach", commit], building);
    log(`reference ${ref}: npm ci (its own lockfile)`);
    run(["npm", "ci", "--no-audit", "--no-fund"], building);
    log(`reference ${ref}: npm run build`);
    run(["npm", "run", "build"], building);
    if (!existsSync(join(building, "dist", "ext"))) throw new Error(`reference ${ref}: npm run build left no dist/ext`);
    // Another run may have finished the same commit meanwhile: its build is as good as this one.
    if (existsSync(binary)) removeDir(building);
    else renameSync(building, dir);
  } catch (e) {
    removeDir(building);
    throw e;
  }
  return { ref, commit, binary };
}
