/**
 * The data directory is this user's alone: created 0700 with every file 0600 (the SQLite file, its WAL and
 * shared-memory files, the secrets key, the lock and PID files, each bundle), and one made world-readable
 * (by an older version, or by hand) is tightened at start with a note in the log.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseServerConfig } from "../server/base/config";
import { createLogger } from "../server/base/logger";
import { startServer } from "../server/start/server";
import { checkDataDir, StartupError } from "../tools/cli/lib/startup-errors";
import { baseFixture } from "./helpers/emulator";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const modeOf = (path: string) => statSync(path).mode & 0o777;

function fixtureWithBundle() {
  const fixture = baseFixture();
  fixture.accounts[0]!.extensions = [{ name: "Moded", versions: [{ version: "1.0.0" }] }];
  return fixture;
}

function start(dataDir: string, lines: string[] = []) {
  const config = parseServerConfig({ port: 0, dataDir, logLevel: "info", rateLimits: false }, {});
  return startServer(config, { logger: createLogger("info", (l) => lines.push(l)), seedFixture: fixtureWithBundle() });
}

/** Every path of the data directory with its mode (the blob store's folders and files included). */
function modes(dataDir: string): Record<string, number> {
  const out: Record<string, number> = { ".": modeOf(dataDir) };
  const walk = (dir: string, rel: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      out[rel + name] = modeOf(path);
      if (statSync(path).isDirectory()) walk(path, `${rel}${name}/`);
    }
  };
  walk(dataDir, "");
  return out;
}

function expectPrivate(dataDir: string) {
  const all = modes(dataDir);
  for (const name of ["ext.sqlite", "ext.sqlite-wal", "ext.sqlite-shm", "secrets.key", "ext.lock", "ext.pid"])
    expect([name, all[name]]).toEqual([name, 0o600]);
  const blobs = Object.keys(all).filter((p) => p.startsWith("blobs/objects/"));
  expect(blobs.length).toBe(1);
  for (const [path, mode] of Object.entries(all)) {
    const isDir = statSync(join(dataDir, path)).isDirectory();
    expect([path, mode]).toEqual([path, isDir ? 0o700 : 0o600]);
  }
}

describe("data directory modes", () => {
  test("a new data directory is 0700 and every file in it 0600, bundles included", async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), "ext-modes-")), "data");
    dirs.push(dataDir);
    const lines: string[] = [];
    const server = start(dataDir, lines);
    try {
      expectPrivate(dataDir);
      expect(lines.filter((l) => l.includes("made the data directory private"))).toEqual([]);
    } finally {
      await server.stop(true);
    }
  });

  test("a world-readable one is made private at start, with a note", async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), "ext-modes-")), "data");
    dirs.push(dataDir);
    await start(dataDir).stop(true);
    // What an older version left: folders 0755, files 0644.
    for (const [path] of Object.entries(modes(dataDir))) {
      const full = join(dataDir, path);
      chmodSync(full, statSync(full).isDirectory() ? 0o755 : 0o644);
    }
    const lines: string[] = [];
    const server = start(dataDir, lines);
    try {
      expectPrivate(dataDir);
      expect(lines.some((l) => l.includes("made the data directory private"))).toBe(true);
    } finally {
      await server.stop(true);
    }
  });

  // Another user (uid 65534, nobody) plants the data directory's files in a world-writable project folder;
  // the owner runs as root (CI, sudo). Only root can give a file to another uid, so only root can set this up.
  const asRoot = process.platform !== "win32" && process.getuid?.() === 0;
  const planted = (what: "files" | "dir") => {
    const dataDir = join(mkdtempSync(join(tmpdir(), "ext-modes-")), ".ext-data");
    dirs.push(dataDir);
    mkdirSync(dataDir, { mode: 0o777 });
    for (const name of ["secrets.key", "ext.sqlite", "ext.sqlite-wal", "ext.sqlite-shm"]) {
      const file = join(dataDir, name);
      writeFileSync(file, "");
      chmodSync(file, 0o666);
      if (what === "files" || name === "secrets.key") chownSync(file, 65534, 65534);
    }
    if (what === "dir") chownSync(dataDir, 65534, 65534);
    return dataDir;
  };

  test.skipIf(!asRoot)(
    "files another user planted are refused, not chmodded and used (needs root to chown; skipped otherwise)",
    () => {
      const dataDir = planted("files");
      expect(() => start(dataDir)).toThrow(/belongs to another user \(uid 65534, not 0\)/);
      // Nothing was changed, nothing chowned.
      expect(modeOf(join(dataDir, "secrets.key"))).toBe(0o666);
      expect(statSync(join(dataDir, "ext.sqlite")).uid).toBe(65534);
    },
  );

  test.skipIf(!asRoot)(
    "ext serve says whose the directory is, naming the path, before trying to write (needs root to chown)",
    () => {
      const dataDir = planted("dir");
      const config = parseServerConfig({ port: 0, dataDir, logLevel: "silent" }, {});
      const e = (() => {
        try {
          checkDataDir(config, { dataDir });
        } catch (x) {
          return x as StartupError;
        }
      })();
      expect(e).toBeInstanceOf(StartupError);
      expect(e!.message).toBe(
        `--data-dir ${dataDir}: ${dataDir} belongs to another user (uid 65534, not 0): ext does not use a data directory someone else could have planted; remove it, or give another --data-dir`,
      );
    },
  );
});
