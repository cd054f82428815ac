/**
 * `npm run image` → dist/image/ext-<version>-linux-x64.tar: a container image of the linux-x64 binary as a
 * docker-archive (`docker load -i …`, `podman load -i …`), built by podman from the build context `ext image`
 * writes (packaging/image/Containerfile, the binary and its C library): the same context a user of the npm
 * package makes with `npx ext image`.
 * Docker's format, not OCI's: it keeps the HEALTHCHECK. Only the host's architecture is built: the image needs
 * the target's C library, which this machine has only for itself.
 */
import { spawnSync } from "node:child_process";
import { existsSync, realpathSync, rmSync, statSync } from "node:fs";
import { arch } from "node:os";
import { basename, join } from "node:path";
import rootPkg from "../package.json" with { type: "json" };
import { sharedLibraries } from "../tools/cli/lib/image-context";
import { gitCommit } from "../tools/cli/lib/version";
import { compileBinary, prepareDashboard, ROOT } from "./lib/compile";

const OUT = join(ROOT, "dist/image");
const CONTEXT = join(OUT, "context");
const BINARY = join(ROOT, "dist/ext");
const CPU = arch() === "arm64" ? "arm64" : "x64";
const TAG = `ext-emulator:${rootPkg.version}`;
const ARCHIVE = join(OUT, `ext-${rootPkg.version}-linux-${CPU}.tar`);

function run(cmd: string, args: string[]): string {
  const r = spawnSync(cmd, args, { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (r.error) throw new Error(`${cmd}: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed (exit ${r.status}):\n${r.stderr}`);
  return r.stdout;
}

/** The build context, as a user of the npm package writes it: `ext image` of the binary just built. */
function stageContext(): void {
  rmSync(CONTEXT, { recursive: true, force: true });
  run(BINARY, ["image", CONTEXT]);
}

function podman(args: string[]): string {
  // vfs: works without overlay support or a fuse device; the store lives under dist/ and goes after the save.
  return run("podman", [
    "--root",
    join(OUT, ".store"),
    "--runroot",
    join(OUT, ".run"),
    "--storage-driver",
    "vfs",
    ...args,
  ]);
}

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

async function main(): Promise<void> {
  if (process.platform !== "linux") throw new Error("npm run image builds on Linux (it copies the host's C library)");
  // `--no-build`: image the dist/ext already there (CI has just built it).
  if (!process.argv.includes("--no-build") || !existsSync(BINARY)) {
    await prepareDashboard();
    compileBinary(BINARY);
  }
  stageContext();
  const commit = gitCommit(ROOT) ?? "unknown";
  const source = process.env.EXT_IMAGE_SOURCE ?? "unknown";
  try {
    podman([
      "build",
      "--format",
      "docker",
      "--pull=never",
      "-t",
      TAG,
      "--build-arg",
      `VERSION=${rootPkg.version}`,
      "--build-arg",
      `COMMIT=${commit}`,
      "--build-arg",
      `SOURCE=${source}`,
      "-f",
      join(CONTEXT, "Dockerfile"),
      CONTEXT,
    ]);
    rmSync(ARCHIVE, { force: true });
    podman(["save", "--format", "docker-archive", "-o", ARCHIVE, TAG]);
  } finally {
    rmSync(join(OUT, ".store"), { recursive: true, force: true });
    rmSync(join(OUT, ".run"), { recursive: true, force: true });
  }
  console.log(`built ${ARCHIVE.slice(ROOT.length + 1)} (${TAG}, ${mib(statSync(ARCHIVE).size)})`);
  console.log(`  ext binary  ${mib(statSync(BINARY).size)}`);
  for (const lib of sharedLibraries(BINARY))
    console.log(`  ${basename(lib).padEnd(11)} ${mib(statSync(realpathSync(lib)).size)}`);
}

await main().catch((e: Error) => {
  console.error(`npm run image: ${e.message}`);
  process.exit(1);
});
