/** Configuration: flags > environment > defaults, and clear errors for bad values. */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_DATA_DIR, DEFAULT_HOST, DEFAULT_PORT, isLoopback } from "../common/addresses";
import { ConfigError, parseServerConfig } from "../server/base/config";

describe("parseServerConfig", () => {
  test("defaults", () => {
    // toMatchObject: later issues add settings of their own; these are the foundation's.
    expect(parseServerConfig({}, {})).toMatchObject({
      host: DEFAULT_HOST,
      port: DEFAULT_PORT,
      dataDir: DEFAULT_DATA_DIR,
      memory: false,
      seed: null,
      rateLimits: true,
      adminToken: null,
      autoApproveMs: null,
      logLevel: "info",
      readyFile: null,
    });
    expect(DEFAULT_HOST).toBe("127.0.0.1");
    expect(DEFAULT_DATA_DIR).toBe("./.ext-data");
  });

  test("environment over defaults", () => {
    const config = parseServerConfig(
      {},
      {
        EXT_HOST: "0.0.0.0",
        EXT_PORT: "9000",
        EXT_DATA_DIR: "/tmp/d",
        EXT_MEMORY: "1",
        EXT_SEED: "f.json",
        EXT_RATE_LIMITS: "off",
        EXT_LOG_LEVEL: "warn",
        EXT_READY_FILE: "/tmp/r.json",
      },
    );
    expect(config).toMatchObject({
      host: "0.0.0.0",
      port: 9000,
      dataDir: "/tmp/d",
      memory: true,
      seed: "f.json",
      rateLimits: false,
      logLevel: "warn",
      readyFile: "/tmp/r.json",
    });
  });

  test("flags over environment", () => {
    const env = {
      EXT_HOST: "0.0.0.0",
      EXT_PORT: "9000",
      EXT_MEMORY: "true",
      EXT_RATE_LIMITS: "on",
      EXT_LOG_LEVEL: "warn",
    };
    const config = parseServerConfig(
      { host: "127.0.0.2", port: "0", memory: false, rateLimits: false, logLevel: "debug" },
      env,
    );
    expect(config).toMatchObject({ host: "127.0.0.2", port: 0, memory: false, rateLimits: false, logLevel: "debug" });
  });

  test("an empty environment variable counts as unset", () => {
    expect(parseServerConfig({}, { EXT_PORT: "", EXT_SEED: "" })).toMatchObject({ port: DEFAULT_PORT, seed: null });
  });

  test("on/off spellings", () => {
    for (const v of ["1", "true", "on", "yes", "ON"])
      expect(parseServerConfig({}, { EXT_RATE_LIMITS: v }).rateLimits).toBe(true);
    for (const v of ["0", "false", "off", "no", "Off"])
      expect(parseServerConfig({}, { EXT_RATE_LIMITS: v }).rateLimits).toBe(false);
  });

  const bad: [string, () => unknown, RegExp][] = [
    [
      "port 70000",
      () => parseServerConfig({ port: "70000" }, {}),
      /port must be an integer from 0 to 65535 \(got "70000"\)/,
    ],
    ["port -1", () => parseServerConfig({}, { EXT_PORT: "-1" }), /port must be an integer/],
    ["port empty flag", () => parseServerConfig({ port: "" }, {}), /port must be an integer.*\(got ""\)/],
    ["port abc", () => parseServerConfig({ port: "abc" }, {}), /port must be an integer.*"abc"/],
    ["port 80.5", () => parseServerConfig({ port: "80.5" }, {}), /port must be an integer/],
    [
      "rate limits maybe",
      () => parseServerConfig({}, { EXT_RATE_LIMITS: "maybe" }),
      /rate limits must be on or off \(got "maybe"\)/,
    ],
    ["memory perhaps", () => parseServerConfig({ memory: "perhaps" }, {}), /memory must be on or off/],
    [
      "log level loud",
      () => parseServerConfig({ logLevel: "loud" }, {}),
      /log level must be one of debug, info, warn, error, silent \(got "loud"\)/,
    ],
  ];
  for (const [name, run, message] of bad) {
    test(`bad value: ${name} → ConfigError with a clear message`, () => {
      let caught: unknown;
      try {
        run();
      } catch (e) {
        caught = e;
      }
      expect(caught).toBeInstanceOf(ConfigError);
      expect((caught as Error).message).toMatch(message);
      expect((caught as Error).message).not.toContain("\n");
    });
  }
});

describe("isLoopback", () => {
  test("loopback addresses", () => {
    for (const h of ["127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]"]) expect(isLoopback(h)).toBe(true);
  });
  test("everything else", () => {
    for (const h of ["0.0.0.0", "::", "192.168.1.10", "10.0.0.1", "example.com", "127.0.0.1.example.com"])
      expect(isLoopback(h)).toBe(false);
  });
});

describe("EXT_MEMORY=auto (the container image's default)", () => {
  const memoryFor = (dataDir: string) => parseServerConfig({}, { EXT_MEMORY: "auto", EXT_DATA_DIR: dataDir }).memory;
  test("in memory when the data dir is a plain folder, or missing", () => {
    const dir = mkdtempSync(join(tmpdir(), "ext-auto-"));
    try {
      expect(memoryFor(dir)).toBe(true);
      expect(memoryFor(join(dir, "missing"))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true });
    }
  });
  test("on disk when the data dir is a mount point (a volume)", () => {
    // /proc is a mount of its own on every Linux machine and container.
    expect(memoryFor("/proc")).toBe(false);
  });
  test("other values are still on or off", () => {
    expect(() => parseServerConfig({}, { EXT_MEMORY: "sometimes" })).toThrow(
      'memory must be on or off (got "sometimes")',
    );
  });
});
