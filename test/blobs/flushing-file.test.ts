import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { FLUSH_EVERY_BYTES, FlushingFile } from "../../src/blobs/flushing-file";

const dir = mkdtempSync(join(tmpdir(), "ext-flushing-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const openFds = () => readdirSync("/proc/self/fd").length;

/** 64 KB chunks with distinct bytes, so a lost or reordered chunk shows in the content. */
function chunks(total: number): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i * 65536 < total; i++) out.push(Buffer.alloc(Math.min(65536, total - i * 65536), i % 251));
  return out;
}

describe("FlushingFile", () => {
  test("writes every byte in order, flushes as it grows, and closes its descriptor", async () => {
    const before = openFds();
    const data = chunks(3 * FLUSH_EVERY_BYTES + 12345);
    const file = new FlushingFile(join(dir, "a"));
    const source = Readable.from(
      (function* () {
        for (const c of data) {
          file.wrote(c.length);
          yield c;
        }
      })(),
    );
    await pipeline(source, file.stream);
    await file.close();
    expect(readFileSync(join(dir, "a")).equals(Buffer.concat(data))).toBe(true);
    // The first bytes may pass before the file is open: at least two of the three flushes are issued.
    expect(file.flushesIssued).toBeGreaterThanOrEqual(2);
    expect(openFds()).toBe(before);
  });

  test("a chunk counted while close() is under way queues no flush on the descriptor being closed", async () => {
    const file = new FlushingFile(join(dir, "late"));
    await new Promise((resolve) => file.stream.once("open", resolve));
    await new Promise((resolve) => setTimeout(resolve, 10)); // our own descriptor is open too
    file.stream.end();
    const closing = file.close();
    file.wrote(FLUSH_EVERY_BYTES);
    await closing;
    expect(file.flushesIssued).toBe(0);
  });

  test("a file that cannot be opened fails its stream, and close() has nothing to close", async () => {
    const before = openFds();
    const file = new FlushingFile(join(dir, "missing-dir", "b"));
    const error = await pipeline(Readable.from([Buffer.alloc(10)]), file.stream).catch((e) => e);
    expect((error as NodeJS.ErrnoException).code).toBe("ENOENT");
    await file.close();
    expect(openFds()).toBe(before);
  });

  test("a stream destroyed mid-write still releases its descriptor once close() is called", async () => {
    const before = openFds();
    const file = new FlushingFile(join(dir, "c"));
    file.stream.write(Buffer.alloc(1024));
    await new Promise((resolve) => file.stream.once("open", resolve));
    file.stream.on("error", () => {});
    file.stream.destroy(new Error("client went away"));
    await new Promise<void>((resolve) => file.stream.once("close", () => resolve()));
    expect(openFds()).toBe(before + 1); // the stream's descriptor is gone; the flushing one is still ours
    await file.close();
    expect(openFds()).toBe(before);
  });
});
