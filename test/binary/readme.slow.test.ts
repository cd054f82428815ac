/**
 * The README's test example runs against both helpers, and the control plane's curl block (docs/control-plane.md)
 * runs against a real server: the docs are executable (docs/cli.md's examples: ./cli-examples.slow.test.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { sharedNodeHelper } from "../helpers/build-cache";
import { page, runExample, shellBlocks } from "./doc-blocks";
import { BUILD_TIMEOUT_MS, type Built, buildBinary, cleanEnv, run, serve } from "./helpers";

const README = page("README.md");
let built: Built;

beforeAll(() => {
  built = buildBinary();
}, BUILD_TIMEOUT_MS);
afterAll(() => built?.cleanup());

describe("docs/control-plane.md", () => {
  test("the curl block runs as pasted against a real server: every id comes from an earlier answer, every call succeeds", async () => {
    const [block] = shellBlocks(page("docs/control-plane.md"));
    expect(block!.script).toContain("H=http://127.0.0.1:4780 ");
    // No placeholder ids (ext_123, ver_123…): each must be captured from the answer that created it.
    expect(block!.script).not.toMatch(/\b[a-z]+_123\b/);
    const cwd = mkdtempSync(join(built.work, "control-plane-"));
    mkdirSync(join(cwd, "fixtures"));
    writeFileSync(
      join(cwd, "fixtures", "demo.json"),
      readFileSync(resolve(import.meta.dir, "../../fixtures/demo.json")),
    );
    // On ./.ext-data, as `npm start`: the block reads the admin token from its server.json.
    const server = await serve(built.bin, ["--seed", "demo"], cwd);
    try {
      // The one change: the server's free port for the default one. `curl -f` makes an HTTP error fail the script.
      const script =
        'curl() { command curl -fsS "$@"; echo; }\n' +
        block!.script.replace("H=http://127.0.0.1:4780 ", `H=${server.url} `);
      const { code, stdout, stderr } = await runExample(script, cwd, dirname(built.bin));
      if (code !== 0) throw new Error(`exit ${code}\n--- stdout\n${stdout}\n--- stderr\n${stderr}`);
      const answers = stdout.split("\n").filter((line) => line !== ""); // a DELETE answers 204, no body
      for (const line of answers) expect(() => JSON.parse(line)).not.toThrow();
      expect(answers.some((a) => a.includes('"status":"rejected"') && a.includes("Sounds are clipped."))).toBe(true);
    } finally {
      await server.stop();
    }
  }, 90_000);
});

describe("README: In your tests", () => {
  // docs/testing.md says the Bun example is the README's, importing from bun:test: the test makes it so.
  const [vitestExample] = shellBlocks(README, "ts");
  const example = vitestExample && {
    heading: vitestExample.heading,
    script: vitestExample.script.replace('from "vitest";', 'from "bun:test";'),
  };
  let nodePackage: string;
  beforeAll(async () => {
    nodePackage = await sharedNodeHelper();
  }, 60_000);

  /** A project that depends on the package (node_modules/ext-emulator is this repository), with the example in it. */
  async function project(script = example!.script, pkg = resolve(import.meta.dir, "../..")): Promise<string> {
    const dir = mkdtempSync(join(built.work, "suite-"));
    mkdirSync(join(dir, "node_modules"));
    symlinkSync(pkg, join(dir, "node_modules", "ext-emulator"));
    writeFileSync(join(dir, "example.test.ts"), script);
    return dir;
  }

  /**
   * `bun test` of the project's example; its exit code and the number of tests that passed. With this suite's
   * own time limit (package.json's --timeout): bun's default of 5 s for the example's beforeAll, which starts an
   * emulator, is passed on a loaded 2-core machine.
   */
  async function bunTest(dir: string, env: Record<string, string> = {}) {
    expect((await run(built.bin, ["init", "my-extension"], { cwd: dir })).code).toBe(0);
    const bun = resolve(import.meta.dir, "../../node_modules/.bin/bun");
    const proc = Bun.spawn([bun, "test", "--timeout=30000", "./example.test.ts"], {
      cwd: dir,
      env: cleanEnv(env),
      stdout: "pipe",
      stderr: "pipe",
    });
    const [, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
    return { code: await proc.exited, stderr };
  }

  test("the README's one test example is a vitest file, under its own heading; docs/testing.md names the Bun form", () => {
    expect(shellBlocks(README, "ts")).toHaveLength(1);
    expect(vitestExample?.heading).toBe("In your tests");
    expect(vitestExample?.script.split("\n")[0]).toBe(
      'import { afterAll, beforeAll, beforeEach, expect, test } from "vitest";',
    );
    expect(example?.script).not.toBe(vitestExample!.script);
    expect(page("docs/testing.md")).toContain("importing from `bun:test`");
  });

  test("the vitest example passes against the npm package (the Node helper running the compiled binary)", async () => {
    const dir = await project(vitestExample!.script, nodePackage);
    const { code, stderr } = await bunTest(dir, { EXT_BINARY: built.bin });
    expect(code, stderr).toBe(0);
    expect(stderr).toContain(`${vitestExample!.script.match(/^test\(/gm)?.length} pass`);
  }, 60_000);

  test("the startEmulator() example passes as a real bun test, importing the package by name", async () => {
    expect(example?.script).toContain('from "ext-emulator"');
    const dir = await project();
    // The folder the example deploys, as the README says it was made (bunTest runs `ext init my-extension`).
    const { code, stderr } = await bunTest(dir);
    expect(code, stderr).toBe(0);
    const tests = example!.script.match(/^test\(/gm)?.length ?? 0;
    expect(tests).toBeGreaterThan(1);
    expect(stderr).toContain(`${tests} pass`);
    expect(stderr).toContain(" 0 fail");
  }, 30_000);

  test("the startEmulator() example type-checks with tsc --strict against the package's declarations", async () => {
    // Both helpers export one Emulator (test/helpers-contract checks each against it); the declarations are the
    // cheap side to compile against, where the Bun helper's types would compile the whole server again.
    const dir = await project(example!.script, nodePackage);
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          target: "ESNext",
          module: "Preserve",
          moduleResolution: "bundler",
          types: ["bun"],
          typeRoots: [resolve(import.meta.dir, "../../node_modules/@types")],
          skipLibCheck: true,
        },
        files: ["example.test.ts"],
      }),
    );
    const tsc = resolve(import.meta.dir, "../../node_modules/typescript/bin/tsc");
    const { code, stdout, stderr } = await run("node", [tsc, "-p", "tsconfig.json"], { cwd: dir });
    expect(`${stdout}${stderr}`).toBe("");
    expect(code).toBe(0);
  }, 120_000);
});
