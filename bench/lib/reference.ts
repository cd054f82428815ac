/**
 * The reference side of `npm run bench -- --against REF`: REF (any git ref) built beside this tree, the way a
 * fresh clone builds it — its own lockfile installed with `npm ci`, its own `npm run build` — so the two
 * binaries differ by the code between them and nothing else. Each commit is built once, under
 * bench/.work/against/<commit>, and reused by later runs (a marker file says the build finished).
 *
 * A shared clone (`git clone --shared`, objects borrowed from this repository) rather than a worktree: it
 * leaves nothing in the repository's own metadata (no worktree to prune), and deleting bench/.work removes it.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, WORK_DIR } from "./paths";
import { removeDir } from "./proc";

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
  const dir = join(WORK_DIR, "against", commit);
  const binary = join(dir, "dist", "ext");
  const ready = join(dir, ".bench-built");
  if (existsSync(ready) && existsSync(binary)) {
    log(`reference ${ref} (${commit.slice(0, 12)}): built earlier, ${binary}`);
    return { ref, commit, binary };
  }
  // Whatever an interrupted build left is started over.
  removeDir(dir);
  mkdirSync(join(WORK_DIR, "against"), { recursive: true });
  log(`reference ${ref} (${commit.slice(0, 12)}): cloning beside this tree into ${dir}`);
  run(["git", "clone", "--quiet", "--shared", "--no-checkout", ROOT, dir], ROOT);
  run(["git", "checkout", "--quiet", "--detach", commit], dir);
  log(`reference ${ref}: npm ci (its own lockfile)`);
  run(["npm", "ci", "--no-audit", "--no-fund"], dir);
  log(`reference ${ref}: npm run build`);
  run(["npm", "run", "build"], dir);
  if (!existsSync(binary)) throw new Error(`reference ${ref}: npm run build left no ${binary}`);
  writeFileSync(ready, `${commit}\n`);
  return { ref, commit, binary };
}
