/**
 * `ext limits` with the compiled binary: `show` with usage and human units (`--json` exact), `request` held
 * to the API's rules before anything is sent, `requests` listing them.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { join } from "node:path";
import { REASON_MIN } from "../../common/api-rules";
import { BUILD_TIMEOUT_MS, type Built, buildBinary, run, type ServedBinary, serve } from "./helpers";

const DEMO_KEY = "ext_demo_0123456789abcdefghijklmnopqrstuv";
let built: Built;
let server: ServedBinary;
let cwd: string;
let extensionId: string;

beforeAll(async () => {
  built = buildBinary();
  cwd = mkdtempSync(join(built.work, "limits-"));
  server = await serve(built.bin, ["--memory", "--seed", "demo"], cwd);
  const created = await ext(["extensions", "create", "--name", "Limits Board", "--json"]);
  extensionId = JSON.parse(created.stdout).extension.id;
}, BUILD_TIMEOUT_MS);
afterAll(async () => {
  await server?.stop();
  built?.cleanup();
});

const ext = (args: string[]) =>
  run(built.bin, args, {
    cwd,
    env: { EXT_BASE_URL: server.baseUrl, EXT_API_KEY: DEMO_KEY, EXT_ADMIN_TOKEN: server.adminToken },
  });

const longReason = "A drum kit of one hundred samples for the show";

describe("ext limits show", () => {
  test("a usage column and human units; --json keeps the exact numbers", async () => {
    const r = await ext(["limits", "show", "--extension", extensionId]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^LIMIT +VALUE +USED +SOURCE +HARD MAX$/);
    const row = (key: string) => lines.find((l) => l.startsWith(`${key} `))!.split(/ {2,}/);
    expect(row("storage_global_bytes")).toEqual(["storage_global_bytes", "100.0 MB", "-", "platform_default", "-"]);
    expect(row("max_extensions_per_account")).toEqual([
      "max_extensions_per_account",
      "25",
      "1",
      "platform_default",
      "-",
    ]);
    expect(row("invocation_timeout_seconds")).toEqual([
      "invocation_timeout_seconds",
      "30 s",
      "-",
      "platform_default",
      "120 s",
    ]);
    expect(r.stderr).toContain(`limits request --extension ${extensionId}`);

    const json = JSON.parse((await ext(["limits", "show", "--extension", extensionId, "--json"])).stdout);
    expect(json.limits.storage.storage_global_bytes.value).toBe(104857600);
    expect(json.usage.extensions).toBe(1);
  });
});

describe("ext limits request / requests", () => {
  test("refused before sending: a misspelt key (with a guess), a short reason, no limit, a value past the hard limit", async () => {
    const cases: [string[], string][] = [
      [["--limit", "max_sound_per_extension=100", "--reason", longReason], "did you mean max_sounds_per_extension?"],
      [
        ["--limit", "max_sounds_per_extension=100", "--reason", `  ${"x".repeat(REASON_MIN - 1)}  `],
        `--reason must be at least ${REASON_MIN} characters`,
      ],
      [["--reason", longReason], "needs --limit KEY=VALUE"],
      [["--limit", "max_versions_per_extension=501", "--reason", longReason], "hard limit of 500"],
      [
        ["--limit", "max_sounds_per_extension=lots", "--reason", longReason],
        "max_sounds_per_extension takes a whole number",
      ],
    ];
    for (const [flags, message] of cases) {
      const r = await ext(["limits", "request", "--extension", extensionId, ...flags]);
      expect({ code: r.code, has: r.stderr.includes(message) }).toEqual({ code: 2, has: true });
    }
    const list = JSON.parse((await ext(["limits", "requests", "--json"])).stdout);
    expect(list.limitRequests).toEqual([]);
  });

  test("an extension request and an account one (repeated --limit), then listed; the API's own refusal is shown", async () => {
    const one = await ext([
      "limits",
      "request",
      "--extension",
      extensionId,
      "--limit",
      "max_sounds_per_extension=100,max_allow_hosts=40",
      "--reason",
      longReason,
      "--json",
    ]);
    expect(one.code).toBe(0);
    const made = JSON.parse(one.stdout).limitRequest;
    expect(made).toMatchObject({
      accountId: "acc_demo",
      scope: "extension",
      extensionId,
      limits: { max_sounds_per_extension: 100, max_allow_hosts: 40 },
      status: "pending",
    });
    const two = await ext([
      "limits",
      "request",
      "--scope",
      "account",
      "--limit",
      "max_api_keys=40",
      "--limit=max_team_members=20",
      "--reason",
      longReason,
    ]);
    expect(two.code).toBe(0);
    expect(two.stdout).toMatch(/limits: +max_api_keys=40, max_team_members=20/);
    expect(two.stderr).toContain("ext limits requests");

    const table = await ext(["limits", "requests"]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^ID +ACCOUNT +SCOPE +LIMITS +STATUS +CREATED +DECISION$/m);
    expect(table.stdout).toContain(made.id);
    expect(table.stdout).toMatch(/acc_demo +account +max_api_keys=40, max_team_members=20 +pending/);
    const rejected = JSON.parse((await ext(["limits", "requests", "--status", "rejected", "--json"])).stdout);
    expect(rejected.limitRequests).toEqual([]);

    // Not an increase: the server's rule, its message shown as it came.
    const lower = await ext([
      "limits",
      "request",
      "--extension",
      extensionId,
      "--limit",
      "max_allow_hosts=5",
      "--reason",
      longReason,
    ]);
    expect(lower.code).toBe(1);
    expect(lower.stderr).toContain("error: 422");
    expect(lower.stderr).toContain("max_allow_hosts");
  });
});
