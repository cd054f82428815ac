/**
 * A server named by URL (--target, EXT_BASE_URL) while the CLI holds an admin token must prove it holds that
 * token before anything is sent: a listener that took an emulator's old port receives the challenge and
 * nothing else (no token, no key, no secret value). The real emulator, named the same way, still works.
 * Real sockets: an impostor that records every request, an in-process emulator, the CLI as a subprocess.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";
import { baseFixture, DEMO_KEY, startTestEmulator, stopTestEmulator, type TestEmulator } from "../helpers/emulator";
import { runCli } from "../helpers/run-cli";

const SECRET = "s3cret-value-never-to-leave-0123456789";
const UNPROVEN = "did not prove it is the emulator this admin token belongs to";

interface Seen {
  method: string;
  path: string;
  authorization: string | null;
  session: string | null;
  body: string;
}

/** A server on a free port that answers 200 `answer` to everything, /healthz included, and records all. */
function impostor(answer: unknown = {}) {
  const seen: Seen[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const url = new URL(req.url);
      seen.push({
        method: req.method,
        path: url.pathname + url.search,
        authorization: req.headers.get("authorization"),
        session: req.headers.get("x-ext-session"),
        body: await req.text(),
      });
      return Response.json(answer);
    },
  });
  return { server, seen, url: `http://127.0.0.1:${server.port}` };
}

let cwd: string;
let emu: TestEmulator;
const fakes: Array<ReturnType<typeof impostor>> = [];
const track = (f: ReturnType<typeof impostor>) => {
  fakes.push(f);
  return f;
};

beforeAll(async () => {
  // No .ext-data anywhere up from here matters: every command names its server.
  cwd = mkdtempSync(join(tmpdir(), "ext-named-target-"));
  const fixture = baseFixture();
  fixture.accounts[0]!.extensions = [
    {
      id: "ext_named",
      name: "Named",
      versions: [
        { id: "ver_named_1", version: "1.0.0", status: "pending" },
        { id: "ver_named_2", version: "1.0.1", status: "pending" },
      ],
    },
  ];
  emu = await startTestEmulator({ fixture });
});
afterAll(async () => {
  for (const f of fakes) f.server.stop(true);
  await stopTestEmulator(emu);
  rmSync(cwd, { recursive: true, force: true });
});

const ext = (args: string[], env: Record<string, string> = {}, stdin?: string) =>
  runCli(args, { cwd, env, ...(stdin === undefined ? {} : { stdin }) });

/** The commands of the report: a secret, the developer API, the dashboard link, the control plane. */
const COMMANDS: Array<{ name: string; args: string[]; stdin?: string }> = [
  { name: "secrets set", args: ["secrets", "set", "API_TOKEN", "--extension", "ext_named"], stdin: SECRET },
  { name: "extensions list", args: ["extensions", "list"] },
  { name: "dashboard", args: ["dashboard"] },
  { name: "versions approve", args: ["versions", "approve", "ver_named_1"] },
];

describe("a named server that is to receive an admin token proves it holds it first", () => {
  for (const { name, args, stdin } of COMMANDS) {
    test(`ext ${name} --target IMPOSTOR with EXT_ADMIN_TOKEN: refused, the impostor saw only the challenge`, async () => {
      const fake = track(impostor());
      const token = emu.runtime.control.adminToken;
      const r = await ext([...args, "--target", fake.url], { EXT_ADMIN_TOKEN: token, EXT_API_KEY: DEMO_KEY }, stdin);
      expect(r.stderr).toContain(`error: the server at ${fake.url} ${UNPROVEN}`);
      expect(r.stderr).toContain("nothing was sent to it");
      expect(r.stderr).toContain("`ext serve` prints its current one");
      expect(r.stderr).not.toContain("TypeError");
      expect(r.stdout).not.toContain("stored secret");
      expect(r.code).toBe(1);
      expect(fake.seen).toHaveLength(1);
      const [challenge] = fake.seen;
      expect(challenge).toMatchObject({ method: "GET", authorization: null, session: null, body: "" });
      expect(challenge!.path).toMatch(/^\/healthz\?challenge=[A-Za-z0-9_-]{22,128}$/);
      const everything = JSON.stringify(fake.seen);
      for (const kept of [token, DEMO_KEY, SECRET]) expect(everything).not.toContain(kept);
    });
  }

  test("named by EXT_BASE_URL (the banner's export) and by --admin-token: the same refusal", async () => {
    const fake = track(impostor());
    const viaEnv = await ext(["extensions", "list"], {
      EXT_BASE_URL: `${fake.url}/developer/v1`,
      EXT_ADMIN_TOKEN: emu.runtime.control.adminToken,
      EXT_API_KEY: DEMO_KEY,
    });
    expect(viaEnv.stderr).toContain(UNPROVEN);
    expect(viaEnv.code).toBe(1);
    const viaFlag = await ext(["dashboard", "--target", fake.url, "--admin-token", "adm_whatever_the_user_gave"]);
    expect(viaFlag.stderr).toContain(UNPROVEN);
    expect(viaFlag.code).toBe(1);
    expect(fake.seen.map((s) => s.path.split("?")[0])).toEqual(["/healthz", "/healthz"]);
    expect(fake.seen.every((s) => s.authorization === null)).toBe(true);
  });

  test("the real emulator with a wrong token: refused before the token is sent", async () => {
    const r = await ext(["dashboard", "--target", emu.url], { EXT_ADMIN_TOKEN: "adm_not_this_servers_token" });
    expect(r.stderr).toContain(`the server at ${emu.url} ${UNPROVEN} (its proof is wrong)`);
    expect(r.code).toBe(1);
  });
});

describe("the real emulator, named with its own token, still works", () => {
  const env = () => ({ EXT_ADMIN_TOKEN: emu.runtime.control.adminToken });

  test("ext secrets set stores the value", async () => {
    const r = await ext(
      ["secrets", "set", "API_TOKEN", "--extension", "ext_named", "--target", emu.url, "--api-key", DEMO_KEY],
      env(),
      SECRET,
    );
    expect(r.stderr).toBe("");
    expect(r.stdout).toContain("stored secret API_TOKEN for ext_named");
    expect(r.code).toBe(0);
  });

  test("ext extensions list", async () => {
    const r = await ext(["extensions", "list", "--target", `${emu.url}/developer/v1`], {
      ...env(),
      EXT_API_KEY: DEMO_KEY,
    });
    expect(r.stdout).toContain("ext_named");
    expect(r.code).toBe(0);
  });

  test("ext dashboard mints a login code", async () => {
    const r = await ext(["dashboard", "--json", "--target", emu.url], env());
    expect(JSON.parse(r.stdout)).toMatchObject({ loginUrl: `${emu.dashboardUrl}/dashboard/login` });
    expect(r.code).toBe(0);
  });

  test("ext versions approve approves", async () => {
    const r = await ext(["versions", "approve", "ver_named_2", "--target", emu.url], env());
    expect(r.stdout).toMatch(/status:\s+approved/);
    expect(r.code).toBe(0);
  });
});

describe("EXT_TRUST_TARGET=1: the user vouches for a server reached at another address than it can prove", () => {
  test("the emulator reached as localhost (as through a port mapping or a proxy): refused, then sent to when vouched for", async () => {
    const other = emu.url.replace("127.0.0.1", "localhost");
    const env = { EXT_ADMIN_TOKEN: emu.runtime.control.adminToken };
    const refused = await ext(["dashboard", "--target", other], env);
    expect(refused.stderr).toContain(UNPROVEN);
    expect(refused.stderr).toContain("EXT_TRUST_TARGET=1");
    expect(refused.code).toBe(1);
    const vouched = await ext(["dashboard", "--json", "--target", other], { ...env, EXT_TRUST_TARGET: "1" });
    expect(JSON.parse(vouched.stdout)).toMatchObject({ loginUrl: `${emu.dashboardUrl}/dashboard/login` });
    expect(vouched.code).toBe(0);
  });
});

describe("ext dashboard through a forward that holds only one loopback address", () => {
  test("refused before any page is written: the browser could post the code to whoever takes [::1] at that port", async () => {
    // Only where the machine has [::1]: without it nobody can take it, and the login goes on.
    if (!(networkInterfaces().lo ?? []).some((a) => a.address === "::1")) return;
    // A port mapping holding 127.0.0.1 only (as `docker run -p 127.0.0.1:P:P` does), relaying to the emulator.
    const forward = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (req) => {
        const u = new URL(req.url);
        return fetch(`${emu.url}${u.pathname}${u.search}`, {
          method: req.method,
          headers: req.headers,
          body: req.body,
          redirect: "manual",
        });
      },
    });
    const tmp = mkdtempSync(join(tmpdir(), "ext-forward-page-"));
    try {
      const port = forward.port;
      const r = await ext(["dashboard", "--no-browser", "--target", `http://127.0.0.1:${port}`], {
        EXT_ADMIN_TOKEN: emu.runtime.control.adminToken,
        EXT_TRUST_TARGET: "1",
        TMPDIR: tmp,
      });
      expect(r.stderr).toBe(
        `error: not logging in: nothing listens on [::1]:${port}, so another user could, and a browser sends the dashboard's login to whichever of 127.0.0.1 and [::1] answers at port ${port}. Hold both loopback addresses there (ext serve does; a forward must too: docker run -p ${port}:${port}, not -p 127.0.0.1:${port}:${port}; ssh -L localhost:${port}:…), or stop the program holding one\n`,
      );
      expect(r.code).toBe(1);
      expect(readdirSync(tmp)).toEqual([]);
      // A script's way (--json) is held to the same: no code to post anywhere.
      const json = await ext(["dashboard", "--json", "--target", `http://127.0.0.1:${port}`], {
        EXT_ADMIN_TOKEN: emu.runtime.control.adminToken,
        EXT_TRUST_TARGET: "1",
      });
      expect(json.code).toBe(1);
      expect(JSON.parse(json.stdout).error.message).toStartWith(`not logging in: nothing listens on [::1]:${port}`);
      // The same forward on both addresses: let in, and the script's loginUrl names the port it reached.
      const twin = Bun.serve({ hostname: "::1", port, fetch: (req) => forward.fetch(req) });
      try {
        const held = await ext(["dashboard", "--json", "--target", `http://127.0.0.1:${port}`], {
          EXT_ADMIN_TOKEN: emu.runtime.control.adminToken,
          EXT_TRUST_TARGET: "1",
        });
        expect(held.code).toBe(0);
        expect(JSON.parse(held.stdout).loginUrl).toBe(
          `http://${emu.runtime.control.dashboardLabel}.localhost:${port}/dashboard/login`,
        );
      } finally {
        twin.stop(true);
      }
    } finally {
      forward.stop(true);
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});

describe("without an admin token a named server proves nothing, and is held to its first answer", () => {
  for (const [label, answer] of [
    ["an empty object", {}],
    ["an array", []],
  ] as const) {
    test(`a reply that is ${label} is a clear error, not a TypeError`, async () => {
      const fake = track(impostor(answer));
      const r = await ext(["extensions", "list", "--target", fake.url, "--api-key", "ext_some_key"]);
      expect(r.stderr).toContain(
        `error: the server at ${fake.url} answered something that is not the emulator's API (GET /developer/v1/extensions got 200 with JSON that is not the API's (${JSON.stringify(answer)}))`,
      );
      expect(r.stderr).not.toContain("TypeError");
      expect(r.code).toBe(1);
      // Nothing to prove with: the challenge (its answer held, to compare a later connection's with) carries
      // no key, and the developer API is asked as of the real platform.
      expect(fake.seen.map((s) => s.path.replace(/=.*/, "="))).toEqual([
        "/healthz?challenge=",
        "/developer/v1/extensions",
      ]);
      expect(fake.seen[0]?.authorization).toBeNull();
    });
  }

  test("the check's ground: every JSON success in the API's document is an object with a required member", async () => {
    const doc = (await (await fetch(`${emu.url}/openapi.json`)).json()) as OpenApiDoc;
    const schemaOf = (s: Schema): Schema => (s.$ref ? schemaOf(doc.components.schemas[s.$ref.split("/").pop()!]!) : s);
    let successes = 0;
    for (const [path, ops] of Object.entries(doc.paths))
      for (const [method, op] of Object.entries(ops))
        for (const [status, res] of Object.entries(op.responses ?? {})) {
          if (!status.startsWith("2")) continue;
          for (const [type, { schema }] of Object.entries(res.content ?? {})) {
            if (!/json/.test(type)) continue;
            successes++;
            const s = schemaOf(schema);
            expect({
              at: `${method} ${path} ${status}`,
              type: s.type,
              required: (s.required ?? []).length > 0,
            }).toEqual({ at: `${method} ${path} ${status}`, type: "object", required: true });
          }
        }
    expect(successes).toBeGreaterThan(20);
  });
});

interface Schema {
  $ref?: string;
  type?: string;
  required?: string[];
}
interface OpenApiDoc {
  paths: Record<
    string,
    Record<string, { responses?: Record<string, { content?: Record<string, { schema: Schema }> }> }>
  >;
  components: { schemas: Record<string, Schema> };
}
