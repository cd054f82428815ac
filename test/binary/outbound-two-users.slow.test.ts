/**
 * The tools' side of trust against another local user, with the compiled binary: what `ext` writes in a
 * shared folder (a sticky, world-writable one like /tmp, where this machine's protected_symlinks may be off)
 * and whom it keeps talking to once its server is gone.
 *
 *  - `ext proxy --report FILE`: the other user plants a link at the temporary name the proxy used to write
 *    (`FILE.<pid>.tmp`) pointing at the owner's shell start-up file, then sends the proxy a request whose body
 *    holds `$(…)`: the owner's file must stay as it was.
 *  - `ext conformance --junit FILE`: a link planted at FILE is replaced, never followed; the report is 0600.
 *  - `ext init` and `ext image`: a folder the other user made, can write (their group too), or sits above,
 *    is refused; so is a project below their package.json or node_modules, which npm and Node would take
 *    as part of it.
 *  - `ext deploy --wait`: the owner stops the server while the deploy waits (as its notice suggests); the
 *    other user takes the port at once. The key must not arrive there.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { readAsItComes } from "../helpers/read-until";
import { waitFor } from "../helpers/wait-for";
import { BUILD_TIMEOUT_MS, type Built, buildBinary, cleanEnv, type ServedBinary, serve } from "./helpers";
import { type OtherUser, otherUser } from "./other-user";

const ROOT = resolve(import.meta.dir, "../..");
const BUN = join(ROOT, "node_modules/bun/bin/bun.exe");
const VICTIM_TEXT = "# the owner's shell start-up file\nexport PATH=$PATH\n";
const FIXTURE = {
  accounts: [
    {
      id: "acc_board",
      name: "Board",
      apiKeys: [{ name: "ci", key: "ext_board_key_0123456789abcdefghijklm", scopes: ["*"] }],
      extensions: [{ id: "ext_board", name: "Board" }],
    },
  ],
};

/** Why the other user cannot take part here, or null: they must be able to run Bun from this checkout. */
function whyNot(user: OtherUser | string): string | null {
  if (typeof user === "string") return user;
  const r = user.run([BUN, "--version"]);
  return r.code === 0 ? null : `the other user cannot run ${BUN} (${r.stderr.trim() || `exit ${r.code}`})`;
}

const OTHER = otherUser(["curl", "ln"]);
const SKIP = whyNot(OTHER);

describe.skipIf(SKIP !== null)(`another local user${SKIP ? ` (skipped: ${SKIP})` : ""}`, () => {
  const user = OTHER as OtherUser;
  let built: Built;
  /** A sticky world-writable folder, as /tmp is. */
  let shared: string;
  /** The owner's private folder, holding the file an attacker would like to overwrite. */
  let home: string;
  let victim: string;
  beforeAll(() => {
    built = buildBinary();
    shared = mkdtempSync(join(tmpdir(), "ext-shared-"));
    chmodSync(shared, 0o1777);
    home = mkdtempSync(join(tmpdir(), "ext-owner-home-"));
    victim = join(home, ".bashrc");
  }, BUILD_TIMEOUT_MS);
  afterAll(() => {
    user.remove();
    rmSync(shared, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
    built?.cleanup();
  });

  const freshVictim = () => writeFileSync(victim, VICTIM_TEXT, { mode: 0o644 });
  const plant = (link: string) => {
    const r = user.run(["ln", "-s", victim, link]);
    expect(r.stderr).toBe("");
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
  };

  test("ext proxy --report in a shared folder: the planted link at its old temporary name is never written through", async () => {
    freshVictim();
    const upstream = await serve(built.bin, ["--memory", "--seed", "demo"], built.work);
    const report = join(shared, "parity.json");
    const proxy = Bun.spawn([built.bin, "proxy", "--upstream", upstream.baseUrl, "--port", "0", "--report", report], {
      cwd: built.work,
      env: cleanEnv(),
      stdout: "pipe",
      stderr: "pipe",
    });
    const stdout = readAsItComes(proxy.stdout);
    const stderr = readAsItComes(proxy.stderr);
    try {
      const url = await waitFor(() => /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout.text())?.[1], "the proxy");
      plant(`${report}.${proxy.pid}.tmp`);
      for (let i = 0; i < 2; i++) {
        const sent = user.run([
          "curl",
          "-s",
          "-X",
          "POST",
          "-H",
          "content-type: application/json",
          "-H",
          "authorization: Bearer ext_demo_0123456789abcdefghijklmnopqrstuv",
          "--data",
          '{"name":"$(touch /tmp/owned-by-other)"}',
          `${url}/developer/v1/extensions`,
        ]);
        expect(sent.code).toBe(0);
      }
      await waitFor(() => {
        try {
          return JSON.parse(readFileSync(report, "utf8")).exchanges === 2;
        } catch {
          return false;
        }
      }, "the report of both exchanges");
      expect(readFileSync(victim, "utf8")).toBe(VICTIM_TEXT);
      expect(lstatSync(report).isFile()).toBe(true);
      expect(statSync(report).mode & 0o777).toBe(0o600);
      expect(statSync(report).uid).toBe(0);
    } finally {
      proxy.kill("SIGTERM");
      await proxy.exited;
      await upstream.stop();
    }
    expect(stderr.text()).not.toContain("error");
  }, 30_000);

  test("ext conformance --junit in a shared folder: a link planted at FILE is replaced, the report is 0600", async () => {
    freshVictim();
    const junit = join(shared, "conformance.xml");
    plant(junit);
    const proc = Bun.spawn(
      [built.bin, "conformance", "--target", "http://127.0.0.1:9/developer/v1", "--dry-run", "--junit", junit],
      { cwd: built.work, env: cleanEnv(), stdout: "pipe", stderr: "pipe" },
    );
    const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(readFileSync(victim, "utf8")).toBe(VICTIM_TEXT);
    expect(lstatSync(junit).isFile()).toBe(true);
    expect(statSync(junit).mode & 0o777).toBe(0o600);
    expect(user.run(["cat", junit]).code).not.toBe(0);
  });

  test("ext init into a folder the other user made ready in a shared place: refused, nothing written", async () => {
    const board = join(shared, `board-${process.pid}`);
    expect(user.run(["mkdir", "-m", "0755", board]).code).toBe(0);
    const proc = Bun.spawn([built.bin, "init", board], {
      cwd: built.work,
      env: cleanEnv(),
      stdout: "pipe",
      stderr: "pipe",
    });
    const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
    expect(stderr).toContain(`${board} belongs to another user`);
    expect(code).toBe(2);
    expect(user.run(["ls", "-A", board]).stdout).toBe("");
  });

  /** Runs the binary as the owner in `cwd`; its exit code and both streams. */
  const ext = async (args: string[], cwd = built.work) => {
    const proc = Bun.spawn([built.bin, ...args], { cwd, env: cleanEnv(), stdout: "pipe", stderr: "pipe" });
    const [code, stdout, stderr] = await Promise.all([
      proc.exited,
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
    ]);
    return { code, stdout, stderr };
  };

  test("ext init below the other user's package.json or node_modules (a sticky shared folder): refused, nothing made", async () => {
    // npm would take their package.json as the project's root (a workspace of theirs) and run its scripts on the
    // owner's npm install; Node would load modules from their node_modules.
    const planted = JSON.stringify({
      name: "root",
      workspaces: ["*"],
      scripts: { postinstall: "id > owned" },
      devDependencies: { vitest: "file:./evil-vitest" },
    });
    for (const [name, plant] of [
      ["package.json", ["sh", "-c", `printf '%s' '${planted}' > ${shared}/package.json`]],
      ["node_modules", ["mkdir", join(shared, "node_modules")]],
    ] as const) {
      expect(user.run([...plant]).code).toBe(0);
      const board = join(shared, `board-${process.pid}-below`);
      try {
        const r = await ext(["init", board]);
        expect(r.stderr).toContain(`${join(shared, name)} above it belongs to another user`);
        expect(r.code).toBe(2);
        expect(existsSync(board)).toBe(false);
      } finally {
        rmSync(join(shared, name), { recursive: true, force: true });
      }
    }
  });

  test("ext init reached through a link: their package.json above the real folder is refused too; a shared folder above is warned of", async () => {
    const real = join(shared, `alicework-${process.pid}`);
    mkdirSync(real, { mode: 0o755 });
    const link = join(home, `work-${process.pid}`);
    symlinkSync(real, link);
    const planted = JSON.stringify({ private: true, workspaces: ["*/*"], scripts: { postinstall: "id > owned" } });
    try {
      // Nothing planted yet: made, with a warning that anyone may plant later.
      const early = await ext(["init", join(link, "first")]);
      expect(early.code).toBe(0);
      expect(early.stderr).toContain(`warning: ${shared} above`);
      for (const name of ["package.json", ".npmrc", "pnpm-workspace.yaml"]) {
        expect(user.run(["sh", "-c", `printf '%s' '${planted}' > ${join(shared, name)}`]).code).toBe(0);
        try {
          const r = await ext(["init", join(link, "proj")]);
          expect(r.stderr).toContain(`${join(shared, name)} above it belongs to another user`);
          expect(r.code).toBe(2);
          expect(existsSync(join(real, "proj"))).toBe(false);
        } finally {
          rmSync(join(shared, name), { force: true });
        }
      }
    } finally {
      rmSync(link, { force: true });
      rmSync(real, { recursive: true, force: true });
    }
  });

  test("ext init and ext image refuse a folder the other user's group can write, or one below it", async () => {
    const group = user.run(["id", "-g"]).stdout.trim();
    const theirs = mkdtempSync(join(home, "group-"));
    expect(Bun.spawnSync(["chgrp", group, theirs]).exitCode).toBe(0);
    chmodSync(theirs, 0o775);
    for (const [args, shown] of [
      [["init", theirs], `${theirs} can be written by the users of its group (gid ${group})`],
      [["init", join(theirs, "board")], `${theirs} above it can be written by the users of its group (gid ${group})`],
      [["image", join(theirs, "ctx")], `${theirs} above it can be written by the users of its group (gid ${group})`],
    ] as const) {
      const r = await ext([...args]);
      expect(r.stderr).toContain(shown);
      expect(r.code).toBe(2);
    }
    expect(readdirSync(theirs)).toEqual([]);
  });

  test("ext init and ext image refuse a folder every user can write, or one below it", async () => {
    const open = mkdtempSync(join(home, "open-"));
    chmodSync(open, 0o777);
    for (const [args, shown] of [
      [["init", open], `${open} can be written by every user`],
      [["init", join(open, "board")], `${open} above it can be written by every user`],
      [["image", open], `${open} can be written by every user`],
      [["image", join(open, "ctx")], `${open} above it can be written by every user`],
    ] as const) {
      const r = await ext([...args]);
      expect(r.stderr).toContain(shown);
      expect(r.code).toBe(2);
    }
    expect(user.run(["ls", "-A", open]).stdout).toBe("");
  });

  test("ext image into the other user's folder: refused, nothing written; a folder of the owner's gets exact modes under any umask", async () => {
    const theirs = join(shared, `ctx-${process.pid}`);
    expect(user.run(["mkdir", "-m", "0777", theirs]).code).toBe(0);
    const refused = await ext(["image", theirs]);
    expect(refused.stderr).toContain(`${theirs} belongs to another user`);
    expect(refused.code).toBe(2);
    expect(user.run(["ls", "-A", theirs]).stdout).toBe("");

    const ctx = join(home, "ctx");
    // The modes are set on each file as it is made (no chmod of a path a link could stand at): the umask does not apply.
    const proc = Bun.spawn(["sh", "-c", 'umask 077 && exec "$0" image "$1"', built.bin, ctx], {
      cwd: built.work,
      env: cleanEnv(),
      stdout: "pipe",
      stderr: "pipe",
    });
    const made = { code: await proc.exited, stderr: await new Response(proc.stderr).text() };
    expect(made.stderr).toBe("");
    expect(made.code).toBe(0);
    expect(statSync(ctx).uid).toBe(0);
    expect(statSync(join(ctx, "rootfs/ext")).mode & 0o7777).toBe(0o755);
    expect(statSync(join(ctx, "rootfs/etc/passwd")).mode & 0o7777).toBe(0o644);
    expect(statSync(join(ctx, "tmp.tar")).mode & 0o7777).toBe(0o644);
  }, 30_000);

  test("ext deploy --wait: the server stopped, the other user takes its port at once; the key never arrives there", async () => {
    const project = mkdtempSync(join(tmpdir(), "ext-deploy-project-"));
    mkdirSync(join(project, "board"));
    writeFileSync(join(project, "board", "manifest.json"), JSON.stringify({ version: "1.0.0" }));
    writeFileSync(join(project, "fixture.json"), JSON.stringify(FIXTURE));
    let server: ServedBinary | null = await serve(built.bin, ["--seed", "fixture.json", "--no-rate-limits"], project);
    const port = Number(new URL(server.url).port);
    // The other user's listener: it binds the port the moment it is free, and prints every request it gets.
    const script = join(shared, `taker-${process.pid}.ts`);
    writeFileSync(
      script,
      `const port = Number(process.argv[2]);
for (;;) {
  try {
    Bun.serve({ hostname: "127.0.0.1", port, fetch(req) {
      const u = new URL(req.url);
      console.log(JSON.stringify({ path: u.pathname + u.search, authorization: req.headers.get("authorization") }));
      return u.pathname === "/healthz" ? Response.json({ status: "ok" }) : Response.json({ versions: [] });
    } });
    console.log("bound");
    break;
  } catch { await Bun.sleep(1); }
}
`,
      { mode: 0o644 },
    );
    const taker = user.spawn([BUN, script, String(port)]);
    const seen = readAsItComes(taker.stdout as ReadableStream<Uint8Array>);
    const deploy = Bun.spawn([built.bin, "deploy", "board", "--extension", "ext_board", "--wait", "--timeout", "60"], {
      cwd: project,
      env: cleanEnv(),
      stdout: "pipe",
      stderr: "pipe",
    });
    const deployErr = readAsItComes(deploy.stderr);
    let code = null as number | null;
    void deploy.exited.then((c) => (code = c));
    try {
      await waitFor(() => deployErr.text().includes("waiting up to 60 s"), "the deploy to wait for review");
      // Held still while the port changes hands: a poll between the two listeners would find nothing there
      // (a refused connection, its own error), not the other user's server this test is about.
      deploy.kill("SIGSTOP");
      await server.stop();
      server = null;
      await waitFor(() => seen.text().includes("bound"), "the other user to take the port");
      deploy.kill("SIGCONT");
      const leaked = () =>
        seen
          .text()
          .split("\n")
          .filter((l) => l.includes('"authorization":"'));
      await waitFor(() => code !== null || leaked().length > 0, "the deploy to end, or the key to leak");
      expect(leaked()).toEqual([]);
      await Promise.all([deploy.exited, deployErr.done]);
      expect(deployErr.text()).toContain(
        `the server at http://127.0.0.1:${port} is no longer the one this command started with`,
      );
      expect(code).toBe(1);
    } finally {
      deploy.kill("SIGCONT");
      deploy.kill();
      taker.kill();
      await server?.stop();
      rmSync(project, { recursive: true, force: true });
    }
  }, 60_000);
});
