/**
 * examples/typed-client: its types are generated here, as its `npm run generate` does (openapi-typescript
 * alone, on the document `ext openapi` prints; not committed in the example); it
 * type-checks with strict settings, integers are `number`, and it runs against a real emulator. Everything
 * resolves from the root's devDependencies: no install step.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { generateDocumentTypes } from "../../scripts/lib/client-types";
import { type BundleDir, bundleDir } from "../helpers/bundles";
import { cleanEnv } from "../helpers/clean-env";
import { DEMO_KEY, startTestEmulator, stopTestEmulator, type TestEmulator } from "../helpers/emulator";

const ROOT = resolve(import.meta.dir, "../..");
const EXAMPLE = join(ROOT, "examples/typed-client");
let emu: TestEmulator;
let bundles: BundleDir;

beforeAll(async () => {
  // Where the example's tsconfig finds it (gitignored there); written whole, so a parallel run never reads half.
  const types = join(EXAMPLE, "src/api.d.ts");
  writeFileSync(`${types}.${process.pid}`, await generateDocumentTypes());
  renameSync(`${types}.${process.pid}`, types);
  emu = await startTestEmulator();
  bundles = bundleDir();
});
afterAll(async () => {
  await stopTestEmulator(emu);
  bundles.cleanup();
});

async function run(cmd: string[], env: Record<string, string> = {}) {
  const proc = Bun.spawn(cmd, { cwd: EXAMPLE, env: cleanEnv(env), stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { stdout, stderr, code };
}

test("the generated types have named schemas and no string-or-number integers", () => {
  const types = readFileSync(join(EXAMPLE, "src/api.d.ts"), "utf8");
  // Booleans: a failure must not print the whole 8,000-line file.
  expect(types.includes("string | number")).toBe(false);
  expect(types.match(/installCount: number;/g)?.length).toBe(2);
  const schemas = types.slice(types.indexOf("export interface components {"));
  for (const name of ["Extension", "ExtensionSummary", "InstallStatistics", "Limits", "Error"])
    expect(schemas.includes(`\n        ${name}: {`), name).toBe(true);
});

test("the example type-checks with strict settings", async () => {
  const tsconfig = JSON.parse(readFileSync(join(EXAMPLE, "tsconfig.json"), "utf8"));
  expect(tsconfig.compilerOptions).toMatchObject({
    strict: true,
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: true,
  });
  const tsc = await run(["node", join(ROOT, "node_modules/typescript/bin/tsc"), "-p", "."]);
  expect(tsc.stdout + tsc.stderr).toBe("");
  expect(tsc.code).toBe(0);
}, 120_000);

test("it creates, lists, submits a version, reads installs and limits, and manages a secret against a running emulator", async () => {
  const bundle = await bundles.make();
  const res = await run([join(ROOT, "node_modules/.bin/bun"), "src/main.ts", bundle], {
    EXT_BASE_URL: emu.baseUrl,
    EXT_API_KEY: DEMO_KEY,
  });
  expect(res.stderr).toBe("");
  expect(res.code).toBe(0);
  const tour = JSON.parse(res.stdout);
  expect(tour).toMatchObject({
    listed: 1,
    versionStatus: "pending",
    installs: { total: 0, active: 0 },
    secretKeys: ["API_TOKEN"],
  });
  expect(tour.extension).toMatchObject({ name: "Typed Client Board", installCount: 0 });
  expect(typeof tour.soundLimit).toBe("number");
  const secrets = await emu.client.GET("/developer/v1/extensions/{id}/secrets", {
    params: { path: { id: tour.extension.id } },
  });
  expect(secrets.data?.keys).toEqual([]);
}, 60_000);
