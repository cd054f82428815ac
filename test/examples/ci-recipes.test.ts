/**
 * examples/ci: each recipe parses and names this version and the image's own health check; the composite
 * action's script, run as GitHub would (a fake GITHUB_ENV, a release served from a local folder), downloads,
 * verifies, starts the compiled binary and exports what a job needs; the environment the recipes give a job
 * works against the binary. What needs a container runtime or GitHub itself is not run here.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { alive, BUILD_TIMEOUT_MS, type Built, buildBinary, cleanEnv } from "../binary/helpers";

const ROOT = resolve(import.meta.dir, "../..");
const CI = join(ROOT, "examples/ci");
const VERSION = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
const DEMO_KEY = "ext_demo_0123456789abcdefghijklmnopqrstuv";

type Yaml = Record<string, any>;
const recipe = (name: string): Yaml => Bun.YAML.parse(readFileSync(join(CI, name), "utf8")) as Yaml;

let built: Built;
let work: string;
beforeAll(() => {
  built = buildBinary();
  work = mkdtempSync(join(tmpdir(), "ext-ci-recipes-"));
}, BUILD_TIMEOUT_MS);
afterAll(() => {
  built.cleanup();
  rmSync(work, { recursive: true, force: true });
});

test("the Containerfile's health check, user and port are what the recipes rely on", () => {
  const file = readFileSync(join(ROOT, "packaging/image/Containerfile"), "utf8");
  expect(file).toContain('HEALTHCHECK --interval=5s --timeout=3s --start-period=2s --retries=3 CMD ["/ext", "health"]');
  expect(file).toContain("EXPOSE 4780");
  expect(file).toContain("USER 10001:10001");
  expect(file).toMatch(/EXT_HOST=0\.0\.0\.0/);
});

test("GitHub services: the image of this version, port 4780, the API's address and key for the job", () => {
  const job = recipe("github-services.yml").jobs.test;
  expect(job.services.ext.image).toEndWith(`/ext:${VERSION}`);
  expect(job.services.ext.ports).toEqual(["4780:4780"]);
  expect(job.services.ext.env.EXT_ADMIN_TOKEN).toBeString();
  expect(job.env).toMatchObject({ EXT_BASE_URL: "http://127.0.0.1:4780/developer/v1", EXT_API_KEY: DEMO_KEY });
});

test("GitLab services and docker compose: the alias or service name is the host the job calls", () => {
  const gitlab = recipe("gitlab-ci.yml").test;
  expect(gitlab.services[0]).toMatchObject({ alias: "ext" });
  expect(gitlab.services[0].name).toEndWith(`/ext:${VERSION}`);
  expect(gitlab.variables.EXT_BASE_URL).toBe("http://ext:4780/developer/v1");
  const compose = recipe("docker-compose.yml").services;
  expect(compose.ext.image).toBe(`localhost/ext-emulator:${VERSION}`);
  expect(compose.ext.healthcheck.test).toEqual(["CMD", "/ext", "health"]);
  expect(compose.tests.depends_on.ext.condition).toBe("service_healthy");
  expect(compose.tests.environment.EXT_BASE_URL).toBe("http://ext:4780/developer/v1");
  expect(compose.tests.environment.EXT_ADMIN_TOKEN).toBe(compose.ext.environment.EXT_ADMIN_TOKEN);
});

test("the composite action runs its script with the inputs it declares", () => {
  const action = recipe("github-action/action.yml");
  expect(action.runs.using).toBe("composite");
  const step = action.runs.steps[0];
  expect(step.run).toContain("start.sh");
  for (const input of ["version", "seed", "port", "api-key"]) expect(Object.keys(action.inputs)).toContain(input);
  expect(recipe("github-action.yml").jobs.test.steps.some((s: Yaml) => s.uses === "./.github/actions/ext")).toBe(true);
});

/** A release folder as GitHub serves it: the binary under its release name and SHA256SUMS. */
function release(tamper: boolean): string {
  const dir = mkdtempSync(join(work, "release-"));
  copyFileSync(built.bin, join(dir, "ext-linux-x64"));
  const sum = new Bun.CryptoHasher("sha256").update(readFileSync(built.bin)).digest("hex");
  writeFileSync(join(dir, "SHA256SUMS"), `${sum}  ext-linux-x64\n${"0".repeat(64)}  ext-darwin-arm64\n`);
  if (tamper) writeFileSync(join(dir, "ext-linux-x64"), "#!/bin/sh\necho not ext\n");
  return dir;
}

async function runAction(releaseDir: string) {
  const githubEnv = join(mkdtempSync(join(work, "gh-")), "env");
  writeFileSync(githubEnv, "");
  const proc = Bun.spawn(["bash", join(CI, "github-action/start.sh")], {
    cwd: work,
    env: cleanEnv({
      RUNNER_OS: "Linux",
      RUNNER_ARCH: "X64",
      EXT_RELEASE_URL: `file://${releaseDir}`,
      EXT_INSTALL_DIR: join(releaseDir, "installed"),
      EXT_PORT: "0",
      GITHUB_ENV: githubEnv,
    }),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  const exported = Object.fromEntries(
    readFileSync(githubEnv, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
  );
  return { code, stdout, stderr, exported };
}

test("the action's script: downloads, verifies, starts, and exports a base URL and key that work", async () => {
  const run = await runAction(release(false));
  expect(run.code, run.stderr).toBe(0);
  const { EXT_BASE_URL, EXT_API_KEY, EXT_ADMIN_URL, EXT_ADMIN_TOKEN, EXT_PID } = run.exported;
  expect(EXT_BASE_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/developer\/v1$/);
  try {
    const list = await fetch(`${EXT_BASE_URL}/extensions`, { headers: { authorization: `Bearer ${EXT_API_KEY}` } });
    expect(list.status).toBe(200);
    expect(await list.json()).toHaveProperty("extensions");
    // The control plane takes the exported token, and nothing without it.
    expect(EXT_ADMIN_TOKEN).toMatch(/^adm_/);
    expect((await fetch(`${EXT_ADMIN_URL}/state`)).status).toBe(401);
    expect(
      (await fetch(`${EXT_ADMIN_URL}/state`, { headers: { authorization: `Bearer ${EXT_ADMIN_TOKEN}` } })).status,
    ).toBe(200);
  } finally {
    process.kill(Number(EXT_PID), "SIGTERM");
  }
  for (let i = 0; i < 200 && alive(Number(EXT_PID)); i++) await Bun.sleep(10);
  expect(alive(Number(EXT_PID))).toBe(false);
}, 30_000);

test("the action's script refuses a binary that does not match SHA256SUMS, and starts nothing", async () => {
  const run = await runAction(release(true));
  expect(run.code).not.toBe(0);
  expect(run.stderr).toContain("ext-linux-x64 does not match SHA256SUMS");
  expect(run.exported).toEqual({});
}, 30_000);

test("off loopback, the recipes' admin token opens the control plane and nothing else does", async () => {
  const token = recipe("docker-compose.yml").services.ext.environment.EXT_ADMIN_TOKEN as string;
  const ready = join(mkdtempSync(join(work, "ready-")), "ready.json");
  const proc = Bun.spawn([built.bin, "serve", "--memory", "--port", "0", "--ready-file", ready], {
    cwd: work,
    env: cleanEnv({ EXT_HOST: "0.0.0.0", EXT_ADMIN_TOKEN: token, EXT_SEED: "demo", EXT_LOG_LEVEL: "warn" }),
    stdout: "pipe",
    stderr: "pipe",
  });
  try {
    for (let i = 0; i < 400 && proc.exitCode === null; i++) {
      try {
        readFileSync(ready);
        break;
      } catch {
        await Bun.sleep(25);
      }
    }
    const { port } = JSON.parse(readFileSync(ready, "utf8")) as { port: number };
    const root = `http://127.0.0.1:${port}`;
    expect((await fetch(`${root}/_emulator/state`)).status).toBe(401);
    expect((await fetch(`${root}/_emulator/state`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(
      200,
    );
    const health = Bun.spawnSync([built.bin, "health", "--url", root], { env: cleanEnv() });
    expect(health.exitCode).toBe(0);
  } finally {
    proc.kill("SIGTERM");
    await proc.exited;
  }
  const down = Bun.spawnSync([built.bin, "health", "--url", "http://127.0.0.1:9", "--timeout", "500"], {
    env: cleanEnv(),
  });
  expect(down.exitCode).toBe(1);
  expect(down.stderr.toString()).toContain("no emulator answered at http://127.0.0.1:9/healthz");
}, 30_000);

test("the release workflow runs CI's own scripts, then publishes what they made", () => {
  const wf = Bun.YAML.parse(readFileSync(join(ROOT, ".github/workflows/release.yml"), "utf8")) as Yaml;
  expect(wf.on.push.tags).toEqual(["v*"]);
  expect(wf.permissions["id-token"]).toBe("write");
  const runs = (wf.jobs.release.steps as Yaml[]).map((s) => String(s.run ?? "")).join("\n");
  expect(runs).toContain("bash .ci/run");
  expect(runs).toContain('for package in dist/npm/*.tgz; do npm publish "$package" --provenance --access public; done');
  expect(runs).toContain("dist/release/ext-* dist/release/SHA256SUMS");
  expect(runs).toContain('docker load -i "dist/image/ext-$version-linux-x64.tar"');
  const ci = readFileSync(join(ROOT, ".ci/run"), "utf8");
  for (const step of ["npm run package -- --all", "bash packaging/registry.sh", "npm run release", "npm run image"])
    expect(ci).toContain(step);
});
