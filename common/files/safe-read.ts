/**
 * Reading a file that came from outside (a fixture, an export's files, a server file, a file being packed)
 * without being led elsewhere: opened without following a link, accepted only as a regular file, and read
 * through the descriptor that was checked, with a size cap. A link to /dev/zero, a FIFO or a device is
 * refused, never read; a link swapped in after a check is refused by the open itself.
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from "node:fs";

/** Why an input was not read, in words (never errno text); `reason` lets callers choose their own status. */
export class ReadRefusal extends Error {
  override name = "ReadRefusal";
  constructor(
    readonly reason: "too-large" | "too-deep" | "not-a-file" | "unreadable" | "changed",
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

const tooLarge = (max: number) => new ReadRefusal("too-large", `is larger than ${max} bytes`);

function unreadable(code: string | undefined): ReadRefusal {
  const words =
    code === "ENOENT"
      ? "no such file"
      : code === "ELOOP"
        ? "is a symbolic link (links are not followed)"
        : code === "EISDIR"
          ? "is a directory"
          : code === "EACCES" || code === "EPERM"
            ? "permission denied"
            : "cannot be read";
  return new ReadRefusal(code === "ELOOP" || code === "EISDIR" ? "not-a-file" : "unreadable", words, code);
}

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
// A FIFO opened for reading would wait for a writer: opened non-blocking, then refused as not a regular file.
const NONBLOCK = constants.O_NONBLOCK ?? 0;

/**
 * Opens `path` without following a link, as a regular file only; the caller reads through the returned
 * descriptor (the file that was checked) and closes it. `stat` is that descriptor's.
 */
export function openRegularFile(path: string): { fd: number; stat: Stats } {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | NOFOLLOW | NONBLOCK);
  } catch (e) {
    throw unreadable((e as NodeJS.ErrnoException).code);
  }
  const stat = fstatSync(fd);
  if (!stat.isFile()) {
    closeSync(fd);
    throw stat.isDirectory() ? unreadable("EISDIR") : new ReadRefusal("not-a-file", "is not a regular file");
  }
  return { fd, stat };
}

/**
 * The bytes of the regular file `path`, at most `maxBytes` (ReadRefusal past that, decided by its size
 * before reading and by the count while reading, should it grow). `onChunk` sees each piece as it is read;
 * `accept` may refuse the opened file by its stat (an owner, a mode), with no gap between check and read.
 */
export function readRegularFile(
  path: string,
  maxBytes: number,
  onChunk?: (chunk: Buffer) => void,
  accept?: (stat: Stats) => boolean,
): Buffer {
  const { fd, stat } = openRegularFile(path);
  try {
    if (accept && !accept(stat)) throw new ReadRefusal("not-a-file", "is not a file this reader accepts");
    if (stat.size > maxBytes) throw tooLarge(maxBytes);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(1024 * 1024, maxBytes + 1 - total) || 1);
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      total += n;
      if (total > maxBytes) throw tooLarge(maxBytes);
      const piece = chunk.subarray(0, n);
      onChunk?.(piece);
      chunks.push(piece);
    }
    return Buffer.concat(chunks, total);
  } finally {
    closeSync(fd);
  }
}
