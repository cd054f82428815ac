/** The CLI's building blocks, in process: argument checking, the limits body, calls through client/, progress, exit codes. */
import { describe, expect, test } from "bun:test";
import { ApiCallError, type Limits } from "../../client";
import type { LimitSource } from "../../server/resources/limits/service";
import { apiClient, call, endpointsFromAnyUrl } from "../../tools/calls/http";
import { UsageError } from "../../tools/calls/usage-error";
import { deployArgs } from "../../tools/cli/commands/deploy";
import { exitStatusOf } from "../../tools/cli/commands/exec";
import { secretsArgs } from "../../tools/cli/commands/secrets";
import { humanValue, usageOf } from "../../tools/cli/lib/limits";
import { shownStrays, strayArguments } from "../../tools/cli/lib/runner";
import { parseLimitsBody } from "../../tools/deploy/limits";
import { createProgress } from "../../tools/deploy/progress";
import { DEMO_KEY, startTestEmulator, stopTestEmulator } from "../helpers/emulator";

describe("strayArguments (unknown flags are usage errors)", () => {
  test("known flags, their values, --no- booleans and the positional pass", () => {
    expect(
      strayArguments(deployArgs, ["dist", "--extension", "ext_1", "--dry-run", "--no-wait", "--version=1.0.0"]),
    ).toEqual([]);
  });
  test("an unknown flag, a second positional, and nothing after --", () => {
    expect(strayArguments(deployArgs, ["dist", "--bogus", "extra", "--", "--anything"])).toEqual(["--bogus", "extra"]);
  });
  test("the usage error names an unknown flag without its value, which may be a secret", () => {
    expect(shownStrays(deployArgs, ["--bogus", "--value=tok_secret", "extra"])).toBe("--bogus --value=… extra");
    // A short flag with its value attached, as getopt reads `-vhunter2`: the flag part only.
    expect(shownStrays(deployArgs, ["-vhunter2", "-x"])).toBe("-v… -x");
  });
  test("`ext secrets` never echoes stray words: an unquoted value's words land there", () => {
    const stray = strayArguments(secretsArgs, ["set", "API_TOKEN", "my", "secret", "phrase", "--value=tok_secret"]);
    expect(stray).toEqual(["secret", "phrase", "--value=tok_secret"]);
    expect(shownStrays(secretsArgs, stray)).toBe("--value=… (2 words not shown: they may be a secret value)");
  });
});

describe("endpoints from a --target", () => {
  test("an API base under a path prefix keeps the prefix; a string that is not a URL is a usage error", () => {
    const e = endpointsFromAnyUrl("http://h:1/prefix/developer/v1/");
    expect(e.adminUrl).toBe("http://h:1/prefix/_emulator");
    expect(() => endpointsFromAnyUrl("not a url")).toThrow(UsageError);
  });
  test("seed accepts the root, the API base or the control plane", () => {
    for (const u of ["http://h:1", "http://h:1/developer/v1", "http://h:1/_emulator/"])
      expect(endpointsFromAnyUrl(u).adminUrl).toBe("http://h:1/_emulator");
  });
});

describe("parseLimitsBody", () => {
  const resolved = (value: number, source: LimitSource) => ({
    value,
    source,
    default: value,
    hardMax: null,
    unit: "count",
    description: "",
    overrideKey: "",
  });
  const body = (limits: Partial<Limits["limits"]>): Limits => ({
    extensionId: "ext_1",
    sounds: {
      resolvedLimit: 80,
      source: "developer_override",
      maxInManifest: 200,
      fileBytes: 1,
      warningBytes: 1,
      formats: [],
    },
    limits: { account: {}, storage: {}, serverFunctions: {}, realtime: {}, sounds: {}, build: {}, ...limits },
    usage: { extensions: 1, versions: 0, archivedVersions: 0, secrets: 0, apiKeys: 1, teamMembers: 1 },
  });
  test("reads limits by category and the sounds summary, with sources", () => {
    const l = parseLimitsBody(
      body({
        build: { build_time_seconds: resolved(60, "extension_override") },
        sounds: { max_sounds_per_extension: resolved(80, "developer_override") },
        realtime: { not_a_limit: resolved(1, "extension_override") },
      }),
    );
    expect(l.bundle.max_sounds_per_extension).toBe(80);
    expect(l.source("max_sounds_per_extension")).toBe("developer_override");
    expect(l.buildTimeSeconds).toBe(60);
    expect(l.bundle.sound_file_bytes).toBe(10 * 1024 * 1024); // absent: the platform default
    expect(l.source("sound_file_bytes")).toBe("platform_default");
  });
  test("usage by limit key, where the body counts it; human units", () => {
    expect(usageOf(body({}), "max_extensions_per_account")).toBe(1);
    expect(usageOf(body({}), "storage_global_bytes")).toBeNull();
    expect(humanValue(104857600, "bytes")).toBe("100.0 MB");
    expect(humanValue(300, "per_minute")).toBe("300 / min");
    expect(humanValue(30, "seconds")).toBe("30 s");
    expect(humanValue(25, "count")).toBe("25");
  });
});

describe("createProgress", () => {
  test("plain lines at each quarter when not a terminal", () => {
    const lines: string[] = [];
    const p = createProgress("uploading", false, (s) => lines.push(s));
    for (let sent = 0; sent <= 100; sent += 5) p.update(sent, 100);
    p.done();
    expect(lines.map((l) => l.split(":")[1]!.trim().split(" ")[0])).toEqual(["25%", "50%", "75%", "100%"]);
  });
  test("a bar redrawn in place on a terminal", () => {
    const out: string[] = [];
    const p = createProgress("uploading", true, (s) => out.push(s));
    p.update(50, 100);
    p.done();
    expect(out[0]).toStartWith("\ruploading [");
    expect(out[0]).toContain(" 50%");
    expect(out.at(-1)).toBe("\n");
  });
});

describe("exitStatusOf", () => {
  test("the code, or 128 + the signal number", () => {
    expect(exitStatusOf(3, null)).toBe(3);
    expect(exitStatusOf(null, "SIGTERM")).toBe(143);
    expect(exitStatusOf(null, 9)).toBe(137);
  });
});

describe("the CLI's calls through client/", () => {
  test("a 429 is retried 3 times after its Retry-After, then reported; a signal cuts a Retry-After wait", async () => {
    const emu = await startTestEmulator();
    try {
      const api = apiClient(endpointsFromAnyUrl(emu.baseUrl), DEMO_KEY);
      const list = () => api.GET("/developer/v1/extensions");
      await emu.control.POST("/_emulator/faults", { body: { path: "/extensions", status: 429, times: 4 } });
      const waits: number[] = [];
      const refused = await call(list, { onRetry: (s) => waits.push(s) }).catch((e) => e);
      expect(refused).toBeInstanceOf(ApiCallError);
      expect((refused as ApiCallError).status).toBe(429);
      expect(waits).toEqual([1, 1, 1]);
      await emu.control.DELETE("/_emulator/faults");

      await emu.control.POST("/_emulator/faults", { body: { path: "/extensions", status: 429, times: 1 } });
      const cut = new AbortController();
      const reason = new Error("deadline");
      const pending = call(list, { signal: cut.signal, onRetry: () => cut.abort(reason) });
      await expect(pending).rejects.toBe(reason);
      await emu.control.DELETE("/_emulator/faults");
      expect(Array.isArray((await call(list)).extensions)).toBe(true);
    } finally {
      await stopTestEmulator(emu);
    }
  }, 10_000);
});
