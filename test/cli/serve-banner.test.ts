/**
 * `ext serve`'s banner, in process with the terminal flag given: no login link ever (a link a terminal opens is
 * on the browser's command line); the other secret values (a generated admin token, API keys) appear only on
 * a terminal; sent to a file or pipe (`ext serve > serve.log`), every
 * such line says where the secret is instead, and none of the values the ready file holds is printed.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseServerConfig, type ServerFlags } from "../../server/base/config";
import { createLogger } from "../../server/base/logger";
import type { Fixture } from "../../server/seed/model";
import { type RunningEmulator, startServer } from "../../server/start/server";
import { BANNER_KEYS_MAX, bannerLines, STRONG_TOKEN_LENGTH } from "../../tools/cli/lib/serve-banner";

const dirs: string[] = [];
const running: RunningEmulator[] = [];
afterAll(async () => {
  for (const e of running) await e.stop(true);
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

interface Ready {
  adminToken: string;
  apiKeys: { accountId: string; name: string; key: string }[];
}

/** A started server (as `ext serve` starts it: the starter account on a new data directory) and its ready file. */
function start(flags: ServerFlags = {}, seedFixture?: Fixture) {
  const dir = mkdtempSync(join(tmpdir(), "ext-banner-"));
  dirs.push(dir);
  const readyFile = join(dir, "ready.json");
  const config = parseServerConfig(
    { port: 0, dataDir: join(dir, "data"), readyFile, logLevel: "silent", ...flags },
    {},
  );
  const emulator = startServer(config, {
    logger: createLogger("silent"),
    starterAccount: !seedFixture,
    ...(seedFixture ? { seedFixture } : {}),
  });
  running.push(emulator);
  const ready = JSON.parse(readFileSync(readyFile, "utf8")) as Ready;
  return { emulator, ready, readyFile };
}

const banner = (emulator: RunningEmulator, terminal: boolean) => `${bannerLines(emulator, { terminal }).join("\n")}\n`;
const lineOf = (text: string, label: string) => text.split("\n").find((l) => l.startsWith(`  ${label}`)) ?? "";

/** Fixture keys given in plaintext, and one left to be generated. */
const FIXTURE: Fixture = {
  accounts: [
    {
      id: "acc_team",
      name: "Team",
      apiKeys: [
        { name: "given", key: "ext_given_key_0123456789abcdefghijklmnopq", scopes: ["*"] },
        { name: "ci", scopes: ["extensions:read"] },
      ],
    },
  ],
};

test("an active profile: where it came from and how many answers it changes", () => {
  const dir = mkdtempSync(join(tmpdir(), "ext-banner-profile-"));
  dirs.push(dir);
  const file = join(dir, "platform.json");
  writeFileSync(
    file,
    JSON.stringify({
      profileVersion: 1,
      target: "https://platform.example",
      entries: [{ operation: "POST /developer/v1/extensions", answer: 201, difference: "status", observed: 200 }],
    }),
  );
  const { emulator } = start({ memory: true, profile: file });
  const text = banner(emulator, false);
  expect(lineOf(text, "profile:")).toBe(
    `  profile:       ${file}: 1 difference observed on https://platform.example; the dashboard's Profile page lists them`,
  );
  expect(text).toContain(
    `${lineOf(text, "profile:")}\n                 POST /developer/v1/extensions 201: the status is 200: ext's (the spec's) is 201\n`,
  );
  expect(lineOf(banner(start({ memory: true }).emulator, false), "profile:")).toBe("");
});

test("a seed that brings a profile: a warning naming the file, before what it changes; --profile replaces it", () => {
  const dir = mkdtempSync(join(tmpdir(), "ext-banner-seed-profile-"));
  dirs.push(dir);
  const seed = join(dir, "shared-fixture.json");
  const profile = join(dir, "platform.json");
  const entry = { operation: "POST /developer/v1/extensions", answer: 201, difference: "status", observed: 200 };
  writeFileSync(seed, JSON.stringify({ ...FIXTURE, profile: { profileVersion: 1, entries: [entry] } }));
  writeFileSync(profile, JSON.stringify({ profileVersion: 1, entries: [] }));
  const text = banner(start({ memory: true, seed }).emulator, false);
  expect(text).toContain(
    `  WARNING:       the seed ${seed} brings a platform profile: the developer API's answers change as that file says (1 difference), not as the spec does; --profile FILE replaces it\n  profile:       the profile kept in ${seed}: 1 difference;`,
  );
  const replaced = banner(start({ memory: true, seed, profile }).emulator, false);
  expect(replaced).not.toContain("WARNING");
  expect(lineOf(replaced, "profile:")).toStartWith(`  profile:       ${profile}: 0 differences`);
});

describe("the banner of a start whose output is not a terminal", () => {
  test("prints no secret value the ready file holds: no admin token, no API key", () => {
    for (const [flags, fixture] of [
      [{}, undefined],
      [{ memory: true }, undefined],
      [{ memory: true }, FIXTURE],
      [{ host: "0.0.0.0" }, FIXTURE],
    ] as const) {
      const { emulator, ready } = start(flags, fixture);
      const text = banner(emulator, false);
      const secrets = [ready.adminToken, ...ready.apiKeys.map((k) => k.key)];
      expect(ready.apiKeys.length).toBeGreaterThan(0);
      for (const secret of secrets) expect({ flags, leaked: text.includes(secret) }).toEqual({ flags, leaked: false });
      expect(text).not.toContain("/dashboard/login?token=");
      expect(text).not.toMatch(/\bext_[A-Za-z0-9_]{20,}/);
      expect(text).not.toMatch(/\badm_[A-Za-z0-9_-]{20,}/);
    }
  });

  test("each line whose secret is left out says where to get it", () => {
    const { emulator, readyFile } = start({ memory: true }, FIXTURE);
    const text = banner(emulator, false);
    expect(lineOf(text, "dashboard:")).toBe(
      `  dashboard:     at an address of its own each start  (to log a browser in: \`EXT_ADMIN_TOKEN=<the admin token> ext dashboard --target ${emulator.url}\`)`,
    );
    expect(lineOf(text, "admin token:")).toBe(
      `  admin token:   in the ready file ${readyFile} (not printed: output is not a terminal)`,
    );
    const keyLines = text.split("\n").filter((l) => l.startsWith("  api key:"));
    expect(keyLines).toEqual([
      `  api key:       not printed: output is not a terminal; in the ready file's apiKeys  (account acc_team, "given")`,
      `  api key:       not printed: output is not a terminal; in the ready file's apiKeys  (account acc_team, "ci", generated)`,
    ]);
    expect(text).toContain(
      `    export EXT_BASE_URL=${emulator.baseUrl} EXT_API_KEY="<a key from the ready file's apiKeys>" EXT_ADMIN_TOKEN="<the admin token: see above>"\n`,
    );
  });

  test("a fixture that makes many keys: the banner names the first few and says where the others are", () => {
    const accounts = Array.from({ length: 8 }, (_, i) => ({
      id: `acc_${i}`,
      name: `Account ${i}`,
      apiKeys: [{ name: "ci", scopes: ["*"] }],
    }));
    const { emulator, ready } = start({ memory: true }, { accounts } as Fixture);
    expect(ready.apiKeys).toHaveLength(8);
    for (const terminal of [true, false]) {
      const lines = bannerLines(emulator, { terminal });
      expect(lines.filter((l) => l.startsWith("  api key:"))).toHaveLength(BANNER_KEYS_MAX);
      expect(lines).toContain(
        `  api keys:      and ${8 - BANNER_KEYS_MAX} more (the ready file's apiKeys lists them all)`,
      );
    }
  });

  test("a data directory's server: `ext dashboard` logs a browser in; the token stays in server.json", () => {
    const { emulator } = start();
    const text = banner(emulator, false);
    expect(lineOf(text, "dashboard:")).toStartWith(
      `  dashboard:     at an address of its own each start  (to log a browser in: \`EXT_DATA_DIR=`,
    );
    expect(lineOf(text, "dashboard:")).toEndWith(" ext dashboard`)");
    expect(lineOf(text, "admin token:")).toContain("server.json (this folder's commands read it)");
    expect(lineOf(text, "api key:")).toBe(
      `  api key:       not printed: output is not a terminal; in the ready file's apiKeys  (account acc_local, "local", new)`,
    );
  });

  test("memory mode with no ready file: the generated token is kept nowhere, and the banner says how to have one", () => {
    const config = parseServerConfig({ port: 0, memory: true, logLevel: "silent" }, {});
    expect(config.readyFile).toBeNull();
    const bare = startServer(config, { logger: createLogger("silent"), starterAccount: true });
    running.push(bare);
    const text = banner(bare, false);
    expect(text).toContain(
      "  admin token:   generated, kept nowhere else and not printed: output is not a terminal: to use the control plane, start\n                 with --ready-file FILE (it holds the token), or choose one with --admin-token or EXT_ADMIN_TOKEN\n",
    );
    // Nobody has the token: no line may send the user to the dashboard or ask for the token.
    expect(lineOf(text, "dashboard:")).toBe(
      `  dashboard:     at an address of its own each start  (no way to log in without the token, not printed: output is not a terminal: restart with --ready-file FILE (it holds the token), or with --admin-token or EXT_ADMIN_TOKEN)`,
    );
    expect(lineOf(text, "api key:")).toBe(
      '  api key:       not printed: output is not a terminal; kept as a hash only, and a new one needs the token: restart with --ready-file FILE (it holds the token), or with --admin-token or EXT_ADMIN_TOKEN  (account acc_local, "local", new)',
    );
    expect(text).toContain(
      `    export EXT_BASE_URL=${bare.baseUrl} EXT_API_KEY="<none to be had: see above>" EXT_ADMIN_TOKEN="<the admin token: see above>"\n`,
    );
    expect(text).not.toContain("<the admin token> ext dashboard");
    expect(text).not.toContain("ext keys create");
    expect(text).not.toContain(bare.runtime.control.adminToken);
    expect(text).not.toContain(bare.runtime.starter!.key);
  });

  test("memory mode with no ready file and no account: the demo cannot be loaded without the token either", () => {
    const config = parseServerConfig({ port: 0, memory: true, empty: true, logLevel: "silent" }, {});
    const bare = startServer(config, { logger: createLogger("silent"), starterAccount: false });
    running.push(bare);
    const text = banner(bare, false);
    expect(lineOf(text, "no account yet")).toBe(
      "  no account yet, and no way to make one without the token: restart with --ready-file FILE (it holds the token), or with --admin-token or EXT_ADMIN_TOKEN (or --seed demo)",
    );
    expect(text).not.toContain("ext seed demo");
  });

  test("memory mode with a token given: the user has it, so the dashboard line names it as theirs", () => {
    const config = parseServerConfig(
      { port: 0, memory: true, adminToken: "adm_banner_given_token_0123456789", logLevel: "silent" },
      {},
    );
    const given = startServer(config, { logger: createLogger("silent"), starterAccount: true });
    running.push(given);
    const text = banner(given, false);
    expect(lineOf(text, "dashboard:")).toBe(
      `  dashboard:     at an address of its own each start  (to log a browser in: \`EXT_ADMIN_TOKEN=<the admin token> ext dashboard --target ${given.url}\`)`,
    );
    expect(lineOf(text, "api key:")).toContain(
      `kept as a hash only: \`EXT_ADMIN_TOKEN=<the admin token> ext keys create --target ${given.url}\` prints a new one`,
    );
  });

  test("--open-control-plane: the export line asks for no admin token", () => {
    const { emulator } = start({ memory: true, openControlPlane: true });
    for (const terminal of [false, true]) {
      const text = banner(emulator, terminal);
      expect(text).toContain(`    export EXT_BASE_URL=${emulator.baseUrl} EXT_API_KEY=`);
      expect(text).not.toContain("EXT_ADMIN_TOKEN=");
    }
  });
});

describe("a given admin token", () => {
  const withToken = (adminToken: string) => {
    const config = parseServerConfig({ port: 0, memory: true, adminToken, logLevel: "silent" }, {});
    const emulator = startServer(config, { logger: createLogger("silent"), starterAccount: true });
    running.push(emulator);
    return banner(emulator, true);
  };

  test("a short one is said to be guessable, naming its length, and never printed", () => {
    const text = withToken("letmein");
    expect(lineOf(text, "WARNING:")).toBe(
      "  WARNING:       the admin token is 7 characters: whoever guesses it has the control plane;",
    );
    expect(text).not.toContain("letmein");
  });

  test(`one of ${STRONG_TOKEN_LENGTH} characters or more gets no warning`, () => {
    expect(withToken("a".repeat(STRONG_TOKEN_LENGTH))).not.toContain("WARNING:");
  });
});

describe("the banner on a terminal", () => {
  test("shows a token nothing else holds and the keys (the ones of the ready file), and still no login link", () => {
    const { emulator, ready } = start({ memory: true }, FIXTURE);
    const text = banner(emulator, true);
    expect(lineOf(text, "dashboard:")).toBe(
      `  dashboard:     at an address of its own each start  (to log a browser in: \`EXT_ADMIN_TOKEN=<the admin token> ext dashboard --target ${emulator.url}\`)`,
    );
    expect(text).not.toContain("/dashboard/login");
    expect(lineOf(text, "admin token:")).toBe(`  admin token:   ${ready.adminToken}`);
    expect(ready.apiKeys).toEqual([
      { accountId: "acc_team", name: "given", key: "ext_given_key_0123456789abcdefghijklmnopq" },
      { accountId: "acc_team", name: "ci", key: expect.stringMatching(/^ext_[0-9A-Za-z]{40}$/) },
    ]);
    for (const k of ready.apiKeys) expect(text).toContain(`  api key:       ${k.key}  (account acc_team, "${k.name}"`);
    expect(text).toContain(`EXT_API_KEY=${ready.apiKeys[0]!.key} EXT_ADMIN_TOKEN=${ready.adminToken}\n`);
  });

  test("the starter account's key, new and shown once, is the ready file's too", () => {
    const { emulator, ready } = start();
    const text = banner(emulator, true);
    expect(ready.apiKeys).toEqual([{ accountId: "acc_local", name: "local", key: emulator.runtime.starter!.key }]);
    expect(lineOf(text, "api key:")).toBe(
      `  api key:       ${ready.apiKeys[0]!.key}  (account acc_local, "local", new; shown once)`,
    );
  });
});

describe("the ready file and the new account", () => {
  test("a ready file that cannot be written makes no account: the next start makes it and gives its key", () => {
    const dir = mkdtempSync(join(tmpdir(), "ext-banner-"));
    dirs.push(dir);
    const dataDir = join(dir, "data");
    const options = { logger: createLogger("silent"), starterAccount: true };
    const unwritable = parseServerConfig(
      { port: 0, dataDir, readyFile: join(dir, "no-such-folder", "ready.json"), logLevel: "silent" },
      {},
    );
    expect(() => startServer(unwritable, options)).toThrow("cannot write it");
    const next = startServer(parseServerConfig({ port: 0, dataDir, logLevel: "silent" }, {}), options);
    running.push(next);
    expect(next.runtime.starter?.accountId).toBe("acc_local");
    expect(next.runtime.services.accounts.listAccounts()).toHaveLength(1);
  });
});
