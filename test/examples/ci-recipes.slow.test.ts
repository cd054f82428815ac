/**
 * examples/ci: the npm recipes' commands run as they are in a project whose node_modules holds the compiled
 * binary; each image recipe parses and names this version, how to get the image, and the image's own health
 * check; the composite action's script, run as GitHub would (a fake GITHUB_ENV), installs with npm (a stand-in
 * npm on PATH: the real install by name is packaging/registry.sh) or downloads the platform tarball from a
 * registry served here, verifies it, starts the binary and exports what a job needs, its admin token masked. No
 * recipe holds a fixed admin token; one given as the recipes give it opens the control plane off loopback, at
 * the name the job calls. What needs a container runtime or GitHub itself is not run here.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Server } from "bun";
import { alive, BUILD_TIMEOUT_MS, type Built, buildBinary, cleanEnv } from "../binary/helpers";
import { readReadyFile } from "../helpers/ready-file";
import { waitFor } from "../helpers/wait-for";

const ROOT = resolve(import.meta.dir, "../..");
const CI = join(ROOT, "examples/ci");
const VERSION = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
const DEMO_KEY = "ext_demo_0123456789abcdefghijklmnopqrstuv";
// biome-ignore lint/suspicious/noTemplateCurlyInString: GitHub's expression syntax, read from the recipe as text
const GITHUB_SECRET = "${{ secrets.EXT_ADMIN_TOKEN }}";

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
  expect(file).toContain(
    'HEALTHCHECK --interval=5s --timeout=3s --start-period=2s --retries=3 CMD ["/ext", "health", "--url", "http://127.0.0.1:4780"]',
  );
  expect(file).toContain("EXPOSE 4780");
  expect(file).toContain("USER 10001:10001");
  expect(file).toMatch(/EXT_HOST=0\.0\.0\.0/);
});

test("the binary is copied by the Containerfile's last instruction, so a builder copies it once (CI's disk)", () => {
  const instructions = readFileSync(join(ROOT, "packaging/image/Containerfile"), "utf8")
    .split("\n")
    .filter((line) => /^[A-Z]+ /.test(line));
  expect(instructions.at(-1)).toBe("COPY rootfs/ /");
  expect(instructions.filter((line) => line.startsWith("COPY rootfs/"))).toHaveLength(1);
});

test("GitHub services: the image of this version, port 4780, the API's address and key for the job", () => {
  const job = recipe("github-services.yml").jobs.test;
  expect(job.services.ext.image).toEndWith(`/ext:${VERSION}`);
  expect(job.services.ext.ports).toEqual(["4780:4780"]);
  // A repository secret, the same for the service and the job; the name a job in a container calls it by.
  expect(job.services.ext.env.EXT_ADMIN_TOKEN).toBe(GITHUB_SECRET);
  expect(job.env.EXT_ADMIN_TOKEN).toBe(GITHUB_SECRET);
  expect(job.services.ext.env.EXT_ALLOWED_HOSTS).toBe("ext");
  expect(job.env).toMatchObject({ EXT_BASE_URL: "http://127.0.0.1:4780/developer/v1", EXT_API_KEY: DEMO_KEY });
});

test("the npm recipes: `npm ci`, then `npx ext exec -- npm test`, and nothing else to set up", () => {
  const github = recipe("github-actions.yml").jobs.test.steps.map((s: Yaml) => s.run ?? s.uses);
  expect(github).toEqual(["actions/checkout@v4", "actions/setup-node@v4", "npm ci", "npx ext exec -- npm test"]);
  const gitlab = recipe("gitlab-ci.yml").test;
  expect(gitlab.image).toBe("node:20");
  expect(gitlab.services).toBeUndefined();
  expect(gitlab.script).toEqual(["npm ci --cache .npm --prefer-offline", "npx ext exec -- npm test"]);
});

test("the README's GitHub Actions recipe is examples/ci/github-actions.yml", () => {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("\n## In CI\n"));
  const block = /```yaml\n([\s\S]*?)```/.exec(section)?.[1];
  expect(Bun.YAML.parse(block!)).toEqual(recipe("github-actions.yml"));
});

test("the npm recipes' test command runs as it is: the tests see a working emulator, their exit code is the job's", async () => {
  // A project after `npm ci`: node_modules/.bin/ext is the executable (the launcher's job; here the binary itself).
  const project = mkdtempSync(join(work, "project-"));
  mkdirSync(join(project, "node_modules/.bin"), { recursive: true });
  symlinkSync(built.bin, join(project, "node_modules/.bin/ext"));
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({ name: "user-project", private: true, scripts: { test: "node check.mjs" } }),
  );
  writeFileSync(
    join(project, "check.mjs"),
    `const res = await fetch(process.env.EXT_BASE_URL + "/extensions", { headers: { authorization: "Bearer " + process.env.EXT_API_KEY } });
     const state = await fetch(process.env.EXT_ADMIN_URL + "/state", { headers: { authorization: "Bearer " + process.env.EXT_ADMIN_TOKEN } });
     console.log("extensions:", res.status, "state:", state.status);
     process.exit(res.status === 200 && state.status === 200 ? Number(process.env.CHECK_EXIT ?? 0) : 9);`,
  );
  const command = recipe("gitlab-ci.yml").test.script.at(-1) as string;
  const job = (env: Record<string, string> = {}) =>
    Bun.spawnSync(["sh", "-c", command], { cwd: project, env: cleanEnv(env), stdout: "pipe", stderr: "pipe" });
  const passing = job();
  expect(passing.stdout.toString()).toContain("extensions: 200 state: 200");
  expect(passing.exitCode).toBe(0);
  expect(job({ CHECK_EXIT: "3" }).exitCode).toBe(3);
}, 60_000);

test("the image recipes say how to get the image from the npm package alone: ext image, then build", () => {
  for (const name of ["github-services.yml", "gitlab-services.yml", "docker-compose.yml", "README.md"]) {
    const text = readFileSync(join(CI, name), "utf8");
    expect([name, /npx (--package ext-emulator@[0-9.]+ )?ext image ext-image/.test(text)]).toEqual([name, true]);
    expect([name, text.includes("git clone")]).toEqual([name, false]);
  }
  for (const name of ["github-services.yml", "gitlab-services.yml", "README.md"]) {
    const text = readFileSync(join(CI, name), "utf8");
    expect([name, /docker build -t \S+ ext-image/.test(text)]).toEqual([name, true]);
    expect([name, text.includes(`ext-emulator@${VERSION}`)]).toEqual([name, true]);
  }
  expect(readFileSync(join(CI, "github-services.yml"), "utf8")).not.toContain("your-org");
});

test("GitLab services and docker compose: the alias or service name is the host the job calls", () => {
  const gitlab = recipe("gitlab-services.yml").test;
  expect(gitlab.services[0]).toMatchObject({ alias: "ext" });
  expect(gitlab.services[0].name).toEndWith(`/ext:${VERSION}`);
  expect(gitlab.variables.EXT_BASE_URL).toBe("http://ext:4780/developer/v1");
  // A masked CI/CD variable, which GitLab gives to the job and its services alike: none set here.
  expect(gitlab.variables.EXT_ADMIN_TOKEN).toBeUndefined();
  expect(gitlab.variables.EXT_ALLOWED_HOSTS).toBe("ext");
  const compose = recipe("docker-compose.yml").services;
  expect(compose.ext.build).toBe("ext-image");
  expect(compose.ext.image).toBe(`ext-emulator:${VERSION}`);
  expect(compose.ext.healthcheck.test).toEqual(["CMD", "/ext", "health", "--url", "http://127.0.0.1:4780"]);
  expect(compose.tests.depends_on.ext.condition).toBe("service_healthy");
  expect(compose.tests.environment.EXT_BASE_URL).toBe("http://ext:4780/developer/v1");
  // Generated for each run and given from the shell; compose refuses to start without it.
  expect(compose.ext.environment.EXT_ADMIN_TOKEN).toStartWith("${EXT_ADMIN_TOKEN:?");
  expect(compose.tests.environment.EXT_ADMIN_TOKEN).toBe(compose.ext.environment.EXT_ADMIN_TOKEN);
  expect(compose.ext.environment.EXT_ALLOWED_HOSTS).toBe("ext");
  expect(readFileSync(join(CI, "docker-compose.yml"), "utf8")).toContain(
    "EXT_ADMIN_TOKEN=$(openssl rand -hex 32) docker compose up --exit-code-from tests",
  );
});

test("no recipe holds a fixed admin token, nor opens the control plane without one", () => {
  const files = readdirSync(CI, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
  expect(files.length).toBeGreaterThanOrEqual(9);
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    expect({ file, fixed: text.match(/adm_[A-Za-z0-9_-]+/g) }).toEqual({ file, fixed: null });
    expect({ file, open: text.includes("EXT_OPEN_CONTROL_PLANE") }).toEqual({ file, open: false });
  }
  // The service recipes say how to make the secret.
  expect(readFileSync(join(CI, "github-services.yml"), "utf8")).toContain(
    "openssl rand -hex 32 | gh secret set EXT_ADMIN_TOKEN",
  );
  expect(readFileSync(join(CI, "gitlab-services.yml"), "utf8")).toContain("masked CI/CD variable EXT_ADMIN_TOKEN");
});

test("the composite action runs its script with the inputs it declares; npm is its default", () => {
  const action = recipe("github-action/action.yml");
  expect(action.runs.using).toBe("composite");
  const step = action.runs.steps[0];
  expect(step.run).toContain("start.sh");
  for (const input of ["version", "install", "registry", "seed", "port", "api-key"])
    expect(Object.keys(action.inputs)).toContain(input);
  expect(action.inputs.install.default).toBe("npm");
  expect(action.inputs.registry.default).toBe("https://registry.npmjs.org");
  expect(JSON.stringify(action)).not.toContain("github.repository");
  expect(recipe("github-action.yml").jobs.test.steps.some((s: Yaml) => s.uses === "./.github/actions/ext")).toBe(true);
});

let platformTarball: Buffer | undefined;

/**
 * The platform package as the registry holds it, with package/bin/ext a script that runs the compiled binary: what
 * the action does with the tarball (fetch, check, unpack, start) is the same, without packing and hashing 120 MB
 * for it. The real package, installed by name from a registry, is packaging/registry.sh's in CI.
 */
function platformPackage(): Buffer {
  if (platformTarball) return platformTarball;
  const dir = mkdtempSync(join(work, "registry-"));
  mkdirSync(join(dir, "package/bin"), { recursive: true });
  writeFileSync(join(dir, "package/bin/ext"), `#!/bin/sh\nexec "${built.bin}" "$@"\n`);
  writeFileSync(
    join(dir, "package/package.json"),
    JSON.stringify({ name: "@ext-emulator/linux-x64", version: VERSION }),
  );
  const tar = Bun.spawnSync(["tar", "-czf", "platform.tgz", "package"], { cwd: dir, env: cleanEnv() });
  expect(tar.exitCode).toBe(0);
  platformTarball = readFileSync(join(dir, "platform.tgz"));
  return platformTarball;
}

/**
 * A registry as npm's serves one version of the platform package: its document (tarball URL and sha512) and
 * the tarball; `tamper` serves other bytes than the sha512 says.
 */
async function platformRegistry(tamper: boolean) {
  const tarball = platformPackage();
  const integrity = `sha512-${new Bun.CryptoHasher("sha512").update(tarball).digest("base64")}`;
  const served = tamper ? Buffer.concat([tarball, Buffer.from("x")]) : tarball;
  const requests: string[] = [];
  const server: Server<undefined> = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const path = new URL(req.url).pathname;
      requests.push(path);
      if (path === `/@ext-emulator%2flinux-x64/${VERSION}`)
        return Response.json({ dist: { tarball: `${server.url}tarballs/linux-x64.tgz`, integrity } });
      if (path === "/tarballs/linux-x64.tgz") return new Response(served);
      return new Response("not found", { status: 404 });
    },
  });
  return { url: server.url.href.replace(/\/$/, ""), requests, stop: () => server.stop(true) };
}

/** An `npm` on PATH that records its arguments and installs the compiled binary as node_modules/.bin/ext. */
function standInNpm(): { path: string; log: string } {
  const dir = mkdtempSync(join(work, "npm-"));
  const log = join(dir, "args");
  writeFileSync(
    join(dir, "npm"),
    `#!/bin/sh
printf '%s\n' "$@" > "${log}"
prefix=""
while [ $# -gt 0 ]; do [ "$1" = --prefix ] && prefix="$2"; shift; done
mkdir -p "$prefix/node_modules/.bin" && ln -sf "${built.bin}" "$prefix/node_modules/.bin/ext"
`,
    { mode: 0o755 },
  );
  return { path: `${dir}:${process.env.PATH}`, log };
}

async function runAction(env: Record<string, string>) {
  const githubEnv = join(mkdtempSync(join(work, "gh-")), "env");
  writeFileSync(githubEnv, "");
  const proc = Bun.spawn(["bash", join(CI, "github-action/start.sh")], {
    cwd: work,
    env: cleanEnv({
      RUNNER_OS: "Linux",
      RUNNER_ARCH: "X64",
      EXT_INSTALL_DIR: join(mkdtempSync(join(work, "runner-temp-")), "ext"),
      EXT_PORT: "0",
      GITHUB_ENV: githubEnv,
      ...env,
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

/**
 * What the action exported works: the API answers with its key, the control plane with its admin token (the
 * server's own, masked before anything printed it) and not without; then it is stopped.
 */
async function expectServing({ exported, stdout }: { exported: Record<string, string>; stdout: string }) {
  const { EXT_BASE_URL, EXT_API_KEY, EXT_ADMIN_URL, EXT_ADMIN_TOKEN, EXT_PID } = exported;
  expect(EXT_BASE_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/developer\/v1$/);
  try {
    expect(EXT_ADMIN_TOKEN).toMatch(/^adm_[\w-]{43}$/);
    const token = EXT_ADMIN_TOKEN as string;
    expect(stdout.split("\n").find((line) => line.includes(token))).toBe(`::add-mask::${token}`);
    const list = await fetch(`${EXT_BASE_URL}/extensions`, { headers: { authorization: `Bearer ${EXT_API_KEY}` } });
    expect(list.status).toBe(200);
    expect(await list.json()).toHaveProperty("extensions");
    expect((await fetch(`${EXT_ADMIN_URL}/state`)).status).toBe(401);
    const state = await fetch(`${EXT_ADMIN_URL}/state`, { headers: { authorization: `Bearer ${token}` } });
    expect(state.status).toBe(200);
  } finally {
    process.kill(Number(EXT_PID), "SIGTERM");
  }
  await waitFor(() => !alive(Number(EXT_PID)), "the emulator to stop");
}

test("the action by default: npm installs ext-emulator@VERSION from the registry given, then it starts and exports", async () => {
  const npm = standInNpm();
  const run = await runAction({ PATH: npm.path, EXT_VERSION: VERSION, EXT_REGISTRY: "https://registry.example/" });
  expect(run.code, run.stderr).toBe(0);
  const args = readFileSync(npm.log, "utf8").trim().split("\n");
  expect(args[0]).toBe("install");
  expect(args).toContain("--no-save");
  expect(args.slice(args.indexOf("--registry"), args.indexOf("--registry") + 2)).toEqual([
    "--registry",
    "https://registry.example/",
  ]);
  expect(args.at(-1)).toBe(`ext-emulator@${VERSION}`);
  await expectServing(run);
}, 30_000);

test("install: binary downloads the platform package's tarball from the registry, checks its sha512, starts it", async () => {
  const registry = await platformRegistry(false);
  try {
    const run = await runAction({ EXT_INSTALL: "binary", EXT_VERSION: VERSION, EXT_REGISTRY: registry.url });
    expect(run.code, run.stderr).toBe(0);
    expect(registry.requests).toEqual([`/@ext-emulator%2flinux-x64/${VERSION}`, "/tarballs/linux-x64.tgz"]);
    await expectServing(run);
  } finally {
    registry.stop();
  }
}, 60_000);

test("install: binary refuses a tarball that does not match the registry's sha512, and starts nothing", async () => {
  const registry = await platformRegistry(true);
  try {
    const run = await runAction({ EXT_INSTALL: "binary", EXT_VERSION: VERSION, EXT_REGISTRY: registry.url });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("the @ext-emulator/linux-x64 tarball does not match the registry's sha512");
    expect(run.exported).toEqual({});
  } finally {
    registry.stop();
  }
}, 60_000);

test("off loopback, the recipes' admin token opens the control plane and nothing else does, at the name they call", async () => {
  // What `EXT_ADMIN_TOKEN=$(openssl rand -hex 32) docker compose up` (or the secret made so) gives both services.
  const token = randomBytes(32).toString("hex");
  const { EXT_ALLOWED_HOSTS } = recipe("docker-compose.yml").services.ext.environment as { EXT_ALLOWED_HOSTS: string };
  expect(EXT_ALLOWED_HOSTS).toBe("ext");
  const ready = join(mkdtempSync(join(work, "ready-")), "ready.json");
  const proc = Bun.spawn([built.bin, "serve", "--memory", "--port", "0", "--ready-file", ready], {
    cwd: work,
    env: cleanEnv({
      EXT_HOST: "0.0.0.0",
      EXT_ADMIN_TOKEN: token,
      EXT_ALLOWED_HOSTS,
      EXT_SEED: "demo",
      EXT_LOG_LEVEL: "warn",
    }),
    stdout: "pipe",
    stderr: "pipe",
  });
  try {
    const { port } = await readReadyFile<{ port: number }>(ready, () => proc.exitCode !== null);
    const root = `http://127.0.0.1:${port}`;
    const asTests = { authorization: `Bearer ${token}`, host: `ext:${port}` };
    expect((await fetch(`${root}/_emulator/state`, { headers: { host: asTests.host } })).status).toBe(401);
    expect(
      (await fetch(`${root}/_emulator/state`, { headers: { ...asTests, authorization: `Bearer ${token}x` } })).status,
    ).toBe(401);
    expect((await fetch(`${root}/_emulator/state`, { headers: asTests })).status).toBe(200);
    expect(
      (await fetch(`${root}/_emulator/state`, { headers: { ...asTests, host: `elsewhere:${port}` } })).status,
    ).toBe(403);
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
  // What the workflow publishes after CI is still there: CI removes none of it.
  expect(ci.split("\n").filter((line) => /^\s*rm\b.*\bdist\//.test(line))).toEqual([]);
});
