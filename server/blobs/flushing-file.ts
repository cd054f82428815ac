/**
 * A temp file's write stream that has the kernel write it out every FLUSH_EVERY_BYTES while it is still
 * being written (fdatasync, on the thread pool). Without it the whole upload sits dirty in the page cache
 * until BlobStore.commit's fsync, which then blocks for as long as the disk takes to write all of it; with
 * it the disk works while the CPU parses and inspects, and the final fsync finds almost nothing left. Durability is unchanged: commit still fsyncs
 * the file before the rename. This only moves the disk's work earlier.
 *
 * The flushes go through a descriptor of our own (fdatasync flushes the file, whichever descriptor wrote
 * it): the write stream closes its descriptor when it ends or fails — Bun does so even with autoClose off —
 * and a flush must never land on a closed, perhaps reused, descriptor.
 */
import { closeSync, createWriteStream, fdatasync, openSync, type WriteStream } from "node:fs";

export const FLUSH_EVERY_BYTES = 8 * 1024 * 1024;

export class FlushingFile {
  readonly stream: WriteStream;
  /** Flushes issued so far (for tests). */
  flushesIssued = 0;
  private unflushed = 0;
  private flushes: Promise<void> = Promise.resolve();
  private flushError: NodeJS.ErrnoException | null = null;
  /** Ours alone, opened once the stream has created the file; closed by close(). */
  private fd: number | null = null;
  private closed = false;

  constructor(private readonly path: string) {
    this.stream = createWriteStream(path, { mode: 0o600 });
    this.stream.once("open", () => {
      if (this.closed) return;
      try {
        this.fd = openSync(this.path, "r");
      } catch (e) {
        this.flushError ??= e as NodeJS.ErrnoException;
      }
    });
  }

  /** Counts bytes handed to the stream; every FLUSH_EVERY_BYTES, one more flush joins the queue. */
  wrote(bytes: number): void {
    if (this.closed) return; // a late chunk after close() must not queue a flush on a closed descriptor
    this.unflushed += bytes;
    const fd = this.fd;
    if (this.unflushed < FLUSH_EVERY_BYTES || fd === null) return;
    this.unflushed = 0;
    this.flushesIssued++;
    this.flushes = this.flushes.then(
      () => new Promise<void>((resolve) => fdatasync(fd, (e) => resolve(void (e && (this.flushError ??= e))))),
    );
  }

  /** After the stream has finished or failed: waits for the flushes, closes our descriptor, reports a flush's failure. */
  async close(): Promise<void> {
    this.closed = true;
    await this.flushes;
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
    if (this.flushError) throw this.flushError;
  }
}
