/**
 * One `bun build --compile` of tools/cli/main.ts: the host's binary (`npm run build`) or another platform's
 * (`npm run release`, `npm run package -- --all`). Never plain --minify: it renames identifiers and breaks Elysia.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { EMBEDDED_NAME } from "../../server/dashboard/assets";
import { buildDashboard } from "../../server/dashboard/build";
import { gitCommit } from "../../tools/cli/lib/version";

export const ROOT = resolve(import.meta.dir, "../..");

/** The platforms `npm run release` builds: npm's os/cpu names, Bun's compile target, the file name. */
export const PLATFORMS = [
  { os: "linux", cpu: "x64", target: "bun-linux-x64" },
  { os: "linux", cpu: "arm64", target: "bun-linux-arm64" },
  { os: "darwin", cpu: "x64", target: "bun-darwin-x64" },
  { os: "darwin", cpu: "arm64", target: "bun-darwin-arm64" },
  { os: "win32", cpu: "x64", target: "bun-windows-x64" },
] as const;
export type Platform = (typeof PLATFORMS)[number];

/** `ext-linux-x64`, `ext-windows-x64.exe`: the release file name (Bun's spelling of the OS). */
export const releaseName = (p: Platform) => `ext-${p.target.slice(4)}${p.os === "win32" ? ".exe" : ""}`;

export const hostPlatform = (): Platform | undefined =>
  PLATFORMS.find((p) => p.os === process.platform && p.cpu === process.arch);

let dashboardFile: string | null = null;

/**
 * Builds the dashboard (ui/) once per process into a temp file that every compileBinary() of this process
 * embeds as one extra input, read back at run time through Bun.embeddedFiles. Call it before compiling.
 */
export async function prepareDashboard(): Promise<void> {
  if (dashboardFile) return;
  const dir = mkdtempSync(join(tmpdir(), "ext-ui-"));
  process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, EMBEDDED_NAME);
  writeFileSync(file, JSON.stringify(await buildDashboard(ROOT)));
  dashboardFile = file;
}

/**
 * How the binary's JavaScript is bundled (before it is compiled): also what test/http/sync-answers.test.ts bundles
 * the app with, since Elysia reads the source text of the bundle's functions.
 */
export const BUNDLE_FLAGS = [
  "--minify-whitespace",
  "--minify-syntax",
  // CommonJS output: a built-in module (node:zlib, node:stream, …) is then required where the module using it
  // is first evaluated, so a command or a route loaded lazily brings its built-ins with it. ESM output hoists
  // every import to the top of the bundle, so every start paid for all of them. (No top-level await then.)
  "--format=cjs",
] as const;

export function compileBinary(outfile: string, target?: string): void {
  if (!dashboardFile)
    throw new Error("compileBinary: call prepareDashboard() first (the dashboard is embedded in every binary)");
  mkdirSync(dirname(outfile), { recursive: true });
  const args = [
    "build",
    "--compile",
    ...(target ? [`--target=${target}`] : []),
    ...BUNDLE_FLAGS,
    "--sourcemap=none",
    // JavaScriptCore bytecode compiled at build time: the binary starts without parsing its bundle (a large part
    // of its cold start).
    "--bytecode",
    // A start runs a burst of code once (modules, schemas, routes, statements): the JIT starts 8× more reluctant to
    // compile it, a third of `ext serve`'s CPU before its first answer on two cores. A process that goes on serving
    // puts the JIT back to normal as it starts listening (common/jit-policy.ts).
    "--compile-jit-policy=8",
    // A user's .env or bunfig.toml in the working directory must not change the binary's behaviour.
    "--no-compile-autoload-dotenv",
    "--no-compile-autoload-bunfig",
    // `ext --version` names the commit (tools/cli/lib/version.ts); the binary has no git to ask.
    "--define",
    `EXT_BUILD_COMMIT=${JSON.stringify(gitCommit(ROOT) ?? "unknown")}`,
    "tools/cli/main.ts",
    dashboardFile,
    "--outfile",
    outfile,
  ];
  const proc = Bun.spawnSync([process.execPath, ...args], { stdout: "inherit", stderr: "inherit", cwd: ROOT });
  if (proc.exitCode !== 0)
    throw new Error(`bun build --compile${target ? ` --target=${target}` : ""} failed (exit ${proc.exitCode})`);
}
