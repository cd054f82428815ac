/**
 * The first minute with the compiled `ext`, as a new user meets it: a bare `ext serve` on a new folder prints a
 * key that works; in "another shell" (a separate process, same folder, no flags, no EXT_* variables) every
 * command finds that server on its port and acts as its first account: create an extension, scaffold a
 * folder, deploy it, approve the version, record and read installs, read limits and the request log.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readUntil } from "../helpers/read-until";
import { alive, BUILD_TIMEOUT_MS, type Built, buildBinary, cleanEnv, run } from "./helpers";

let built: Built;
beforeAll(() => {
  built = buildBinary();
}, BUILD_TIMEOUT_MS);
afterAll(() => built?.cleanup());

interface Serving {
  proc: ReturnType<typeof Bun.spawn>;
  banner: string;
  /** The ready file's API keys: what the banner prints only to a terminal (this one is a pipe). */
  apiKeys: { accountId: string; name: string; key: string }[];
  url: string;
  stop(): Promise<number | null>;
}

/**
 * `ext serve` in `cwd` on a free port, as typed, with a ready file (stdout is a pipe here: the banner prints
 * no key, the ready file has them): its banner read up to the export line.
 */
async function serveIn(cwd: string, args: string[] = []): Promise<Serving> {
  const readyFile = join(cwd, "ready.json");
  const proc = Bun.spawn([built.bin, "serve", "--port", "0", "--ready-file", readyFile, ...args], {
    cwd,
    env: cleanEnv(),
    stdout: "pipe",
    stderr: "pipe",
    stdin: "ignore",
  });
  const banner = await readUntil(
    proc.stdout,
    /(\(the values: not printed: output is not a terminal\)|ext seed demo --target \S+)\n/,
  );
  const url = /listening on (http:\/\/127\.0\.0\.1:\d+)\/developer\/v1/.exec(banner)?.[1];
  if (!url) throw new Error(`no banner: ${banner}\n${await new Response(proc.stderr).text()}`);
  // Written before the banner.
  const { apiKeys } = JSON.parse(readFileSync(readyFile, "utf8")) as Pick<Serving, "apiKeys">;
  return {
    proc,
    banner,
    apiKeys,
    url,
    async stop() {
      proc.kill("SIGTERM");
      return await proc.exited;
    },
  };
}

const ext = (cwd: string, args: string[], env: Record<string, string> = {}) => run(built.bin, args, { cwd, env });

/** The admin token `ext serve` in `cwd` keeps in its server.json (what this folder's commands send). */
const adminTokenOf = (cwd: string): string =>
  JSON.parse(readFileSync(join(cwd, ".ext-data", "server.json"), "utf8")).adminToken;

describe("a bare `ext serve` on a new folder, then commands with no flags in the same folder", () => {
  let cwd: string;
  let server: Serving;
  beforeAll(async () => {
    cwd = mkdtempSync(join(built.work, "first-run-"));
    server = await serveIn(cwd);
  });
  afterAll(async () => {
    await server?.stop();
  });

  test("the new account's key is in the ready file, not in a piped banner, which says where it is and what to export; the key works", async () => {
    expect(server.apiKeys).toEqual([{ accountId: "acc_local", name: "local", key: expect.stringMatching(/^ext_/) }]);
    const { key } = server.apiKeys[0]!;
    expect(server.banner).toContain(
      `api key:       not printed: output is not a terminal; in the ready file's apiKeys  (account acc_local, "local", new)\n`,
    );
    expect(server.banner).not.toContain(key);
    expect(server.banner).toContain(
      `export EXT_BASE_URL=${server.url}/developer/v1 EXT_API_KEY="<a key from the ready file's apiKeys>"`,
    );
    const res = await fetch(`${server.url}/developer/v1/extensions`, { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ extensions: [] });
  });

  test("the server says where it listens in .ext-data/server.json, private to the user, with its admin token and no API key", () => {
    const file = join(cwd, ".ext-data", "server.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const info = JSON.parse(readFileSync(file, "utf8"));
    expect(info).toEqual({
      url: server.url,
      pid: server.proc.pid,
      adminToken: expect.stringMatching(/^adm_[\w-]{43}$/),
    });
  });

  test("create → init → deploy → approve → installs → limits → logs, each finding the server by itself", async () => {
    const created = await ext(cwd, ["extensions", "create", "--name", "X", "--json"]);
    expect(created.code).toBe(0);
    expect(created.stderr).toContain(`using account acc_local (Local Developer) on ${server.url}`);
    const { extension } = JSON.parse(created.stdout) as { extension: { id: string; status: string } };
    expect(extension.id).toMatch(/^ext_/);
    expect(extension.status).toBe("draft");

    const init = await ext(cwd, ["init", "my-ext"]);
    expect(init.code).toBe(0);
    for (const f of ["manifest.json", "sounds/beep.wav", ".extignore", "README.md", "test/extension.test.mjs"])
      expect(existsSync(join(cwd, "my-ext", f))).toBe(true);

    const deployed = await ext(cwd, ["deploy", "my-ext", "--extension", extension.id, "--version", "1.0.0", "--json"]);
    expect(deployed.code).toBe(0);
    const report = JSON.parse(deployed.stdout) as { versionId: string; status: string; files: { path: string }[] };
    expect(report.status).toBe("pending");
    // The project's own files stay out of the bundle: only the manifest and the sound are uploaded.
    expect(report.files.map((f) => f.path).sort()).toEqual(["manifest.json", "sounds/beep.wav"]);

    const listed = await ext(cwd, ["versions", "list", "--extension", extension.id, "--json"]);
    expect(JSON.parse(listed.stdout).versions.map((v: { id: string }) => v.id)).toEqual([report.versionId]);

    const approved = await ext(cwd, ["versions", "approve", report.versionId, "--json"]);
    expect(approved.code).toBe(0);
    expect(JSON.parse(approved.stdout).version.status).toBe("approved");

    const added = await ext(cwd, ["installs", "add", "--extension", extension.id, "--count", "3", "--json"]);
    expect(added.code).toBe(0);
    const shown = await ext(cwd, ["installs", "show", "--extension", extension.id, "--json"]);
    expect(JSON.parse(shown.stdout)).toEqual({ total: 3, active: 3, byVersion: { [report.versionId]: 3 } });

    const limits = await ext(cwd, ["limits", "show", "--extension", extension.id, "--json"]);
    expect(JSON.parse(limits.stdout).extensionId).toBe(extension.id);

    const logs = await ext(cwd, ["logs", "--json", "--limit", "50"]);
    expect(logs.code).toBe(0);
    expect(logs.stdout).toContain(`"path":"/developer/v1/extensions/${extension.id}/installs"`);
  });

  test("ext keys create prints a new key alone on stdout, even to a pipe; it works; ext keys list shows it", async () => {
    const created = await ext(cwd, ["keys", "create", "--name", "from-cli", "--scopes", "extensions:read"]);
    expect(created.code).toBe(0);
    const key = created.stdout.trim();
    expect(key).toMatch(/^ext_[0-9A-Za-z]{40}$/);
    expect(created.stderr).toContain('created key "from-cli" for account acc_local (scopes extensions:read)');
    const res = await fetch(`${server.url}/developer/v1/extensions`, { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    const listed = JSON.parse((await ext(cwd, ["keys", "list", "--json"])).stdout) as {
      apiKeys: { name: string; keyPrefix: string; scopes: string[] }[];
    };
    expect(listed.apiKeys).toContainEqual(
      expect.objectContaining({ name: "from-cli", keyPrefix: key.slice(0, 8), scopes: ["extensions:read"] }),
    );
    const wrong = await ext(cwd, ["keys", "create", "--scopes", "everything"]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('--scopes: "everything" is not a scope');
  });

  test("human output: aligned tables and fields; an unknown action gets a guess (exit 2)", async () => {
    const list = await ext(cwd, ["extensions", "list"]);
    expect(list.code).toBe(0);
    const [header, row] = list.stdout.split("\n");
    expect(header).toMatch(/^ID +NAME +STATUS +VISIBILITY +CURRENT VERSION$/);
    expect(row!.indexOf("X ")).toBe(header!.indexOf("NAME"));
    const typo = await ext(cwd, ["extensions", "craete", "--name", "Y"]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("did you mean `create`?");
  });

  test("the next step after a create is typed as the user typed the command: `npx ext` when npm ran it", async () => {
    const direct = await ext(cwd, ["extensions", "create", "--name", "Direct"]);
    expect(direct.stdout).toMatch(/\nnext: ext deploy DIR --extension ext_\w+ --version 1\.0\.0\n/);
    const viaNpx = await ext(cwd, ["extensions", "create", "--name", "Via npx"], { npm_command: "exec" });
    expect(viaNpx.stdout).toMatch(/\nnext: npx ext deploy DIR --extension ext_\w+ --version 1\.0\.0\n/);
  });

  test("EXT_BASE_URL and EXT_API_KEY win over the folder's server; flags win over both", async () => {
    const other = mkdtempSync(join(built.work, "other-"));
    const elsewhere = await serveIn(other, ["--empty"]);
    try {
      // The folder's server is `server`; the variables point at `elsewhere`, which has no account.
      const viaEnv = await ext(cwd, ["extensions", "list", "--json"], {
        EXT_BASE_URL: elsewhere.url,
        EXT_API_KEY: "ext_not_a_key_of_that_server_0123456789",
      });
      expect(viaEnv.code).toBe(1);
      expect(viaEnv.stderr).toContain("401");
      // A server named by URL gets no token from a folder: the user gives it, as here.
      const viaFlag = await ext(
        cwd,
        ["extensions", "list", "--json", "--target", server.url, "--admin-token", adminTokenOf(cwd)],
        { EXT_BASE_URL: elsewhere.url },
      );
      expect(viaFlag.code).toBe(0);
    } finally {
      await elsewhere.stop();
    }
  });

  test("a server that stopped removes its server.json", async () => {
    // A stale file (dead pid) is then not used, and no port is guessed instead (also
    // test/cli/stale-server-file.test.ts, on the resolution itself).
    const dir = mkdtempSync(join(built.work, "stale-"));
    const s = await serveIn(dir);
    const file = join(dir, ".ext-data", "server.json");
    expect(existsSync(file)).toBe(true);
    expect(await s.stop()).toBe(0);
    expect(existsSync(file)).toBe(false);
    // Left by a server killed outright: its pid is gone, so the command does not trust the URL in it.
    writeFileSync(file, JSON.stringify({ url: server.url, pid: s.proc.pid }), { mode: 0o600 });
    expect(alive(s.proc.pid)).toBe(false);
    const r = await ext(dir, ["extensions", "list"]);
    // No other address is guessed: the command says how to start or name a server.
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`no emulator found in ${dir} or a folder above it`);
    expect(r.stderr).not.toContain(server.url);
    expect(r.stdout).toBe("");
  });
});

describe("restarts and --empty", () => {
  test("a restart on the same folder makes no second account and prints a key that works", async () => {
    const cwd = mkdtempSync(join(built.work, "restart-"));
    const first = await serveIn(cwd);
    expect(await first.stop()).toBe(0);
    const again = await serveIn(cwd);
    try {
      expect(again.banner).not.toContain("api key:");
      expect(again.apiKeys).toEqual([]);
      const res = await fetch(`${again.url}/_emulator/accounts`, {
        headers: { authorization: `Bearer ${adminTokenOf(cwd)}` },
      });
      expect(((await res.json()) as { accounts: unknown[] }).accounts).toHaveLength(1);
      // A command in the folder finds the server and the account's key by itself, as the banner says.
      expect(again.banner).toContain("(commands run in this folder or below it find this server by themselves)");
      const listed = await ext(cwd, ["extensions", "list", "--json"]);
      expect(listed.code).toBe(0);
      expect(JSON.parse(listed.stdout)).toEqual({ extensions: [] });
    } finally {
      await again.stop();
    }
  });

  test("a start that cannot listen (port in use) makes no account: the next start shows the new key", async () => {
    const cwd = mkdtempSync(join(built.work, "port-taken-"));
    // A port held by a listener of our own, on a port the system chose.
    const holder = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    try {
      const failed = await ext(cwd, ["serve", "--port", String(holder.port)]);
      expect(failed.code).not.toBe(0);
      expect(failed.stderr).toContain("already in use");
      expect(failed.stdout).not.toContain("api key:");
    } finally {
      holder.stop(true);
    }
    const next = await serveIn(cwd);
    try {
      expect(next.banner).toContain('(account acc_local, "local", new)');
      const { key } = next.apiKeys[0]!;
      const api = await fetch(`${next.url}/developer/v1/extensions`, { headers: { authorization: `Bearer ${key}` } });
      expect(api.status).toBe(200);
    } finally {
      await next.stop();
    }
  });

  test("--empty starts with no account and says what to do; a command says the same instead of a 404", async () => {
    const cwd = mkdtempSync(join(built.work, "empty-"));
    const s = await serveIn(cwd, ["--empty"]);
    try {
      expect(s.banner).not.toContain("api key:");
      expect(s.banner).toContain("\n    ext seed demo --target local\n");
      const r = await ext(cwd, ["extensions", "list"]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`the emulator at ${s.url} has no account yet`);
      expect(r.stderr).toContain("load the demo with `ext seed demo --target local`");
      // No 404 anywhere but in the URL, whose random port may hold those digits (44041).
      expect(r.stderr.replaceAll(s.url, "<url>")).not.toContain("404");
      // What it suggests works, and then so does the command.
      expect((await ext(cwd, ["seed", "demo", "--target", "local"])).code).toBe(0);
      const after = await ext(cwd, ["extensions", "list", "--json"]);
      expect(after.code).toBe(0);
      expect(after.stderr).toContain("using account acc_demo");
    } finally {
      await s.stop();
    }
  });

  test("--empty with --seed is a usage error", async () => {
    const r = await ext(mkdtempSync(join(built.work, "both-")), ["serve", "--empty", "--seed", "demo", "--port", "0"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--empty");
  });
});

describe("ext exec and ext init", () => {
  test("ext exec sets EXT_ADMIN_TOKEN, and a command inside it acts on that emulator with no flags", async () => {
    const cwd = mkdtempSync(join(built.work, "exec-"));
    const r = await ext(cwd, [
      "exec",
      "--",
      "sh",
      "-ec",
      `printf '%s\\n' "$EXT_ADMIN_TOKEN"; "${built.bin}" extensions create --name Inside --json; "${built.bin}" logs --limit 1 --json`,
    ]);
    expect(r.code).toBe(0);
    const [token, json, logged] = r.stdout.trim().split("\n");
    expect(token).toMatch(/^adm_[\w-]{43}$/);
    expect(JSON.parse(json!).extension.name).toBe("Inside");
    // The control plane, which takes no request without the token: the command's own log.
    expect(JSON.parse(logged!)).toMatchObject({ method: "POST", path: "/developer/v1/extensions", status: 201 });
  });

  test("ext init's next steps are typed as the user typed it: `npx ext` when npm ran it, else `ext`", async () => {
    const direct = await ext(mkdtempSync(join(built.work, "init-")), ["init", "a"]);
    expect(direct.stdout).toContain("\n  ext extensions create --name a ");
    expect(direct.stdout).toContain("\n  ext deploy a --extension ID");
    const viaNpx = await ext(mkdtempSync(join(built.work, "init-")), ["init", "b"], { npm_command: "exec" });
    expect(viaNpx.stdout).toContain("\n  npx ext extensions create --name b ");
    expect(viaNpx.stdout).toContain("\n  npx ext deploy b --extension ID");
  });

  test("ext init refuses a folder that is not empty, and writes nothing into it", async () => {
    const cwd = mkdtempSync(join(built.work, "init-"));
    writeFileSync(join(cwd, "keep.txt"), "mine");
    const r = await ext(cwd, ["init", "."]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("is not empty");
    expect(existsSync(join(cwd, "manifest.json"))).toBe(false);
  });
});
