/**
 * `npm run lint`'s second half: the OpenAPI document (what /openapi.json serves, as `ext openapi` prints it)
 * through Redocly's recommended rules and Spectral's `spectral:oas`, with the committed rulesets (redocly.yaml,
 * .spectral.yaml, each disabled rule with its reason), both pinned devDependencies run under Node, offline. Not a
 * single problem, error or warning. A broken copy of the document must fail both: the proof that the check can
 * fail. Each linter runs once over both documents (starting either costs seconds, one more document little).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { openApiDocument } from "../server";

const ROOT = resolve(import.meta.dir, "..");
const REDOCLY = join(ROOT, "node_modules/@redocly/cli/bin/cli.js");
const SPECTRAL = join(ROOT, "node_modules/@stoplight/spectral-cli/dist/index.js");

interface RedoclyReport {
  totals: { errors: number; warnings: number };
  problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
}
interface SpectralResult {
  code: string;
  severity: number;
  path: string[];
  message: string;
  source: string;
}

/** Runs a linter's CLI with Node, offline: no telemetry, no update check. */
async function run(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const proc = Bun.spawn(["node", ...args], {
    cwd,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: process.env.HOME ?? cwd,
      REDOCLY_TELEMETRY: "off",
      REDOCLY_SUPPRESS_UPDATE_NOTICE: "true",
      NO_UPDATE_NOTIFIER: "1",
      CI: "true",
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code, stdout, stderr };
}

/** The problems found: in the document (must be none), and whether the broken copy was failed by each linter. */
export async function lintOpenApi(): Promise<{
  problems: string[];
  brokenCaught: { redocly: boolean; spectral: boolean };
}> {
  const dir = mkdtempSync(join(tmpdir(), "ext-lint-openapi-"));
  try {
    const text = JSON.stringify(await openApiDocument());
    const file = join(dir, "openapi.json");
    writeFileSync(file, text);
    // Broken two ways: an invalid media type entry (both linters) and an operation without its 401 (our rule).
    const broken = JSON.parse(text) as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    (broken.paths["/healthz"]!.get!.responses["200"] as { content: unknown }).content = { type: "void" };
    delete broken.paths["/_emulator/clock"]!.get!.responses["401"];
    const brokenFile = join(dir, "broken.json");
    writeFileSync(brokenFile, JSON.stringify(broken));
    const [redocly, spectral] = await Promise.all([
      run([REDOCLY, "lint", file, brokenFile, "--config", join(ROOT, "redocly.yaml"), "--format=json"], dir),
      run(
        [SPECTRAL, "lint", file, brokenFile, "--ruleset", join(ROOT, ".spectral.yaml"), "--format", "json", "--quiet"],
        dir,
      ),
    ]);
    // Redocly prints one report per document, one after the other (`}{` between them).
    const reports = JSON.parse(`[${redocly.stdout.replace(/^\}\s*\{$/gm, "},{")}]`) as RedoclyReport[];
    const results = JSON.parse(spectral.stdout) as SpectralResult[];
    if (reports.length !== 2) throw new Error(`Redocly printed ${reports.length} reports:\n${redocly.stderr}`);
    const problems = [
      ...reports[0]!.problems.map((p) => `Redocly: ${p.severity} ${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`),
      ...results
        .filter((r) => r.source === file)
        .map((r) => `Spectral: severity ${r.severity} ${r.code} ${r.path.join(".")}: ${r.message}`),
    ];
    return {
      problems,
      brokenCaught: {
        redocly:
          redocly.code !== 0 &&
          reports[1]!.totals.errors > 0 &&
          reports[1]!.problems.some((p) => p.ruleId === "rule/operation-401-response"),
        spectral: spectral.code !== 0 && results.some((r) => r.source === brokenFile),
      },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const { problems, brokenCaught } = await lintOpenApi();
  const canFail = brokenCaught.redocly && brokenCaught.spectral;
  for (const problem of problems) console.error(problem);
  if (!canFail)
    console.error(
      `the linters no longer fail a broken document (Redocly: ${brokenCaught.redocly}, Spectral: ${brokenCaught.spectral}): the check cannot fail as it stands`,
    );
  if (problems.length > 0 || !canFail) process.exit(1);
  console.log("OpenAPI document: Redocly (recommended) and Spectral (spectral:oas): no error, no warning");
}
