/**
 * `npm run build` → dist/ext: one self-contained executable (server + CLI) with the migrations, the docs UI
 * and the demo fixture embedded. Never plain --minify: it renames identifiers and breaks Elysia.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { EMBEDDED_NAME } from "../src/dashboard/assets";
import { buildDashboard } from "../src/dashboard/build";

// `--outfile PATH` builds elsewhere (the binary tests build their own copy, so parallel runs never share one).
const at = process.argv.indexOf("--outfile");
const outfile = at > 0 && process.argv[at + 1] ? process.argv[at + 1]! : "dist/ext";
mkdirSync(dirname(outfile), { recursive: true });
// The dashboard, built first and embedded as one extra input file (read back through Bun.embeddedFiles).
const uiDir = mkdtempSync(join(tmpdir(), "ext-ui-"));
const uiFile = join(uiDir, EMBEDDED_NAME);
writeFileSync(uiFile, JSON.stringify(await buildDashboard(`${import.meta.dir}/..`)));
const args = [
  "build",
  "--compile",
  "--minify-whitespace",
  "--minify-syntax",
  "--sourcemap=none",
  // JavaScriptCore bytecode compiled at build time: the binary starts without parsing its bundle (about half the
  // cold start, measured in bench/). Bytecode needs the ESM output format for the CLI's top-level await.
  "--bytecode",
  "--format=esm",
  // A user's .env or bunfig.toml in the working directory must not change the binary's behaviour.
  "--no-compile-autoload-dotenv",
  "--no-compile-autoload-bunfig",
  "cli/main.ts",
  uiFile,
  "--outfile",
  outfile,
];
const proc = Bun.spawnSync([process.execPath, ...args], { stdout: "inherit", stderr: "inherit", cwd: `${import.meta.dir}/..` });
rmSync(uiDir, { recursive: true, force: true });
if (proc.exitCode !== 0) process.exit(proc.exitCode ?? 1);
console.log(`built ${outfile}`);
