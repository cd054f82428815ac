/**
 * The served /openapi.json as a user's tools see it: Redocly CLI (recommended rules) and Spectral
 * (spectral:oas), both pinned devDependencies run under Node, with the committed rulesets (redocly.yaml,
 * .spectral.yaml, each disabled rule with its reason). Not a single problem, error or warning.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { cleanEnv } from "../helpers/clean-env";
import { startTestEmulator, stopTestEmulator, type TestEmulator } from "../helpers/emulator";

const ROOT = resolve(import.meta.dir, "../..");
let emu: TestEmulator;
let dir: string;
let file: string;

beforeAll(async () => {
  emu = await startTestEmulator();
  const res = await emu.rawRequest("GET", "/openapi.json");
  expect(res.status).toBe(200);
  dir = mkdtempSync(join(tmpdir(), "ext-lint-"));
  file = join(dir, "openapi.json");
  writeFileSync(file, res.text);
});
afterAll(async () => {
  await stopTestEmulator(emu);
  rmSync(dir, { recursive: true, force: true });
});

/** Runs a linter's CLI with Node, offline: no telemetry, no update check. */
async function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const proc = Bun.spawn(["node", ...args], {
    cwd: dir,
    env: cleanEnv({
      REDOCLY_TELEMETRY: "off",
      REDOCLY_SUPPRESS_UPDATE_NOTICE: "true",
      NO_UPDATE_NOTIFIER: "1",
      CI: "true",
    }),
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

let runs: Promise<{ redocly: RedoclyReport[]; spectral: SpectralResult[]; broken: string }> | undefined;

/**
 * Each linter runs once, over the served document and a broken copy of it (the proof that the checks can
 * fail): starting either costs seconds, linting one more document little.
 */
function lintBoth() {
  runs ??= (async () => {
    const doc = JSON.parse(await Bun.file(file).text());
    doc.paths["/healthz"].get.responses["200"].content = { type: "void" };
    delete doc.paths["/_emulator/clock"].get.responses["401"];
    const broken = join(dir, "broken.json");
    writeFileSync(broken, JSON.stringify(doc));
    const [redocly, spectral] = await Promise.all([
      run([REDOCLY, "lint", file, broken, "--config", join(ROOT, "redocly.yaml"), "--format=json"]),
      run([SPECTRAL, "lint", file, broken, "--ruleset", join(ROOT, ".spectral.yaml"), "--format", "json", "--quiet"]),
    ]);
    // Redocly prints one report per document, one after the other (`}{` between them); a broken document makes both exit non-zero.
    expect({ redocly: redocly.code, spectral: spectral.code }).toEqual({ redocly: 1, spectral: 1 });
    return {
      redocly: JSON.parse(`[${redocly.stdout.replace(/^\}\s*\{$/gm, "},{")}]`) as RedoclyReport[],
      spectral: JSON.parse(spectral.stdout) as SpectralResult[],
      broken,
    };
  })();
  return runs;
}

test("Redocly (recommended rules): no error, no warning", async () => {
  const { redocly } = await lintBoth();
  expect(redocly).toHaveLength(2);
  const report = redocly[0]!;
  const problems = report.problems.map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`);
  expect(problems).toEqual([]);
  expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
}, 60_000);

test("Spectral (spectral:oas): no error, no warning", async () => {
  const { spectral } = await lintBoth();
  const problems = spectral
    .filter((r) => r.source === file)
    .map((r) => `${r.severity} ${r.code} ${r.path.join(".")}: ${r.message}`);
  expect(problems).toEqual([]);
}, 60_000);

test("the linters do fail a broken document (the checks above can fail)", async () => {
  const { redocly, spectral, broken } = await lintBoth();
  expect(redocly[1]!.problems.map((p) => p.ruleId)).toContain("rule/operation-401-response");
  expect(redocly[1]!.totals.errors).toBeGreaterThan(0);
  expect(spectral.filter((r) => r.source === broken).length).toBeGreaterThan(0);
}, 60_000);
