/**
 * Packs a compiled output directory into a deterministic .tar.gz: the same tree always gives the same bytes
 * (entries sorted, fixed mtime, uid/gid 0, no user/group names, modes normalised), so a bundle's SHA-256
 * identifies its content. Streamed file by file: the archive is never held in memory.
 */
import { createHash } from "node:crypto";
import { createReadStream, createWriteStream, lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGzip } from "node:zlib";
import tar from "tar-stream";

/** 2000-01-01T00:00:00Z: a constant, not the clock — archive timestamps must not depend on when we pack. */
const FIXED_MTIME = new Date(946_684_800_000);
const FILE_MODE = 0o644;
const DIR_MODE = 0o755;

export interface PackResult {
  /** Bytes of the .tar.gz written. */
  bytes: number;
  /** SHA-256 of the .tar.gz, hex. */
  sha256: string;
  /** Number of tar entries (directories included). */
  entries: number;
}

export class PackError extends Error {
  override name = "PackError";
}

interface TreeEntry {
  /** Archive path, "/"-separated, directories ending in "/". */
  name: string;
  absolute: string;
  type: "file" | "directory";
  size: number;
}

/** Every file and directory under `root`, sorted by archive path. Links and special files are refused. */
export function listTree(root: string): TreeEntry[] {
  const out: TreeEntry[] = [];
  const walk = (dir: string, prefix: string) => {
    for (const name of readdirSync(dir)) {
      const absolute = join(dir, name);
      const rel = prefix + name;
      const st = lstatSync(absolute);
      if (st.isDirectory()) {
        out.push({ name: rel + "/", absolute, type: "directory", size: 0 });
        walk(absolute, rel + "/");
      } else if (st.isFile()) {
        out.push({ name: rel, absolute, type: "file", size: st.size });
      } else {
        // The platform refuses links and device files; failing here says so before an upload does.
        throw new PackError(`${rel}: only regular files and directories can be packed (found a ${st.isSymbolicLink() ? "symbolic link" : "special file"})`);
      }
    }
  };
  walk(root, "");
  // Plain code-unit order, independent of locale.
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Counts and hashes the bytes that pass through. */
function measuring() {
  const hash = createHash("sha256");
  let bytes = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      bytes += chunk.length;
      done(null, chunk);
    },
  });
  return { stream, result: () => ({ bytes, sha256: hash.digest("hex") }) };
}

/** Streams one file into the pack, honouring back-pressure (tar-stream entries are streamx writables). */
async function writeEntry(pack: tar.Pack, header: Parameters<tar.Pack["entry"]>[0], file: string): Promise<void> {
  let finish!: (err?: Error | null) => void;
  const done = new Promise<void>((resolve, reject) => (finish = (err) => (err ? reject(err) : resolve())));
  const sink = pack.entry(header, (err) => finish(err));
  for await (const chunk of createReadStream(file)) {
    if (!sink.write(chunk as Buffer)) await new Promise<void>((resolve) => sink.once("drain", () => resolve(undefined)));
  }
  (sink as unknown as { end(): void }).end();
  await done;
}

export async function packDirectory(dir: string, outFile: string): Promise<PackResult> {
  let tree: TreeEntry[];
  try {
    if (!lstatSync(dir).isDirectory()) throw new PackError(`${dir} is not a directory`);
    tree = listTree(dir);
  } catch (e) {
    if (e instanceof PackError) throw e;
    throw new PackError(`cannot read ${dir}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const pack = tar.pack();
  const meter = measuring();
  const written = pipeline(pack, createGzip({ level: 9 }), meter.stream, createWriteStream(outFile));
  const common = { mtime: FIXED_MTIME, uid: 0, gid: 0, uname: "", gname: "" };
  try {
    for (const e of tree) {
      if (e.type === "directory") {
        await new Promise<void>((resolve, reject) => pack.entry({ ...common, name: e.name, type: "directory", mode: DIR_MODE }, (err) => (err ? reject(err) : resolve())));
        continue;
      }
      await writeEntry(pack, { ...common, name: e.name, type: "file", mode: FILE_MODE, size: e.size }, e.absolute);
    }
    pack.finalize();
  } catch (e) {
    pack.destroy(e as Error);
    await written.catch(() => undefined);
    throw e;
  }
  await written;
  return { ...meter.result(), entries: tree.length };
}
