/**
 * The compiled binary, from a temp directory with no node_modules: help, version, usage errors,
 * `serve --port 0 --ready-file`, `seed` and `exec`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { gitCommit } from "../../tools/cli/lib/version";
import { readReadyFile } from "../helpers/ready-file";
import { alive, BUILD_TIMEOUT_MS, type Built, buildBinary, cleanEnv, run, serve } from "./helpers";

const ROOT = resolve(import.meta.dir, "../..");
const DEMO_KEY = "ext_demo_0123456789abcdefghijklmnopqrstuv";
let built: Built;
let bin: string;
let work: string;

beforeAll(() => {
  built = buildBinary();
  bin = built.bin;
  work = built.work;
}, BUILD_TIMEOUT_MS);
afterAll(() => built?.cleanup());

const listExtensions = (baseUrl: string, key = DEMO_KEY) =>
  fetch(`${baseUrl}/extensions`, { headers: { authorization: `Bearer ${key}` } });

describe("ext --help / --version", () => {
  test("--version prints the package version, the commit it was built from and its Bun version", async () => {
    const r = await run(bin, ["--version"], { cwd: work });
    expect(r.code).toBe(0);
    // Run from a directory with no git: the commit is the one baked in at build time.
    const commit = gitCommit(ROOT);
    expect(commit).toMatch(/^[0-9a-f]{12}(-dirty)?$/);
    expect(r.stdout).toBe(`${pkg.version} (commit ${commit}, bun ${Bun.version})\n`);
  });

  test("--help lists every command and the exit codes", async () => {
    const r = await run(bin, ["--help"], { cwd: work });
    expect(r.code).toBe(0);
    for (const cmd of ["serve", "deploy", "seed", "exec", "openapi"]) expect(r.stdout).toContain(cmd);
    expect(r.stdout).toContain("EXIT CODES");
    expect(r.stdout).not.toContain("\x1b["); // a pipe gets no colour codes
  });

  test("each command's --help has examples", async () => {
    for (const cmd of ["serve", "deploy", "seed", "exec", "openapi"]) {
      const r = await run(bin, [cmd, "--help"], { cwd: work });
      expect(r.code).toBe(0);
      expect(r.stdout).toContain("EXAMPLES");
      expect(r.stdout).toContain(`ext ${cmd}`);
    }
  });
});

describe("usage errors exit 2", () => {
  test.each([
    [["serve", "--bogus"], "--bogus"],
    [["frobnicate"], "frobnicate"],
    [["seed"], "FILE"],
    [["seed", "a.json", "b.json"], "b.json"],
    [["exec"], "--"],
    [["serve", "--port", "99999"], "port"],
  ])("ext %p", async (args, mention) => {
    const r = await run(bin, args as string[], { cwd: work });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(mention as string);
  });
});

describe("ext serve", () => {
  test("--port 0 prints the chosen URL and writes the ready file; SIGTERM stops it with 0", async () => {
    const s = await serve(bin, ["--memory", "--seed", "demo"], work);
    expect(s.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/developer\/v1$/);
    expect(s.url).not.toContain(":0/");
    expect(alive(s.pid)).toBe(true);
    const res = await listExtensions(s.baseUrl);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ extensions: [] });
    expect(await s.stop()).toBe(0);
    expect(alive(s.pid)).toBe(false);
  });

  test("the listening line names the real port", async () => {
    const ready = join(mkdtempSync(join(work, "r-")), "ready.json");
    const proc = Bun.spawn([bin, "serve", "--memory", "--port", "0", "--ready-file", ready], {
      cwd: work,
      env: cleanEnv(),
      stdout: "pipe",
      stderr: "pipe",
    });
    const reader = proc.stdout.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    const port = /listening on http:\/\/127\.0\.0\.1:(\d+)\//.exec(first)?.[1];
    expect(Number(port)).toBeGreaterThan(0);
    expect((await readReadyFile<{ port: number }>(ready, () => proc.exitCode !== null)).port).toBe(Number(port));
    proc.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
  });
});

describe("ext seed FILE", () => {
  test("--data-dir seeds the SQLite file directly, gives created keys with --json, and is idempotent", async () => {
    const dir = mkdtempSync(join(work, "data-"));
    const fixture = join(dir, "team.json");
    writeFileSync(
      fixture,
      JSON.stringify({
        accounts: [
          {
            id: "acc_team",
            name: "Team",
            apiKeys: [
              { name: "given", key: "ext_team_key_0123456789abcdef", scopes: ["*"] },
              { name: "generated", scopes: ["extensions:read"] },
            ],
          },
        ],
      }),
    );
    // stdout is a pipe here: key values only with --json (an explicit request for them).
    const text = await run(bin, ["seed", fixture, "--data-dir", join(dir, "data-text")], { cwd: work });
    expect(text.code).toBe(0);
    expect(text.stdout).not.toContain("ext_team_key_0123456789abcdef");
    expect(text.stdout).not.toMatch(/\bext_[A-Za-z0-9_]{20,}/);
    expect(text.stdout).toContain('api key: "generated" (account acc_team), generated: not printed');
    const first = await run(bin, ["seed", fixture, "--data-dir", join(dir, "data"), "--json"], { cwd: work });
    expect(first.code).toBe(0);
    const keys = (JSON.parse(first.stdout) as { keys: { name: string; key: string }[] }).keys;
    expect(keys.find((k) => k.name === "given")?.key).toBe("ext_team_key_0123456789abcdef");
    const generated = keys.find((k) => k.name === "generated")?.key;
    expect(generated).toMatch(/^ext_[0-9A-Za-z]{40}$/);
    const again = await run(bin, ["seed", fixture, "--data-dir", join(dir, "data"), "--json"], { cwd: work });
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ accountsCreated: 0, extensionsCreated: 0 });
    // Keys that already exist are counted, never shown again.
    const third = await run(bin, ["seed", fixture, "--data-dir", join(dir, "data")], { cwd: work });
    expect(third.stdout).toContain("2 key(s) already existed");
    expect(third.stdout).not.toContain(generated!);
    expect(third.stdout).not.toContain("ext_team_key_0123456789abcdef");
    // The server started on that directory knows both keys.
    const s = await serve(bin, ["--data-dir", join(dir, "data")], work);
    try {
      expect((await listExtensions(s.baseUrl, "ext_team_key_0123456789abcdef")).status).toBe(200);
      expect((await listExtensions(s.baseUrl, generated!)).status).toBe(200);
    } finally {
      await s.stop();
    }
  });

  test("an invalid fixture is exit 2 naming the bad field, and nothing is written", async () => {
    const dir = mkdtempSync(join(work, "bad-"));
    writeFileSync(join(dir, "bad.json"), JSON.stringify({ accounts: [{ id: "acc x", name: "" }] }));
    const r = await run(bin, ["seed", join(dir, "bad.json"), "--data-dir", join(dir, "data")], { cwd: work });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("accounts[0].id");
  });

  test("--target seeds a running emulator through its control plane, with the token given for it", async () => {
    const s = await serve(bin, ["--memory"], work);
    try {
      // A --memory server has no server.json: its owner passes the token from the ready file.
      const r = await run(bin, ["seed", "demo", "--target", s.url], {
        cwd: work,
        env: { EXT_ADMIN_TOKEN: s.adminToken },
      });
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('api key: "demo" (account acc_demo): not printed: output is not a terminal');
      expect(r.stdout).not.toContain(DEMO_KEY);
      expect((await listExtensions(s.baseUrl)).status).toBe(200);
      // `--target local` is EXT_LOCAL_URL; the demo is loaded already, so its keys are only counted.
      const local = await run(bin, ["seed", "demo", "--target", "local", "--json"], {
        cwd: work,
        env: { EXT_LOCAL_URL: s.baseUrl, EXT_ADMIN_TOKEN: s.adminToken },
      });
      expect(local.code).toBe(0);
      expect(JSON.parse(local.stdout)).toMatchObject({ accountsCreated: 0 });
    } finally {
      await s.stop();
    }
  });

  test("--target a non-loopback emulator: refused without the admin token, seeded with --admin-token or EXT_ADMIN_TOKEN", async () => {
    // Bound to 0.0.0.0, the control plane wants the token even from 127.0.0.1: the bind decides, not the peer.
    const token = "adm_seed_test_token_0123456789";
    const s = await serve(bin, ["--memory", "--host", "0.0.0.0", "--admin-token", token], work);
    try {
      expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const none = await run(bin, ["seed", "demo", "--target", s.url], { cwd: work });
      expect(none.code).toBe(1);
      expect(none.stderr).toContain("401 unauthorized: The control plane requires Authorization: Bearer <admin token>");
      expect(none.stderr).toContain("--admin-token or EXT_ADMIN_TOKEN"); // how to give it
      const wrong = await run(bin, ["seed", "demo", "--target", s.url, "--admin-token", "adm_not_it"], { cwd: work });
      expect(wrong.code).toBe(1);
      // The named server is challenged first: a wrong token is never sent.
      expect(wrong.stderr).toContain(
        "did not prove it is the emulator this admin token belongs to (its proof is wrong)",
      );
      expect((await listExtensions(s.baseUrl)).status).toBe(401); // nothing was seeded

      const flag = await run(bin, ["seed", "demo", "--target", s.url, "--admin-token", token, "--json"], {
        cwd: work,
      });
      expect(flag.stderr).toBe("");
      expect(flag.code).toBe(0);
      expect(flag.stdout).toContain(`"key":"${DEMO_KEY}"`);
      expect((await listExtensions(s.baseUrl)).status).toBe(200);

      const dir = mkdtempSync(join(work, "seed-env-"));
      writeFileSync(
        join(dir, "f.json"),
        JSON.stringify({
          accounts: [
            {
              id: "acc_env",
              name: "Env",
              apiKeys: [{ name: "k", key: "ext_env_seed_key_0123456789abcdef", scopes: ["*"] }],
            },
          ],
        }),
      );
      const env = await run(bin, ["seed", join(dir, "f.json"), "--target", s.url, "--json"], {
        cwd: work,
        env: { EXT_ADMIN_TOKEN: token },
      });
      expect(env.stderr).toBe("");
      expect(env.code).toBe(0);
      expect(JSON.parse(env.stdout)).toMatchObject({ accountsCreated: 1 });
      expect((await listExtensions(s.baseUrl, "ext_env_seed_key_0123456789abcdef")).status).toBe(200);
    } finally {
      await s.stop();
    }
  });

  test("--target with nothing listening is exit 1", async () => {
    const r = await run(bin, ["seed", "demo", "--target", "http://127.0.0.1:9"], { cwd: work });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("cannot reach");
  });
});

describe("ext exec -- CMD", () => {
  test("exits with the command's code (3) and leaves no process behind", async () => {
    const r = await run(bin, ["exec", "--", "sh", "-c", 'echo "$$ $EXT_BASE_URL"; exit 3'], { cwd: work });
    expect(r.code).toBe(3);
    const [pid, baseUrl] = r.stdout.trim().split(" ");
    expect(alive(Number(pid))).toBe(false);
    // The emulator is gone with it: nothing listens on its port any more.
    expect(fetch(`${baseUrl}/extensions`)).rejects.toThrow();
  });

  test("the command reaches the seeded emulator with EXT_BASE_URL, EXT_API_KEY and EXT_ADMIN_URL", async () => {
    const script =
      'curl -fsS -H "Authorization: Bearer $EXT_API_KEY" "$EXT_BASE_URL/extensions" && echo && echo "$EXT_ADMIN_URL"';
    const r = await run(bin, ["exec", "--", "sh", "-c", script], { cwd: work });
    expect(r.code).toBe(0);
    const [body, admin] = r.stdout.trim().split("\n");
    expect(JSON.parse(body!)).toEqual({ extensions: [] });
    expect(admin).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/_emulator$/);
  });

  test("the demo fixture's keys are fresh each run: its public ones are refused, EXT_API_KEY is a new key", async () => {
    // What any local user could send the emulator on loopback: the demo fixture's keys, printed in the README.
    const script = `for k in ${DEMO_KEY} ext_demo_readonly_0123456789abcdefghijk "$EXT_API_KEY"; do
      printf 'Authorization: Bearer %s\\n' "$k" | curl -s -o /dev/null -w '%{http_code} ' -H @- "$EXT_BASE_URL/extensions"
    done; echo "$EXT_API_KEY"`;
    const keys: string[] = [];
    for (const seed of [[], ["--seed", "demo"]]) {
      const r = await run(bin, ["exec", ...seed, "--", "sh", "-c", script], { cwd: work });
      expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
      const [demo, readOnly, fresh, key] = r.stdout.trim().split(" ");
      expect([demo, readOnly, fresh]).toEqual(["401", "401", "200"]);
      keys.push(key!);
    }
    expect(keys[0]).toMatch(/^ext_[0-9A-Za-z]{40}$/);
    expect(keys[1]).not.toBe(keys[0]);
  });

  test("--seed FILE seeds that fixture and exports its first key", async () => {
    const dir = mkdtempSync(join(work, "exec-"));
    writeFileSync(
      join(dir, "f.json"),
      JSON.stringify({
        accounts: [
          { id: "acc_x", name: "X", apiKeys: [{ name: "k", key: "ext_exec_key_0123456789abcdef", scopes: ["*"] }] },
        ],
      }),
    );
    const r = await run(bin, ["exec", "--seed", join(dir, "f.json"), "--", "sh", "-c", 'echo "$EXT_API_KEY"'], {
      cwd: work,
    });
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe("ext_exec_key_0123456789abcdef");
  });

  test("EXT_LOCAL_URL is the emulator too; a fixture without a plaintext key warns and sets no EXT_API_KEY", async () => {
    const dir = mkdtempSync(join(work, "exec-nokey-"));
    writeFileSync(
      join(dir, "f.json"),
      JSON.stringify({ accounts: [{ id: "acc_nokey", name: "No Key", apiKeys: [{ name: "gen", scopes: ["*"] }] }] }),
    );
    const r = await run(
      bin,
      [
        "exec",
        "--seed",
        join(dir, "f.json"),
        "--",
        "sh",
        "-c",
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion, not a template.
        'echo "${EXT_API_KEY-unset} $EXT_BASE_URL $EXT_LOCAL_URL"',
      ],
      { cwd: work },
    );
    expect(r.code).toBe(0);
    const [key, base, local] = r.stdout.trim().split(" ");
    expect(key).toBe("unset");
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/developer\/v1$/);
    expect(local).toBe(base);
    expect(r.stderr).toContain("EXT_API_KEY is not set");
  });

  test("a command killed by a signal gives 128 + n", async () => {
    const r = await run(bin, ["exec", "--", "sh", "-c", "kill -TERM $$"], { cwd: work });
    expect(r.code).toBe(128 + 15);
  });

  test("SIGTERM to ext is forwarded; ext exits with the command's code", async () => {
    const proc = Bun.spawn(
      [bin, "exec", "--", "sh", "-c", 'trap "exit 7" TERM; echo ready; while :; do sleep 0.05; done'],
      { cwd: work, env: cleanEnv(), stdout: "pipe", stderr: "pipe" },
    );
    const reader = proc.stdout.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain("ready");
    proc.kill("SIGTERM");
    expect(await proc.exited).toBe(7);
  });

  test.each([
    ["SIGINT", "INT", 5],
    ["SIGHUP", "HUP", 6],
  ] as const)("%s to ext is forwarded too; ext exits with the command's code", async (signal, trap, code) => {
    const proc = Bun.spawn(
      [bin, "exec", "--", "sh", "-c", `trap "exit ${code}" ${trap}; echo ready; while :; do sleep 0.05; done`],
      { cwd: work, env: cleanEnv(), stdout: "pipe", stderr: "pipe" },
    );
    const reader = proc.stdout.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain("ready");
    proc.kill(signal);
    expect(await proc.exited).toBe(code);
  });

  test("an invalid --seed fixture is exit 2 naming the bad field; the command never runs", async () => {
    const dir = mkdtempSync(join(work, "exec-bad-"));
    writeFileSync(join(dir, "bad.json"), JSON.stringify({ accounts: [{ id: "acc x", name: "X" }] }));
    const r = await run(bin, ["exec", "--seed", join(dir, "bad.json"), "--", "sh", "-c", "echo ran"], { cwd: work });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("accounts[0].id");
    expect(r.stdout).not.toContain("ran");
    const missing = await run(bin, ["exec", "--seed", join(dir, "missing.json"), "--", "sh", "-c", "echo ran"], {
      cwd: work,
    });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("cannot read fixture");
  });

  test("flags after -- belong to the command", async () => {
    const r = await run(bin, ["exec", "--", "sh", "-c", 'echo "$1"', "sh", "--help"], { cwd: work });
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe("--help");
  });

  test("a command that cannot be started is exit 127", async () => {
    const r = await run(bin, ["exec", "--", "no-such-command-for-ext-tests"], { cwd: work });
    expect(r.code).toBe(127);
  });
});
