import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ReadRefusal, readRegularFile } from "../common/files/safe-read";
import { JsonDepthMeter, readJsonFile } from "../common/json/json-reader";
import { readServerFile } from "../common/server-file";
import { directoryArchive, ExportArchiveError, readExportArchive } from "../server/exports/archive";
import { loadFixtureFile, resolveFixtureSource } from "../server/seed/resolve";
import { FixtureError, parseFixtureText } from "../server/seed/validate";
import { tarOf } from "./helpers/tar-entries";

const dir = mkdtempSync(join(tmpdir(), "ext-json-reader-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const nested = (bytes: number) => Buffer.alloc(bytes, "[");

/** A meter that counts what it was shown: proof a refusal came before the whole input was read. */
class CountingMeter extends JsonDepthMeter {
  seen = 0;
  override push(chunk: Uint8Array | string): void {
    this.seen += chunk.length;
    super.push(chunk);
  }
}

const refusalOf = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return e;
  }
  throw new Error("not refused");
};

describe("the JSON reader", () => {
  test("a link is not followed: fixture.json as a link to /dev/zero is refused at once", () => {
    const link = join(dir, "zero.json");
    symlinkSync("/dev/zero", link);
    const e = refusalOf(() => readJsonFile(link, 1024));
    expect(e).toBeInstanceOf(ReadRefusal);
    expect((e as ReadRefusal).message).toBe("is a symbolic link (links are not followed)");
  });

  test("a device or a FIFO is not a regular file: refused without reading (or waiting for a writer)", () => {
    const fifo = join(dir, "fifo.json");
    expect(Bun.spawnSync(["mkfifo", fifo]).exitCode).toBe(0);
    for (const path of ["/dev/zero", fifo])
      expect((refusalOf(() => readRegularFile(path, 1024)) as Error).message).toBe("is not a regular file");
  });

  test("past the size cap: refused by its size, before a byte is read", () => {
    const path = join(dir, "big.json");
    writeFileSync(path, Buffer.alloc(2048, " "));
    const meter = new CountingMeter();
    const e = refusalOf(() => readRegularFile(path, 1024, (c) => meter.push(c))) as ReadRefusal;
    expect([e.reason, e.message, meter.seen]).toEqual(["too-large", "is larger than 1024 bytes", 0]);
  });

  test("20 MB of nested brackets: refused as too deep after the first piece, not after the whole file", () => {
    const path = join(dir, "deep.json");
    writeFileSync(path, nested(20 * 1024 * 1024));
    const meter = new CountingMeter();
    const e = refusalOf(() => readRegularFile(path, 64 * 1024 * 1024, (c) => meter.push(c))) as ReadRefusal;
    expect([e.reason, e.message]).toEqual(["too-deep", "nests deeper than 32 levels"]);
    expect(meter.seen).toBeLessThanOrEqual(1024 * 1024);
  });

  test("brackets inside strings, escaped quotes included, are not nesting", () => {
    const meter = new JsonDepthMeter(2);
    meter.push('[{"a":"[[[[\\"[[[["}]');
    expect(() => meter.push("[[[")).toThrow(ReadRefusal);
  });
});

describe("every JSON the emulator reads goes through it", () => {
  test("a fixture file, and an export directory's fixture.json, that is a link to /dev/zero", () => {
    const exportDir = join(dir, "export-zero");
    mkdirSync(exportDir);
    symlinkSync("/dev/zero", join(exportDir, "fixture.json"));
    expect(() => resolveFixtureSource(exportDir)).toThrow(
      `cannot read fixture ${join(exportDir, "fixture.json")}: it is a symbolic link (links are not followed)`,
    );
    expect(() => directoryArchive(exportDir)).toThrow(ExportArchiveError);
  });

  test("an export directory with a 20 MB nested fixture.json", () => {
    const exportDir = join(dir, "export-deep");
    mkdirSync(exportDir);
    writeFileSync(join(exportDir, "fixture.json"), nested(20 * 1024 * 1024));
    expect(() => loadFixtureFile(join(exportDir, "fixture.json"))).toThrow("it nests deeper than 32 levels");
    expect(() => directoryArchive(exportDir)).toThrow("fixture.json nests deeper than 32 levels");
  });

  test("fixture text from anywhere is refused past the nesting bound, as a fixture problem", () => {
    const e = refusalOf(() => parseFixtureText(`{"accounts":${"[".repeat(40)}${"]".repeat(40)}}`, "f.json"));
    expect(e).toBeInstanceOf(FixtureError);
    expect((e as FixtureError).problems).toEqual([{ path: "(fixture)", message: "it nests deeper than 32 levels" }]);
  });

  test("an archive's fixture.json past the size cap is refused by its header; nested, by its first bytes", async () => {
    const source = async function* (archive: Buffer) {
      yield archive;
    };
    const big = await tarOf([["fixture.json", Buffer.alloc(65 * 1024 * 1024, "[")]]);
    const deep = await tarOf([["fixture.json", nested(1024 * 1024)]]);
    const out = (name: string) => join(dir, name);
    await expect(readExportArchive(source(big), out("big"), "the archive")).rejects.toThrow(
      "the archive: fixture.json is larger than 67108864 bytes",
    );
    await expect(readExportArchive(source(deep), out("deep"), "the archive")).rejects.toThrow(
      "the archive: fixture.json nests deeper than 32 levels",
    );
  });

  test("server.json that is a link, too large or too deep is no server file", () => {
    const dataDir = join(dir, "data");
    mkdirSync(dataDir);
    const file = join(dataDir, "server.json");
    writeFileSync(file, JSON.stringify({ url: "http://127.0.0.1:1", pid: 5 }), { mode: 0o600 });
    expect(readServerFile(dataDir)).toEqual({ url: "http://127.0.0.1:1", pid: 5 });
    writeFileSync(file, `${"[".repeat(40)}${"]".repeat(40)}`, { mode: 0o600 });
    expect(readServerFile(dataDir)).toBeNull();
    rmSync(file);
    symlinkSync("/dev/zero", file);
    expect(readServerFile(dataDir)).toBeNull();
  });
});
