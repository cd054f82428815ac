/**
 * The one way a file is written, by the server and by every tool (the CLI, the helpers, the parity tools):
 * under a fresh random name in the target's own folder that must not exist yet and is never a followed link
 * (`O_CREAT|O_EXCL|O_WRONLY|O_NOFOLLOW`), mode 0600 unless the caller says the file is meant to be shared,
 * written whole, flushed to disk (fsync; not for a file that only describes the running process), then renamed into place. So a reader never sees half a file, and a
 * file or link someone else planted at a predictable name (a shared /tmp, a project folder) is never written
 * through: a link at the final name is replaced, not followed. A failed rename is an error, never swallowed;
 * the temporary file goes whenever the write does not complete.
 */
import {
  closeSync,
  constants,
  fchmodSync,
  fsyncSync,
  linkSync,
  openSync,
  renameSync,
  rmSync,
  writeSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";

// O_NOFOLLOW does not exist on Windows, where a fresh O_EXCL name is what matters.
const CREATE_NEW = constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | (constants.O_NOFOLLOW ?? 0);

/** Owner only: what every file a tool writes gets unless the docs say it is meant to be shared. */
export const PRIVATE_FILE_MODE = 0o600;

export interface PrivateFileOptions {
  /** PRIVATE_FILE_MODE unless the file is meant to be shared and the docs say so (the umask still applies). */
  mode?: number;
  /**
   * False: a file (or link) already at the path is left alone and the write fails ("a file is already
   * there"), as `ext init` promises never to overwrite anything. True (the default): it is replaced whole.
   */
  replace?: boolean;
  /** What the file is, for the error message: "the JUnit report" → "cannot write the JUnit report to PATH (…)". */
  what?: string;
  /**
   * True: the file gets `mode` exactly, whatever the umask (set on the open descriptor, before the file is in
   * place): a container image's files keep the bits its user needs.
   */
  exactMode?: boolean;
  /**
   * False: the bytes are not flushed to the disk (fsync) before the file is put in place. Only for a file that
   * describes the running process itself (server.json, the ready file): a machine crash ends the process too,
   * so such a file is stale after one whatever it holds, and its readers take a stale or unreadable one for
   * none. A reader still never sees half of it (it is renamed into place whole); the start that writes it
   * saves a flush that waits on the disk.
   */
  durable?: boolean;
}

/** A file that could not be written or put in place: the path and the reason in words; `code` is the errno's. */
export class FileWriteError extends Error {
  override name = "FileWriteError";
  constructor(
    readonly path: string,
    readonly code: string | undefined,
    what: string,
  ) {
    super(`cannot write ${what} to ${path} (${reasonOf(code)})`);
  }
}

const REASONS: Record<string, string> = {
  EACCES: "permission denied",
  EPERM: "permission denied",
  ENOENT: "its folder does not exist",
  ENOTDIR: "a part of the path is a file, not a folder",
  EISDIR: "a folder is in the way",
  EEXIST: "a file is already there",
  ENOSPC: "no space left on the device",
  EDQUOT: "the disk quota is used up",
  EROFS: "the file system is read-only",
  EXDEV: "the temporary file is on another file system",
  ENAMETOOLONG: "the name is too long",
};

function reasonOf(code: string | undefined): string {
  return (code && REASONS[code]) ?? `the file system refused: ${code ?? "unknown error"}`;
}

/** A file being written: `write` as its bytes come, then `commit` puts it in place, or `abort` drops it. */
export interface PrivateFile {
  readonly path: string;
  write(chunk: Uint8Array | string): void;
  commit(): void;
  abort(): void;
}

/**
 * `bytes` random bytes as hex, from Web Crypto (global in Node and Bun alike): node:crypto would load Node's
 * stream machinery into every start of the server, which writes its files through here.
 */
const randomHex = (bytes: number) => Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("hex");

/** Starts writing `path` under a fresh temporary name beside it (see the module's comment). */
export function openPrivateFile(path: string, options: PrivateFileOptions = {}): PrivateFile {
  const what = options.what ?? "a file";
  const failed = (e: unknown) => new FileWriteError(path, (e as NodeJS.ErrnoException)?.code, what);
  const temp = join(dirname(path), `.${basename(path)}.${randomHex(8)}.tmp`);
  let fd: number | null;
  try {
    fd = openSync(temp, CREATE_NEW, options.mode ?? PRIVATE_FILE_MODE);
  } catch (e) {
    throw failed(e);
  }
  const drop = () => {
    if (fd !== null) closeSync(fd);
    fd = null;
    rmSync(temp, { force: true });
  };
  if (options.exactMode)
    try {
      fchmodSync(fd, options.mode ?? PRIVATE_FILE_MODE);
    } catch (e) {
      drop();
      throw failed(e);
    }
  return {
    path,
    write(chunk) {
      if (fd === null) throw new Error(`${path}: written after it was committed or dropped`);
      const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
      try {
        for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at);
      } catch (e) {
        drop();
        throw failed(e);
      }
    },
    commit() {
      if (fd === null) throw new Error(`${path}: committed after it was committed or dropped`);
      try {
        if (options.durable !== false) fsyncSync(fd);
        closeSync(fd);
        fd = null;
        if (options.replace === false) {
          // link() fails when anything is at the path, a link included, where rename() would replace it.
          linkSync(temp, path);
          rmSync(temp, { force: true });
        } else renameSync(temp, path);
      } catch (e) {
        drop();
        throw failed(e);
      }
    },
    abort: drop,
  };
}

/** Writes `data` to `path` whole, as openPrivateFile does; throws FileWriteError when it cannot. */
export function writePrivateFile(path: string, data: string | Uint8Array, options: PrivateFileOptions = {}): void {
  const file = openPrivateFile(path, options);
  file.write(data);
  file.commit();
}
