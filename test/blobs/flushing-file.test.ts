import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { FLUSH_EVERY_BYTES, FlushingFile } from "../../server/blobs/flushing-file";

const dir = mkdtempSync(join(tmpdir(), "ext-flushing-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
/**
 * Descriptors of this process open on `path`. Counting only those (not every descriptor of the process)
 * keeps the tests deterministic: the runtime opens and closes descriptors of its own at any time, and a
 * stream of an earlier test may still be closing its descriptor on another file.
 */
function fdsOn(path: string): number {
  let n = 0;
  for (const fd of readdirSync("/proc/self/fd")) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`) === path) n++;
    } catch {
      // closed between the listing and the readlink (the listing's own descriptor, for one)
    }
  }
  return n;
}
const streamClosed = (file: FlushingFile) =>
  file.stream.closed ? Promise.resolve() : new Promise<void>((resolve) => file.stream.once("close", () => resolve()));

/** 64 KB chunks with distinct bytes, so a lost or reordered chunk shows in the content. */
function chunks(total: number): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i * 65536 < total; i++) out.push(Buffer.alloc(Math.min(65536, total - i * 65536), i % 251));
  return out;
}

describe("FlushingFile", () => {
  test("writes every byte in order, flushes as it grows, and closes its descriptor", async () => {
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
    expect(fdsOn(join(dir, "a"))).toBeGreaterThanOrEqual(1); // ours, at least, until close()
    await file.close();
    expect(readFileSync(join(dir, "a")).equals(Buffer.concat(data))).toBe(true);
    // The first bytes may pass before the file is open: at least two of the three flushes are issued.
    expect(file.flushesIssued).toBeGreaterThanOrEqual(2);
    await streamClosed(file);
    expect(fdsOn(join(dir, "a"))).toBe(0);
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
    await streamClosed(file);
    expect(fdsOn(join(dir, "late"))).toBe(0);
  });

  test("a file that cannot be opened fails its stream, and close() has nothing to close", async () => {
    const file = new FlushingFile(join(dir, "missing-dir", "b"));
    let opened = false;
    file.stream.once("open", () => (opened = true));
    const error = await pipeline(Readable.from([Buffer.alloc(10)]), file.stream).catch((e) => e);
    expect((error as NodeJS.ErrnoException).code).toBe("ENOENT");
    await streamClosed(file);
    // No "open" means FlushingFile never opened a descriptor of its own; close() resolves with nothing to do.
    expect(opened).toBe(false);
    expect(await file.close()).toBeUndefined();
    expect(file.flushesIssued).toBe(0);
    expect(fdsOn(dir)).toBe(0);
  });

  test("a stream destroyed mid-write still releases its descriptor once close() is called", async () => {
    const file = new FlushingFile(join(dir, "c"));
    file.stream.write(Buffer.alloc(1024));
    await new Promise((resolve) => file.stream.once("open", resolve));
    file.stream.on("error", () => {});
    file.stream.destroy(new Error("client went away"));
    await new Promise<void>((resolve) => file.stream.once("close", () => resolve()));
    expect(fdsOn(join(dir, "c"))).toBe(1); // the stream's descriptor is gone; the flushing one is still ours
    await file.close();
    expect(fdsOn(join(dir, "c"))).toBe(0);
  });
});
