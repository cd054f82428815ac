/**
 * Packs a compiled output directory into a deterministic .tar.gz: the same tree always gives the same bytes
 * (entries sorted, fixed mtime, uid/gid 0, no user/group names, modes normalised), so a bundle's SHA-256
 * identifies its content. Streamed file by file: the archive is never held in memory. What goes in is decided
 * by pack-rules.ts (default exclusions and `.extignore`).
 */
import { createHash } from "node:crypto";
import { closeSync, createReadStream, lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGzip } from "node:zlib";
import tar from "tar-stream";
import { privateFileSink } from "../../common/files/private-file-sink";
import { openRegularFile, ReadRefusal } from "../../common/files/safe-read";
import { GzipMeter } from "../../common/streams/gzip-meter";
import { printable } from "../../common/text/printable";
import { EXTIGNORE, loadPackRules, PackRulesError } from "./pack-rules";

/** 2000-01-01T00:00:00Z: a constant, not the clock — archive timestamps must not depend on when we pack. */
const FIXED_MTIME = new Date(946_684_800_000);
const FILE_MODE = 0o644;
const DIR_MODE = 0o755;

export interface PackedFile {
  /** Archive path, "/"-separated. */
  path: string;
  bytes: number;
}

export interface ExcludedPath {
  /** Relative path; a directory ends in "/" (its content is not listed). */
  path: string;
  /** The rule that left it out, e.g. `default (dotfile): .*` or `.extignore line 3: *.map`. */
  rule: string;
}

export interface PackResult {
  /** Bytes of the .tar.gz written. */
  bytes: number;
  /** SHA-256 of the .tar.gz, hex. */
  sha256: string;
  /** Number of tar entries (directories included). */
  entries: number;
  /** The files packed, in archive order (directories are implied by the paths). */
  files: PackedFile[];
  /** What the rules left out (pack-rules.ts), sorted. */
  excluded: ExcludedPath[];
  /** Each component folder present (layer/, editor/, interactive/) and its content gzipped, measured as the inspector does. */
  components: { path: string; gzipBytes: number }[];
  /** Files that look like secrets: left out (the usual case) or re-included by `.extignore`. */
  secretLike: { excluded: string[]; included: string[] };
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
  /** The file's identity when listed: what is opened later must be this file still (not a link swapped in). */
  dev: number;
  ino: number;
}

export interface PackPlan {
  tree: TreeEntry[];
  excluded: ExcludedPath[];
  secretLike: PackResult["secretLike"];
}

/** Plain code-unit order, independent of locale. */
const byPath =
  <T>(key: (x: T) => string) =>
  (a: T, b: T) =>
    key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;

/**
 * Every file and directory under `root` that the rules keep, sorted by archive path, and what they leave
 * out. An excluded directory is not entered. A symbolic link is never followed: excluded, it is listed like
 * any other path; kept, it is refused (the platform refuses links), as are special files.
 */
export function planPack(root: string): PackPlan {
  const rules = loadPackRules(root);
  const tree: TreeEntry[] = [];
  const excluded: ExcludedPath[] = [];
  const secretLike: PackResult["secretLike"] = { excluded: [], included: [] };
  const walk = (dir: string, prefix: string) => {
    for (const name of readdirSync(dir)) {
      const absolute = join(dir, name);
      const st = lstatSync(absolute);
      const rel = prefix + name + (st.isDirectory() ? "/" : "");
      const rule = rules.exclusion(rel);
      const secret = !st.isDirectory() && rules.looksSecret(rel);
      if (secret) (rule ? secretLike.excluded : secretLike.included).push(rel);
      if (rule) {
        // git reads a .gitignore in every folder, so one here is an easy mistake: say it had no effect.
        const nested =
          name === EXTIGNORE && prefix !== ""
            ? ` (only the ${EXTIGNORE} at the root is read: its rules were not applied)`
            : "";
        excluded.push({ path: rel, rule: rule + nested });
        continue;
      }
      if (st.isDirectory()) {
        tree.push({ name: rel, absolute, type: "directory", size: 0, dev: st.dev, ino: st.ino });
        walk(absolute, rel);
      } else if (st.isFile()) {
        tree.push({ name: rel, absolute, type: "file", size: st.size, dev: st.dev, ino: st.ino });
      } else {
        const what = st.isSymbolicLink() ? "symbolic link (links are never followed)" : "special file";
        throw new PackError(
          `${printable(rel)}: only regular files and directories can be packed (found a ${what}); replace it with the file, or leave it out in ${EXTIGNORE}`,
        );
      }
    }
  };
  walk(root, "");
  secretLike.excluded.sort();
  secretLike.included.sort();
  return { tree: tree.sort(byPath((e) => e.name)), excluded: excluded.sort(byPath((e) => e.path)), secretLike };
}

const COMPONENT_FOLDERS = ["layer", "editor", "interactive"] as const;

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

/**
 * The file the plan listed, opened without following a link and checked to be that same file (device, inode
 * and size as listed): a link or another file swapped in after the listing is refused, never packed. The
 * bytes are then read through this descriptor only.
 */
function openListed(e: TreeEntry): number {
  let opened: ReturnType<typeof openRegularFile>;
  try {
    opened = openRegularFile(e.absolute);
  } catch (err) {
    if (err instanceof ReadRefusal) throw changed(e, err.message);
    throw err;
  }
  const { fd, stat } = opened;
  if (stat.dev !== e.dev || stat.ino !== e.ino || stat.size !== e.size) {
    closeSync(fd);
    throw changed(
      e,
      stat.size !== e.size ? `its size went from ${e.size} to ${stat.size} bytes` : "another file is there now",
    );
  }
  return fd;
}

const changed = (e: TreeEntry, what: string) =>
  new PackError(
    `${printable(e.name)} changed while it was being packed (${what}); nothing was uploaded: run the deploy again`,
  );

/** Streams one file into the pack, honouring back-pressure (tar-stream entries are streamx writables). */
async function writeEntry(
  pack: tar.Pack,
  header: Parameters<tar.Pack["entry"]>[0],
  entry: TreeEntry,
  meter?: GzipMeter,
): Promise<void> {
  const fd = openListed(entry);
  let finish!: (err?: Error | null) => void;
  const done = new Promise<void>((resolve, reject) => (finish = (err) => (err ? reject(err) : resolve())));
  const sink = pack.entry(header, (err) => finish(err));
  if (entry.size === 0) closeSync(fd);
  const bytes = entry.size === 0 ? [] : createReadStream("", { fd, start: 0, end: entry.size - 1 });
  for await (const chunk of bytes) {
    if (meter) await meter.write(chunk as Buffer);
    if (!sink.write(chunk as Buffer))
      await new Promise<void>((resolve) => sink.once("drain", () => resolve(undefined)));
  }
  (sink as unknown as { end(): void }).end();
  await done;
}

export async function packDirectory(dir: string, outFile: string): Promise<PackResult> {
  return writePack(checkedPlan(dir), outFile);
}

function checkedPlan(dir: string): PackPlan {
  try {
    if (!lstatSync(dir).isDirectory()) throw new PackError(`${dir} is not a directory`);
    return planPack(dir);
  } catch (e) {
    if (e instanceof PackError) throw e;
    if (e instanceof PackRulesError) throw new PackError(e.message);
    throw new PackError(`cannot read ${dir}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

/** Writes the archive of a plan (planPack) to `outFile`; each file must still be the one the plan listed. */
export async function writePack(plan: PackPlan, outFile: string): Promise<PackResult> {
  const { tree } = plan;
  const pack = tar.pack();
  const meter = measuring();
  const written = pipeline(
    pack,
    createGzip({ level: 9 }),
    meter.stream,
    privateFileSink(outFile, { what: "the bundle" }),
  );
  const common = { mtime: FIXED_MTIME, uid: 0, gid: 0, uname: "", gname: "" };
  const components = new Map<string, GzipMeter>();
  try {
    for (const e of tree) {
      if (e.type === "directory") {
        await new Promise<void>((resolve, reject) =>
          pack.entry({ ...common, name: e.name, type: "directory", mode: DIR_MODE }, (err) =>
            err ? reject(err) : resolve(),
          ),
        );
        continue;
      }
      const top = e.name.includes("/") ? e.name.slice(0, e.name.indexOf("/")) : "";
      let counter: GzipMeter | undefined;
      if ((COMPONENT_FOLDERS as readonly string[]).includes(top)) {
        counter = components.get(top) ?? new GzipMeter();
        components.set(top, counter);
      }
      await writeEntry(pack, { ...common, name: e.name, type: "file", mode: FILE_MODE, size: e.size }, e, counter);
    }
    pack.finalize();
  } catch (e) {
    for (const counter of components.values()) counter.destroy();
    pack.destroy(e as Error);
    await written.catch(() => undefined);
    throw e;
  }
  await written;
  const sizes = [];
  for (const name of COMPONENT_FOLDERS) {
    const counter = components.get(name);
    if (counter) sizes.push({ path: `${name}/`, gzipBytes: await counter.finish() });
  }
  return {
    ...meter.result(),
    entries: tree.length,
    files: tree.filter((e) => e.type === "file").map((e) => ({ path: e.name, bytes: e.size })),
    excluded: plan.excluded,
    components: sizes,
    secretLike: plan.secretLike,
  };
}
