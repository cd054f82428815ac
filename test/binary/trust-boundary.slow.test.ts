/**
 * The trust boundary against the compiled binary. Bound to a non-loopback address with an admin token, a
 * request whose Host is missing, empty or malformed — whose URL Bun hands over as a bare path — is refused
 * before any route (it once reached the control plane without the token). On loopback, another user of this
 * machine gets nothing from the control plane (it was open to any local user).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";
import { rawExchange } from "../helpers/raw-http";
import { BUILD_TIMEOUT_MS, type Built, buildBinary, type ServedBinary, serve } from "./helpers";
import { type OtherUser, otherUser } from "./other-user";

const ADMIN = "adm_trust_boundary_0123456789abcdefghijklm";

/** An IPv4 address of this machine other than loopback, or null when it has none. */
function nonLoopbackAddress(): string | null {
  for (const list of Object.values(networkInterfaces()))
    for (const a of list ?? []) if (a.family === "IPv4" && !a.internal) return a.address;
  return null;
}
const ADDRESS = nonLoopbackAddress();

let built: Built;
beforeAll(() => {
  built = buildBinary();
}, BUILD_TIMEOUT_MS);
afterAll(() => built?.cleanup());

describe.skipIf(ADDRESS === null)(`bound to a non-loopback address (${ADDRESS ?? "none on this machine"})`, () => {
  let server: ServedBinary;
  let port: number;
  beforeAll(async () => {
    server = await serve(
      built.bin,
      ["--host", "0.0.0.0", "--admin-token", ADMIN, "--memory", "--seed", "demo"],
      built.work,
    );
    port = Number(new URL(server.url).port);
  });
  afterAll(() => server?.stop());

  const send = (head: string) => rawExchange(ADDRESS!, port, head);
  const accounts = async () =>
    (
      await send(
        `GET /_emulator/state HTTP/1.1\r\nHost: ${ADDRESS}:${port}\r\nAuthorization: Bearer ${ADMIN}\r\nConnection: close\r\n\r\n`,
      )
    ).body.counts.accounts as number;

  test("a malformed, empty or missing Host is a 400 bad_request before any route; nothing is reset, exported or minted", async () => {
    const heads = [
      // The issue's reproductions: reset with `Host: x/y`, export with secrets over HTTP/1.0 with an empty Host,
      // and a dashboard key through a path the router read from a fixed offset.
      "POST /_emulator/reset HTTP/1.1\r\nHost: x/y\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
      "GET /_emulator/export?includeSecretValues=true HTTP/1.0\r\nHost:\r\n\r\n",
      "POST /a/bbbbbbbb/_emulator/accounts/acc_demo/dashboard-key HTTP/1.1\r\nHost: x/y\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
      // No Host at all, and other characters a host never holds.
      "GET /_emulator/state HTTP/1.0\r\n\r\n",
      "GET /_emulator/state HTTP/1.1\r\nHost: x?y\r\nConnection: close\r\n\r\n",
      "GET /_emulator/state HTTP/1.1\r\nHost: x@y\r\nConnection: close\r\n\r\n",
      "GET /_emulator/state HTTP/1.1\r\nHost: x y\r\nConnection: close\r\n\r\n",
      "GET /_emulator/state HTTP/1.1\r\nHost: a\r\nHost: b\r\nConnection: close\r\n\r\n",
      "GET /healthz HTTP/1.1\r\nHost: x/y\r\nConnection: close\r\n\r\n",
    ];
    for (const head of heads) {
      const answer = await send(head);
      expect({ head, status: answer.status, code: answer.body?.error?.code }).toEqual({
        head,
        status: 400,
        code: "bad_request",
      });
      expect(answer.text).not.toContain("plaintext");
    }
    expect(await accounts()).toBe(1);
  });

  test("a short Host cannot move the path the router reads: a control-plane route still needs the token", async () => {
    for (const host of ["a", "ab", "abc"]) {
      const answer = await send(
        `POST /xx/_emulator/reset HTTP/1.1\r\nHost: ${host}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`,
      );
      expect({ host, status: answer.status }).toEqual({ host, status: 404 });
      const direct = await send(
        `POST /_emulator/reset HTTP/1.1\r\nHost: ${host}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`,
      );
      expect({ host, status: direct.status }).toEqual({ host, status: 401 });
    }
  });

  test("a well-formed request still works with the token, and is refused without it", async () => {
    const state = (auth: string) =>
      send(`GET /_emulator/state HTTP/1.1\r\nHost: ${ADDRESS}:${port}\r\n${auth}Connection: close\r\n\r\n`);
    expect((await state(`Authorization: Bearer ${ADMIN}\r\n`)).status).toBe(200);
    expect((await state("")).status).toBe(401);
  });
});

const OTHER = otherUser(["curl"]);

describe.skipIf(typeof OTHER === "string")(
  `another local user, against a loopback server${typeof OTHER === "string" ? ` (skipped: ${OTHER})` : ""}`,
  () => {
    const user = OTHER as OtherUser;
    let server: ServedBinary;
    let dir: string;
    beforeAll(async () => {
      // A folder the other user may enter (to run curl from), holding a data directory they may not read.
      dir = mkdtempSync(join(tmpdir(), "ext-trust-"));
      chmodSync(dir, 0o755);
      server = await serve(built.bin, ["--data-dir", join(dir, ".ext-data"), "--seed", "demo"], dir);
    });
    afterAll(async () => {
      await server?.stop();
      user.remove();
      rmSync(dir, { recursive: true, force: true });
    });

    const asOther = (...args: string[]) => {
      const out = user.run(["curl", "-s", "-w", "\n%{http_code}", ...args], { cwd: dir }).stdout;
      const cut = out.lastIndexOf("\n");
      return { status: Number(out.slice(cut + 1)), body: out.slice(0, cut) };
    };

    test("gets a 401 from every control-plane route: export with secrets, dashboard key, reset, seed, state", () => {
      const url = server.url;
      const calls: [string, string, string[]][] = [
        ["GET", "/_emulator/export?includeSecretValues=true", []],
        ["POST", "/_emulator/accounts/acc_demo/dashboard-key", []],
        ["POST", "/_emulator/reset", []],
        ["POST", "/_emulator/seed", ["-H", "content-type: application/json", "--data", '{"accounts":[]}']],
        ["GET", "/_emulator/state", []],
        ["GET", "/_emulator/accounts", []],
      ];
      for (const [method, path, extra] of calls) {
        const answer = asOther("-X", method, ...extra, url + path);
        expect({ method, path, status: answer.status }).toEqual({ method, path, status: 401 });
        expect(answer.body).not.toContain("ext_demo_");
      }
      // Liveness is public; the proof reveals nothing of the token.
      expect(asOther(`${url}/healthz`).status).toBe(200);
    });

    test("cannot read the token: server.json is the owner's alone (0600)", () => {
      const file = join(dir, ".ext-data", "server.json");
      expect(statSync(file).mode & 0o077).toBe(0);
      expect(JSON.parse(readFileSync(file, "utf8")).adminToken).toMatch(/^adm_/);
      expect(user.run(["cat", file]).code).not.toBe(0);
    });
  },
);
