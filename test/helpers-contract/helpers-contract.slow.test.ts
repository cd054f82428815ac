/**
 * test/helpers-contract/contract.ts against both helpers: type-checked with tsc --strict against the built Node
 * package's declarations here and against the Bun helper's types by `npm run typecheck`, then run with each (Bun in process;
 * Node on the bundle, spawning the compiled binary). Both must give the same answers.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { writeExportDir } from "../../server/exports/archive";
import { exportState } from "../../server/exports/document";
import { startEmulator } from "../../tools/helper/start-emulator";
import { BUILD_TIMEOUT_MS, type Built, buildBinary, cleanEnv } from "../binary/helpers";
import { sharedNodeHelper } from "../helpers/build-cache";

const ROOT = resolve(import.meta.dir, "../..");
const CONTRACT = join(import.meta.dir, "contract.ts");
let built: Built;
let pkg: string;

beforeAll(async () => {
  built = buildBinary();
  pkg = await sharedNodeHelper();
}, BUILD_TIMEOUT_MS);
afterAll(() => built?.cleanup());

function extensionFolder(): string {
  const dir = mkdtempSync(join(built.work, "ext-"));
  mkdirSync(join(dir, "sounds"));
  writeFileSync(join(dir, "sounds/a.mp3"), Buffer.from("ID3\x03\x00\x00\x00\x00\x00\x00contract-sound"));
  writeFileSync(join(dir, "manifest.json"), JSON.stringify({ sounds: [{ name: "a", file: "sounds/a.mp3" }] }));
  // Left out by the default rules, as `ext deploy` leaves it out.
  writeFileSync(join(dir, ".env"), "TOKEN=not-packed\n");
  return dir;
}

let bundledContract: Promise<string> | undefined;

/**
 * contract.ts bundled for Node once, with "emulator-helper" left external and resolved to the built Node
 * package, so Node loads the package as a user would.
 */
function contractForNode(): Promise<string> {
  bundledContract ??= (async () => {
    const result = await Bun.build({
      entrypoints: [CONTRACT],
      target: "node",
      format: "esm",
      outdir: built.work,
      naming: "contract.mjs",
      plugins: [
        {
          name: "node-helper",
          setup(build) {
            build.onResolve({ filter: /^emulator-helper$/ }, () => ({
              path: pathToFileURL(join(pkg, "index.mjs")).href,
              external: true,
            }));
          },
        },
      ],
    });
    expect(result.success).toBe(true);
    return join(built.work, "contract.mjs");
  })();
  return bundledContract;
}

/** Calls one function of contract.ts under Node, against the compiled binary; its answer, parsed. */
async function underNode(name: "contract" | "fromExport" | "rateLimits" | "profiles", ...args: string[]) {
  const script = `import { ${name} } from ${JSON.stringify(pathToFileURL(await contractForNode()).href)};
    console.log(JSON.stringify(await ${name}(...${JSON.stringify(args)})));`;
  const proc = Bun.spawn(["node", "--input-type=module", "-e", script], {
    cwd: built.work,
    env: cleanEnv({ EXT_BINARY: built.bin }),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr] = [await new Response(proc.stdout).text(), await new Response(proc.stderr).text()];
  expect(stderr).toBe("");
  expect(await proc.exited).toBe(0);
  return JSON.parse(stdout);
}

async function tsc(helperTypes: string): Promise<string> {
  const config = join(mkdtempSync(join(built.work, "tsc-")), "tsconfig.json");
  writeFileSync(
    config,
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        target: "ES2022",
        module: "Preserve",
        moduleResolution: "bundler",
        lib: ["ES2022", "DOM"],
        types: ["node"],
        typeRoots: [join(ROOT, "node_modules/@types")],
        skipLibCheck: true,
        allowImportingTsExtensions: true,
        paths: { "emulator-helper": [helperTypes] },
      },
      files: [CONTRACT],
    }),
  );
  const proc = Bun.spawn(["node", join(ROOT, "node_modules/typescript/bin/tsc"), "-p", config], {
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err] = [await new Response(proc.stdout).text(), await new Response(proc.stderr).text()];
  await proc.exited;
  return out + err;
}

test("the contract type-checks (tsc --strict) against the Node package's declarations", async () => {
  expect(await tsc(join(pkg, "index.d.ts"))).toBe("");
}, 120_000);

test("the contract type-checks against the Bun helper's types in `npm run typecheck` (the root project)", () => {
  // The root project's strict check already compiles contract.ts with "emulator-helper" naming the Bun helper:
  // a second tsc here would load the whole server's types again for nothing.
  const root = JSON.parse(readFileSync(join(ROOT, "tsconfig.json"), "utf8"));
  expect(root.compilerOptions.strict).toBe(true);
  expect(root.compilerOptions.paths["emulator-helper"]).toEqual(["./tools/helper/start-emulator.ts"]);
  expect(root.include).toContain("test");
  expect(root.exclude ?? []).toEqual([]);
});

test("the Bun helper and the Node helper give the same answers to every method", async () => {
  const { contract } = await import("./contract");
  const bun = await contract(extensionFolder());

  const node = await underNode("contract", extensionFolder());

  expect(bun).toMatchObject({
    created: { status: "draft", visibility: "private", installCount: 0 },
    where: {
      baseUrl: true,
      adminUrl: true,
      port: true,
      env: ["EXT_BASE_URL", "EXT_LOCAL_URL", "EXT_ADMIN_URL", "EXT_API_KEY", "EXT_ADMIN_TOKEN"],
      envValues: true,
      apiKey: true,
      demoKey: 401,
    },
    // What `ext deploy --json` prints, by the same names.
    first: {
      ok: true,
      dryRun: false,
      version: "1.0.0",
      status: "pending",
      versionId: true,
      files: [
        { path: "manifest.json", bytes: expect.any(Number) },
        { path: "sounds/a.mp3", bytes: 24 },
      ],
      excluded: [{ path: ".env", rule: expect.stringContaining("default") }],
      soundLimit: { value: 50, source: expect.any(String), used: 1 },
      warnings: [expect.stringContaining("left out a file that looks like a secret: .env")],
    },
    firstListed: { version: "1.0.0", changelog: "first" },
    approved: { status: "approved", current: true },
    installs: { total: 3, active: 3 },
    rolled: { active: 3, onSecond: 3 },
    rejected: { status: "rejected", reason: "not this one" },
    override: { max_sounds_per_extension: 80 },
    fault: { status: 503, times: 1 },
    faulted: 503,
    set: { now: "2030-01-01T00:00:00.000Z", mode: "frozen" },
    advanced: "2030-01-01T00:01:00.000Z",
    requests: [{ status: 503, keyId: "object", id: "number" }],
    // Every refusal is an ApiCallError with the API's status and code, a deploy's included.
    refused: {
      approveMissing: { status: 404, code: "version_not_found", limits: [] },
      deployMissingFolder: { error: true, apiCallError: false },
      deployMissingExtension: { status: 404, code: "extension_not_found", limits: [] },
      deployExistingVersion: { status: 409, code: "version_exists", limits: [] },
      deployOverLimit: { status: 422, code: "bundle_invalid", limits: ["max_sounds_per_extension"] },
    },
    adminState: 1,
    controlPlane: { tokenless: 401, wrongToken: 401, envToken: true },
    snapshots: { beforeRestore: 2, restoredOnce: 1, restoredTwice: 1 },
    connected: {
      same: [true, true, true, true, true],
      env: true,
      deployed: { ok: true, version: "1.0.0", status: "pending", versionId: true },
      seenByStarter: 2,
      approved: "approved",
      withOption: 1,
      missing: {
        name: "StartEmulatorError",
        message:
          "connectEmulator: EXT_BASE_URL, EXT_ADMIN_URL, EXT_API_KEY not set; pass emulator.env from startEmulator() (or run under ext exec)",
      },
      unknownOption: { name: "TypeError", message: 'connectEmulator: unknown option "adminTokn" (known: adminToken)' },
    },
    startRefusals: {
      unknownOption: 'startEmulator: unknown option "ratelimits"',
      ownFixture: "ext_contract_0123456789abcdefghij",
    },
    afterReset: 0,
  });
  // Ids differ between the two emulators; everything else is the same.
  const { created: _b, installs: bunInstalls, ...bunRest } = bun;
  const { created: _n, installs: nodeInstalls, ...nodeRest } = node;
  expect(nodeInstalls).toEqual(bunInstalls);
  expect(nodeRest).toEqual(bunRest);
}, 120_000);

/**
 * An export made in process: an approved version with a real bundle and 1,234 installs, under the demo fixture's
 * plaintext keys; and a copy whose plaintext keys are all revoked, so none of its keys can be handed out.
 */
async function exportDirs() {
  const { exportedBoard } = await import("./contract");
  const emu = await startEmulator({ rateLimits: false });
  const dir = join(mkdtempSync(join(built.work, "export-")), "state");
  let original: Awaited<ReturnType<typeof exportedBoard>>;
  try {
    const { id } = await emu.createExtension({ name: "Exported Board" });
    const version = await emu.deploy(extensionFolder(), { extensionId: id, version: "1.0.0" });
    await emu.approveVersion(version.versionId);
    await emu.addInstalls(id, 1234);
    writeExportDir(exportState(emu.runtime), (blob) => emu.runtime.blobs.pathOf(blob), dir);
    original = await exportedBoard(emu);
  } finally {
    await emu.stop();
  }
  const hashOnlyDir = `${dir}-hash-only`;
  cpSync(dir, hashOnlyDir, { recursive: true });
  const fixture = JSON.parse(readFileSync(join(dir, "fixture.json"), "utf8"));
  // Revoked: an export keeps a fixture key's plaintext after its revocation, and such a key would answer 401.
  for (const account of fixture.accounts)
    for (const k of account.apiKeys ?? []) if (k.key !== undefined) k.revokedAt = "2026-01-01T00:00:00.000Z";
  writeFileSync(join(hashOnlyDir, "fixture.json"), JSON.stringify(fixture));
  return { dir, hashOnlyDir, original };
}

test("both helpers start from an export directory (bundles included) and name the fix for hash-only keys", async () => {
  const { dir, hashOnlyDir, original } = await exportDirs();
  const { fromExport } = await import("./contract");
  const bun = await fromExport(dir, hashOnlyDir);

  const node = await underNode("fromExport", dir, hashOnlyDir);

  expect(original).toMatchObject({
    board: { status: "approved" },
    versions: [{ version: "1.0.0", status: "approved" }],
    bundle: { files: [expect.anything(), expect.anything()] },
    installs: { total: 1234 },
  });
  // The bundle tree is read from the loaded bundle's bytes: the same tree, so the same archive.
  expect(bun.loaded).toEqual(original);
  expect(bun.hashOnly).toContain("keys created through the API are exported as hashes");
  expect(bun.hashOnly).toContain(`add one to an account's apiKeys in ${hashOnlyDir}/fixture.json`);
  expect(node).toEqual(bun);
}, 120_000);

test("both helpers leave rate limits off by default; on, a 429 says how to turn them off or move the clock", async () => {
  const { rateLimits } = await import("./contract");
  const bun = await rateLimits();
  const node = await underNode("rateLimits");
  for (const answers of [bun, node]) {
    expect(answers.defaultOutcomes).toEqual(Array(11).fill(201));
    expect(answers.onOutcomes.slice(0, 10)).toEqual(Array(10).fill(201));
    const refused = String(answers.onOutcomes[10]);
    expect(refused).toStartWith("429 Too many requests for POST /extensions; retry after");
    expect(refused).toContain("--no-rate-limits");
    expect(refused).toContain("advanceClock(N)");
    expect(answers.afterAnHour).toEqual([201]);
  }
}, 120_000);

test("a platform profile: both helpers answer with it, from the profile itself or its file, and show it", async () => {
  const file = join(mkdtempSync(join(built.work, "profile-")), "platform.json");
  writeFileSync(
    file,
    JSON.stringify({
      profileVersion: 1,
      entries: [
        {
          operation: "GET /developer/v1/extensions/{id}/secrets",
          answer: 200,
          difference: "field-renamed",
          path: "keys",
          observed: "names",
        },
        { operation: "POST /developer/v1/extensions", answer: 201, difference: "status", observed: 200 },
      ],
    }),
  );
  const { profiles } = await import("./contract");
  const bun = await profiles(file);
  const answers = {
    created: 200,
    secrets: { names: [] },
    entries: ["keys is sent as names: ext's name for it is keys", "the status is 200: ext's (the spec's) is 201"],
  };
  expect(bun).toEqual({ object: answers, file: answers, refused: true });
  expect(await underNode("profiles", file)).toEqual(bun);
}, 120_000);
