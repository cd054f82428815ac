/**
 * `ext seed`'s report: the API keys a load created are printed only to a terminal or with --json; sent to a
 * file or a pipe (`ext seed FILE > seed.log`, which other local users may read), each key is named with where its
 * value is instead, and no key value is printed. The command itself runs as a real process with piped stdout.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseServerConfig } from "../../server/base/config";
import { createLogger } from "../../server/base/logger";
import { createRuntime } from "../../server/runtime/runtime";
import type { Fixture } from "../../server/seed/model";
import { REPORT_KEYS_MAX, seedReportLines } from "../../tools/cli/lib/seed-report";
import { runCli } from "../helpers/run-cli";

const GIVEN = "ext_seed_report_given_0123456789abcdef";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A key written in the fixture, and one the load generates. */
const FIXTURE: Fixture = {
  accounts: [
    {
      id: "acc_team",
      name: "Team",
      apiKeys: [
        { name: "given", key: GIVEN, scopes: ["*"] },
        { name: "ci", scopes: ["extensions:read"] },
      ],
    },
  ],
};

/** The fixture loaded into a new in-memory runtime: its report, with the generated key's value. */
function seeded() {
  const config = parseServerConfig({ memory: true, logLevel: "silent" }, {});
  const runtime = createRuntime(config, { logger: createLogger("silent") });
  try {
    const report = runtime.seed(FIXTURE, null);
    const generated = report.keys.find((k) => k.name === "ci")?.key;
    expect(generated).toMatch(/^ext_[0-9A-Za-z]{40}$/);
    return { report, generated: generated! };
  } finally {
    runtime.close();
  }
}

describe("ext seed's report", () => {
  test("not a terminal: no key value; each key named, with where its value is", () => {
    const { report, generated } = seeded();
    const text = seedReportLines(FIXTURE, report, { json: false, terminal: false }).join("\n");
    expect(text).not.toContain(GIVEN);
    expect(text).not.toContain(generated);
    expect(text).not.toMatch(/\bext_[A-Za-z0-9_]{20,}/);
    expect(text.split("\n")).toEqual([
      "seeded: 1 account(s) and 0 extension(s) created",
      '  api key: "given" (account acc_team): not printed: output is not a terminal; as written in the fixture',
      '  api key: "ci" (account acc_team), generated: not printed: output is not a terminal; kept as a hash only: `ext keys create` makes another, or seed with --json to have new keys printed',
    ]);
  });

  test("many keys: the text names the first few and points to --json, which has them all", () => {
    const fixture: Fixture = {
      accounts: Array.from({ length: 8 }, (_, i) => ({
        id: `acc_${i}`,
        name: `Account ${i}`,
        apiKeys: [{ name: "ci", scopes: ["*"] }],
      })),
    };
    const config = parseServerConfig({ memory: true, logLevel: "silent" }, {});
    const runtime = createRuntime(config, { logger: createLogger("silent") });
    try {
      const report = runtime.seed(fixture, null);
      const lines = seedReportLines(fixture, report, { json: false, terminal: true });
      expect(lines.filter((l) => l.startsWith("  api key:"))).toHaveLength(REPORT_KEYS_MAX);
      expect(lines.at(-1)).toBe(`  and ${8 - REPORT_KEYS_MAX} more key(s) created (--json prints them all)`);
      const json = JSON.parse(seedReportLines(fixture, report, { json: true, terminal: false })[0]!);
      expect(json.keys.filter((k: { key?: string }) => k.key?.startsWith("ext_"))).toHaveLength(8);
    } finally {
      runtime.close();
    }
  });

  test("a terminal: the values of both keys", () => {
    const { report, generated } = seeded();
    expect(seedReportLines(FIXTURE, report, { json: false, terminal: true })).toEqual([
      "seeded: 1 account(s) and 0 extension(s) created",
      `  api key: ${GIVEN}  (account acc_team, "given")`,
      `  api key: ${generated}  (account acc_team, "ci")`,
    ]);
  });

  test("--json: the values, whatever stdout is (an explicit request for machine output)", () => {
    const { report, generated } = seeded();
    for (const terminal of [false, true]) {
      const [line, ...rest] = seedReportLines(FIXTURE, report, { json: true, terminal });
      expect(rest).toEqual([]);
      expect(JSON.parse(line!).keys).toEqual([
        { accountId: "acc_team", name: "given", created: true, key: GIVEN },
        { accountId: "acc_team", name: "ci", created: true, key: generated },
      ]);
    }
  });
});

describe("ext seed FILE > seed.log", () => {
  test("a real process with stdout a pipe prints no key value; --json prints them", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ext-seed-report-"));
    dirs.push(dir);
    writeFileSync(join(dir, "team.json"), JSON.stringify(FIXTURE));
    const seed = (dataDir: string, ...extra: string[]) =>
      runCli(["seed", "team.json", "--data-dir", dataDir, ...extra], { cwd: dir });
    const text = await seed("data-text");
    expect({ code: text.code, stderr: text.stderr }).toEqual({ code: 0, stderr: "" });
    expect(text.stdout).not.toContain(GIVEN);
    expect(text.stdout).not.toMatch(/\bext_[A-Za-z0-9_]{20,}/);
    expect(text.stdout).toContain(
      '  api key: "ci" (account acc_team), generated: not printed: output is not a terminal;',
    );
    const json = await seed("data-json", "--json");
    expect({ code: json.code, stderr: json.stderr }).toEqual({ code: 0, stderr: "" });
    const keys = (JSON.parse(json.stdout) as { keys: { name: string; key: string }[] }).keys;
    expect(keys.map((k) => k.name)).toEqual(["given", "ci"]);
    expect(keys[0]!.key).toBe(GIVEN);
    expect(keys[1]!.key).toMatch(/^ext_[0-9A-Za-z]{40}$/);
  });
});
