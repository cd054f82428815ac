/**
 * An export on the wire and on disk. The archive (`GET /_emulator/export`, `POST /_emulator/seed` with
 * `application/x-tar`) is a plain tar of the export directory: `fixture.json` first, then
 * `bundles/<sha256>.tar.gz`, one per distinct bundle. Reading one is strict and bounded: only those names,
 * regular files, each bundle's bytes hashed as they arrive and refused unless they match the digest in their
 * name; a truncated archive is refused naming the entry it stopped in. Nothing is read into the emulator from
 * here: the entries land in a fresh directory, which the fixture loader then reads like any export directory.
 */
import {
  closeSync,
  copyFileSync,
  createReadStream,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import tar from "tar-stream";
import { openPrivateFile, writePrivateFile } from "../../common/files/private-file";
import { openRegularFile, ReadRefusal } from "../../common/files/safe-read";
import { FIXTURE_JSON_MAX_BYTES, JsonDepthMeter, readJsonFileBytes } from "../../common/json/json-reader";
import { randomBytes, sha256Hasher } from "../base/crypto";
import { readTar, TarRefusal } from "../bundles/tar-reader";
import { bundleFileName } from "../seed/bundle-files";
import { EXPORT_FIXTURE_FILE } from "../seed/resolve";
import { EXPORT_MEDIA_TYPE, type ExportedState } from "./document";

export { EXPORT_MEDIA_TYPE };
/** The largest fixture document an archive may carry: the cap of every fixture file. */
export const EXPORT_FIXTURE_MAX_BYTES = FIXTURE_JSON_MAX_BYTES;
/** The largest bundle entry (far above the 50 MB bundle cap and the hard override). */
export const EXPORT_BUNDLE_MAX_BYTES = 512 * 1024 * 1024;
/** At most this many entries: 25 extensions × 500 versions per account is far below for any sane state. */
export const EXPORT_ENTRIES_MAX = 100_000;

const BUNDLE_ENTRY = /^bundles\/([0-9a-f]{64})\.tar\.gz$/;

export class ExportArchiveError extends Error {
  override name = "ExportArchiveError";
}

const json = (state: ExportedState) => Buffer.from(`${JSON.stringify(state.document, null, 2)}\n`, "utf8");

/**
 * Hard links to the bundle files an export names, taken at once (synchronously, with the document): a
 * version deleted while the archive streams cannot cut it short. Blobs are never rewritten, only removed,
 * so a link is as good as a copy.
 */
export function pinBundles(state: ExportedState, pathOf: (blobId: string) => string, dir: string): string[] {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return [...state.bundles].map(([sha256, blobId]) => {
    const pinned = join(dir, `${sha256}.tar.gz`);
    try {
      linkSync(pathOf(blobId), pinned);
    } catch {
      copyFileSync(pathOf(blobId), pinned);
    }
    return pinned;
  });
}

/** The archive's bytes, streamed: `fixture.json`, then each pinned bundle file. */
export function exportArchive(state: ExportedState, pinned: string[]): AsyncGenerator<Uint8Array> {
  return archiveOf(json(state), pinned);
}

/**
 * An export directory (`ext seed DIR --target`) as the archive `POST /_emulator/seed` takes: every file of its
 * `bundles/`, none left out (the server refuses what an export does not hold, as a directory loader does).
 * Its files are read as the JSON reader reads them: no link followed, regular files only, fixture.json within
 * its caps.
 */
export function directoryArchive(dir: string): AsyncGenerator<Uint8Array> {
  const bundleDir = join(dir, "bundles");
  let names: string[] = [];
  try {
    names = readdirSync(bundleDir);
  } catch {
    // No bundles folder: an export of a state without versions.
  }
  const fixture = join(dir, EXPORT_FIXTURE_FILE);
  let bytes: Buffer;
  try {
    bytes = readJsonFileBytes(fixture, EXPORT_FIXTURE_MAX_BYTES);
  } catch (e) {
    if (e instanceof ReadRefusal) throw new ExportArchiveError(`${fixture} ${e.message}`);
    throw e;
  }
  return archiveOf(
    bytes,
    names.map((n) => join(bundleDir, n)),
  );
}

/**
 * A fixture alone as an export archive (`fixture.json`, no bundles): how `ext seed FILE --target` sends a
 * fixture larger than a JSON request body may be, so a large fixture loads through the control plane as it
 * loads everywhere else (the archive's fixture.json has the fixture files' cap).
 */
export function fixtureArchive(fixture: Buffer): AsyncGenerator<Uint8Array> {
  return archiveOf(fixture, []);
}

async function* archiveOf(fixture: Buffer, files: string[]): AsyncGenerator<Uint8Array> {
  const pack = tar.pack();
  const common = { mtime: new Date(0), uid: 0, gid: 0, uname: "", gname: "", mode: 0o644 };
  const pinned = files;
  const writing = (async () => {
    pack.entry({ ...common, name: EXPORT_FIXTURE_FILE }, fixture);
    for (const file of pinned) {
      // The checked file itself, never a link, and no more of it than its size said (a growing file is cut).
      let opened: ReturnType<typeof openRegularFile>;
      try {
        opened = openRegularFile(file);
      } catch (e) {
        if (e instanceof ReadRefusal) throw new ExportArchiveError(`${file} ${e.message}`);
        throw e;
      }
      const { fd, stat } = opened;
      const size = stat.size;
      await new Promise<void>((resolve, reject) => {
        const sink = pack.entry({ ...common, name: `bundles/${basename(file)}`, size }, (err) =>
          err ? reject(err) : resolve(),
        );
        (async () => {
          if (size === 0) closeSync(fd);
          const bytes = size === 0 ? [] : createReadStream("", { fd, start: 0, end: size - 1 });
          for await (const chunk of bytes) {
            if (!sink.write(chunk as Buffer)) await new Promise((r) => sink.once("drain", () => r(undefined)));
          }
          (sink as unknown as { end(): void }).end();
        })().catch(reject);
      });
    }
    pack.finalize();
  })();
  writing.catch((e) => pack.destroy(e));
  for await (const chunk of pack) yield chunk as Uint8Array;
  await writing;
}

/** Writes the export directory (`fixture.json` + `bundles/`) into `dir`, which must be new and empty. */
export function writeExportFiles(state: ExportedState, pathOf: (blobId: string) => string, dir: string): void {
  mkdirSync(join(dir, "bundles"), { recursive: true, mode: 0o700 });
  writeNew(join(dir, EXPORT_FIXTURE_FILE), json(state));
  for (const [sha256, blobId] of state.bundles) copyFileSync(pathOf(blobId), join(dir, bundleFileName(sha256)));
}

function writeNew(path: string, bytes: Buffer): void {
  writePrivateFile(path, bytes, { replace: false, what: EXPORT_FIXTURE_FILE });
}

/**
 * Reads an export archive into `dir` (new and empty), checking every entry. `source` names the archive in
 * messages. Throws ExportArchiveError naming the entry at fault; the caller removes `dir` then.
 */
export async function readExportArchive(
  chunks: AsyncIterable<Uint8Array>,
  dir: string,
  source = "export archive",
): Promise<void> {
  mkdirSync(join(dir, "bundles"), { recursive: true, mode: 0o700 });
  let current = "(start)";
  let entries = 0;
  let sawFixture = false;
  // Each entry once: a second copy is refused by name, never left to the file system's EEXIST (whose text
  // names the server's own staging path).
  const seen = new Set<string>();
  const buffers = (async function* () {
    for await (const c of chunks) yield Buffer.from(c.buffer, c.byteOffset, c.byteLength);
  })();
  try {
    for await (const { entry, body } of readTar(buffers)) {
      current = entry.path;
      if (++entries > EXPORT_ENTRIES_MAX) throw new ExportArchiveError(`more than ${EXPORT_ENTRIES_MAX} entries`);
      if (entry.type === "directory" && entry.path.replace(/\/$/, "") === "bundles") continue;
      const bundle = BUNDLE_ENTRY.exec(entry.path);
      if (entry.type !== "file" || (entry.path !== EXPORT_FIXTURE_FILE && !bundle))
        throw new ExportArchiveError(
          `unexpected entry ${JSON.stringify(entry.path.slice(0, 200))}: an export holds ${EXPORT_FIXTURE_FILE} and bundles/<sha256>.tar.gz only`,
        );
      const max = bundle ? EXPORT_BUNDLE_MAX_BYTES : EXPORT_FIXTURE_MAX_BYTES;
      if (entry.size > max) throw new ExportArchiveError(`${entry.path} is larger than ${max} bytes`);
      if (seen.has(entry.path)) throw new ExportArchiveError(`${entry.path} appears twice`);
      seen.add(entry.path);
      sawFixture ||= !bundle;
      const hash = sha256Hasher();
      // fixture.json is refused as soon as it nests too deep, before the rest of it arrives.
      const meter = bundle ? null : new JsonDepthMeter();
      // The one writer of files: 0600, no link followed, in place only once whole.
      const file = openPrivateFile(join(dir, entry.path), { replace: false, what: entry.path });
      try {
        for await (const chunk of body) {
          meter?.push(chunk);
          hash.update(chunk);
          file.write(chunk);
        }
        file.commit();
      } catch (e) {
        file.abort();
        throw e;
      }
      const digest = hash.digest("hex");
      if (bundle && digest !== bundle[1])
        throw new ExportArchiveError(`${entry.path} does not match its digest (its bytes have SHA-256 ${digest})`);
    }
  } catch (e) {
    if (e instanceof ExportArchiveError) throw new ExportArchiveError(`${source}: ${e.message}`);
    if (e instanceof ReadRefusal) throw new ExportArchiveError(`${source}: ${EXPORT_FIXTURE_FILE} ${e.message}`);
    if (e instanceof TarRefusal) {
      const entry = current.slice(0, 200);
      // The tar reader's message may begin with the entry too: said once.
      const message = (e as Error).message;
      const why = message.startsWith(`${entry}: `) ? message.slice(entry.length + 2) : message;
      // Refused before its first entry: most likely no tar at all (another file, or an empty one).
      if (entries === 0) throw new ExportArchiveError(`${source} is not a tar archive of an export: ${why}`);
      throw new ExportArchiveError(`${source} is truncated or damaged in entry ${JSON.stringify(entry)}: ${why}`);
    }
    throw e;
  }
  if (!sawFixture) throw new ExportArchiveError(`${source} has no ${EXPORT_FIXTURE_FILE}`);
}

/**
 * Puts a finished export directory `fresh` in place of `dir`: a missing or empty `dir`, or an earlier export
 * (it holds fixture.json), is replaced whole; anything else is refused, so no unrelated folder is lost.
 */
export function replaceExportDir(fresh: string, dir: string): void {
  let existing: string[] | null = null;
  try {
    existing = readdirSync(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
  }
  if (existing && existing.length > 0 && !existing.includes(EXPORT_FIXTURE_FILE))
    throw new ExportArchiveError(`${dir} is not empty and holds no earlier export; choose an empty or new directory`);
  if (existing === null) {
    mkdirSync(dirname(dir), { recursive: true });
    renameSync(fresh, dir);
    return;
  }
  const old = `${dir}.old-${randomBytes(4).toString("hex")}`;
  renameSync(dir, old);
  renameSync(fresh, dir);
  rmSync(old, { recursive: true, force: true });
}

/** A fresh sibling of `dir` to build an export in before it replaces `dir`. */
export function stagingDirFor(dir: string): string {
  const staging = `${dir.replace(/\/+$/, "")}.tmp-${randomBytes(4).toString("hex")}`;
  mkdirSync(staging, { recursive: false, mode: 0o700 });
  return staging;
}

/**
 * A finished export that could not be put in place at `dir` (a folder another user planted there, one that
 * is not an export, a parent that cannot be written): the export is complete and kept at `keptAt`.
 */
export class ExportKeptElsewhere extends Error {
  override name = "ExportKeptElsewhere";
  constructor(
    readonly dir: string,
    readonly keptAt: string,
    readonly reason: string,
  ) {
    super(`could not put the export in place at ${dir} (${reason}); it is complete at ${keptAt}`);
  }
}

/** Why a folder could not be written or replaced, in words (never errno text). */
function placementFailure(e: unknown): string {
  if (e instanceof ExportArchiveError) return e.message;
  const code = (e as NodeJS.ErrnoException).code;
  if (code === "EACCES" || code === "EPERM") return "permission denied";
  if (code === "ENOTDIR") return "it, or a folder above it, is a file";
  if (code === "EXDEV") return "it is on another file system than the staging folder";
  return `the file system refused: ${code ?? "unknown error"}`;
}

/**
 * Writes an export directory at `dir` (built beside it, then put in its place: never half an export there).
 * The state is never lost to a `dir` that cannot be used: built in a private temporary folder when nothing
 * can be made beside `dir`, and kept where it was built when it cannot replace `dir` (ExportKeptElsewhere).
 */
export function writeExportDir(state: ExportedState, pathOf: (blobId: string) => string, dir: string): void {
  let staging: string;
  let reason: string | null = null;
  try {
    staging = stagingDirFor(dir);
  } catch (e) {
    reason = placementFailure(e);
    staging = mkdtempSync(join(tmpdir(), "ext-export-"));
  }
  try {
    writeExportFiles(state, pathOf, staging);
  } catch (e) {
    rmSync(staging, { recursive: true, force: true });
    throw e;
  }
  if (reason !== null) throw new ExportKeptElsewhere(dir, staging, reason);
  try {
    replaceExportDir(staging, dir);
  } catch (e) {
    throw new ExportKeptElsewhere(dir, staging, placementFailure(e));
  }
}
