/**
 * Inspects an untrusted bundle archive (.tar.gz) without extracting it and without holding it in memory:
 * the bytes stream through gunzip into a strict tar reader (tar-reader.ts: it refuses whatever GNU tar and
 * Python's tarfile could read differently), and running counters stop the read as soon as a safety cap is
 * crossed (a gzip bomb costs at most READ_CAPS of work; problems, names and the manifest are capped too).
 * Every problem found is collected with the archive path it concerns, not just the first (up to the cap).
 * A pure function of (bytes, limits): the server runs it on an upload while the upload is still arriving
 * (inspectArchiveStream, fed by receiveUpload), the CLI on the archive file it is about to upload (inspectBundle).
 */
import { createReadStream, statSync } from "node:fs";
import type { Readable } from "node:stream";
import { createGunzip } from "node:zlib";
import { GzipMeter } from "../../common/streams/gzip-meter";
import type { ErrorDetail } from "../errors/api-error";
import { audioFormatOfName, SNIFF_BYTES } from "./audio-formats";
import { type BundleLimits, READ_CAPS } from "./bundle-limits";
import { checkManifest, type FileFacts, MANIFEST_PATH, type ManifestInput, normaliseArchivePath } from "./manifest";
import { ProblemList } from "./problem-list";
import { readTar, type TarEntry, TarRefusal } from "./tar-reader";

export interface InspectionResult {
  /** Empty when the bundle is valid. */
  problems: ErrorDetail[];
  /** Not errors (e.g. a sound over the warning threshold). */
  warnings: string[];
  /** Parsed manifest.json, or null when absent or unreadable. */
  manifest: unknown;
  soundCount: number;
}

export const ARCHIVE = "(archive)";

/** Watches a walk (the differential test compares what the inspector read with what tar tools list). */
export interface InspectObserver {
  /** Each entry as the reader applied it, in archive order. */
  entry?(entry: TarEntry): void;
  /** The archive was read to its end-of-archive marker (not stopped by a refusal or a cap). */
  end?(): void;
}

const COMPONENTS = {
  layer: "bundle_layer_gzip_bytes",
  editor: "bundle_editor_gzip_bytes",
  interactive: "bundle_interactive_gzip_bytes",
} as const;
type Component = keyof typeof COMPONENTS;

const mb = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MB`;

const NO_BYTES = new Uint8Array(0);

/** Why an entry name is unsafe, or null. Names are checked raw, before any normalisation. */
function unsafeName(name: string): string | null {
  if (name.startsWith("/") || name.startsWith("\\") || /^[A-Za-z]:/.test(name)) return "absolute path";
  if (name.split(/[\\/]/).includes("..")) return 'path contains ".."';
  // Read as a separator on Windows and as a character on Linux: the file would land somewhere else.
  if (name.includes("\\")) return "backslash in path (a folder separator on Windows, part of the name on Linux): use /";
  if (name.includes("\0")) return "NUL character in path";
  // A newline or escape in a name makes listings lie (and terminals misbehave); so do C1 controls (U+009B
  // is an escape to some terminals) and bidirectional overrides ("a\u202Egpj.js" shows as "ajs.jpg").
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses.
  if (/[\x01-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]/.test(name)) return "control character in path";
  return null;
}

const LINK_TYPES: Record<string, string> = {
  symlink: "symbolic link",
  link: "hard link",
  "character-device": "character device",
  "block-device": "block device",
  fifo: "FIFO",
};

/**
 * Reads at most this much of the file at a time: larger reads gain little time and cost resident memory.
 */
const FILE_READ_BYTES = 256 * 1024;

/**
 * gunzip's output chunk. Each chunk is one trip through the runtime's zlib work queue and the tar reader, so
 * zlib's 16 KB default costs most of the inspection's time in per-chunk overhead; larger chunks cost resident
 * memory instead (the server's upload bounds its garbage: server/resources/versions/upload.ts).
 */
const GUNZIP_CHUNK_BYTES = 128 * 1024;

/** Inspects an archive file (the CLI, before it uploads; tests). */
export async function inspectBundle(
  file: string,
  limits: BundleLimits,
  observer: InspectObserver = {},
): Promise<InspectionResult> {
  const result = await inspectArchiveStream(
    createReadStream(file, { highWaterMark: FILE_READ_BYTES }),
    limits,
    observer,
  );
  return withArchiveSize(result, statSync(file).size, limits);
}

/**
 * Adds the archive's total size to an inspection. Kept apart from the walk because the size is only known
 * once every byte has arrived, and the walk may stop earlier (a fatal problem); reported first, as the
 * plainest of the problems.
 */
export function withArchiveSize(
  result: InspectionResult,
  archiveBytes: number,
  limits: BundleLimits,
): InspectionResult {
  if (archiveBytes <= limits.bundle_total_bytes) return result;
  const tooBig: ErrorDetail = {
    path: ARCHIVE,
    message: `the archive is ${mb(archiveBytes)}; the limit is ${mb(limits.bundle_total_bytes)}`,
    limit: "bundle_total_bytes",
    max: limits.bundle_total_bytes,
    current: archiveBytes,
  };
  return { ...result, problems: [tooBig, ...result.problems] };
}

/**
 * What the walk does with `source` when a fatal problem stops it early: destroy it (a writer feeding it must
 * check `destroyed`), or only stop reading it, for a source that also feeds someone else (the upload's temp
 * file reads the same part stream, and its other reader's backpressure still applies while the walk runs).
 */
export type SourceRelease = "destroy" | "detach";

/**
 * Inspects an archive as its bytes arrive from `source` (all but its total size: see withArchiveSize). Reads
 * `source` to its end unless a fatal problem stops the walk (see SourceRelease). A source that fails is a
 * truncated archive: it rejects only on a bug.
 */
export async function inspectArchiveStream(
  source: Readable,
  limits: BundleLimits,
  observer: InspectObserver = {},
  release: SourceRelease = "destroy",
): Promise<InspectionResult> {
  const magic: number[] = [];
  const result = await walkArchive(source, limits, observer, release, (c) => {
    for (let i = 0; magic.length < 2 && i < c.length; i++) magic.push(c[i]!);
  });
  if (magic[0] !== 0x1f || magic[1] !== 0x8b) {
    // Whatever gunzip made of it, the one thing worth saying is that it is not gzip.
    return {
      problems: [{ path: ARCHIVE, message: "not a gzip file: the bundle must be a .tar.gz archive" }],
      warnings: [],
      manifest: null,
      soundCount: 0,
    };
  }
  return result;
}

/** Why the walk stopped early: the archive cannot be read further (or must not be). */
class Stop extends Error {
  /** `detail` null: the problem list already says why (its cap). */
  constructor(readonly detail: ErrorDetail | null) {
    super(detail?.message ?? "stopped");
  }
}

/** gunzip's output, counted: the bomb caps are checked on every chunk. */
async function* uncompressed(gunzip: AsyncIterable<Buffer>, compressedIn: () => number): AsyncGenerator<Buffer> {
  let out = 0;
  try {
    for await (const chunk of gunzip) {
      out += chunk.length;
      if (out > READ_CAPS.maxUncompressedBytes)
        throw new Stop({
          path: ARCHIVE,
          message: `uncompressed content exceeds ${mb(READ_CAPS.maxUncompressedBytes)} (gzip bomb?); inspection stopped`,
        });
      if (out > READ_CAPS.ratioFloorBytes && out / Math.max(compressedIn(), 1) > READ_CAPS.maxRatio) {
        throw new Stop({
          path: ARCHIVE,
          message: `compression ratio above ${READ_CAPS.maxRatio}:1 (gzip bomb?); inspection stopped`,
        });
      }
      yield chunk;
    }
  } catch (e) {
    throw e instanceof Stop ? e : new Stop({ path: ARCHIVE, message: "corrupt or truncated gzip data" });
  }
}

/**
 * Files that extraction would not leave as the file inspected: one also given as a directory (GNU tar
 * replaces the file with the directory, tarfile fails), or one with entries under it (neither tool can
 * create them). Sorting with "/" read as the lowest character puts every name under `f/` right after `f`.
 */
export function fileDirectoryClashes(files: Iterable<string>, directories: readonly string[]): ErrorDetail[] {
  const key = (name: string) => name.replaceAll("/", "\0");
  const names = [
    ...[...files].map((name) => ({ name, file: true })),
    ...directories.map((name) => ({ name, file: false })),
  ]
    .map((e) => ({ ...e, key: key(e.name) }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : Number(b.file) - Number(a.file)));
  const clashes: ErrorDetail[] = [];
  for (let i = 0; i < names.length; i++) {
    const { name, file, key: k } = names[i]!;
    if (!file) continue;
    const next = names[i + 1];
    if (next && next.key === k)
      clashes.push({ path: name, message: `${name}: a file, and also a directory in the archive` });
    else if (next?.key.startsWith(`${k}\0`))
      clashes.push({ path: name, message: `${name}: a file, and also the folder of ${next.name}` });
  }
  return clashes;
}

async function walkArchive(
  source: Readable,
  limits: BundleLimits,
  observer: InspectObserver,
  release: SourceRelease,
  onBytes: (chunk: Buffer) => void,
): Promise<InspectionResult> {
  const problems = new ProblemList(READ_CAPS.maxProblems);
  const warnings: string[] = [];
  const gunzip = createGunzip({ chunkSize: GUNZIP_CHUNK_BYTES });
  let compressedIn = 0;
  const onData = (c: Buffer) => {
    compressedIn += c.length;
    onBytes(c);
  };
  source.on("data", onData);
  source.on("error", (e) => gunzip.destroy(e));
  source.pipe(gunzip);

  const files = new Map<string, FileFacts>();
  /** Resolved names of the directory entries, for the file/directory clash check (bounded by the names cap). */
  const directories: string[] = [];
  const meters = new Map<Component, GzipMeter>();
  let manifest: ManifestInput = null;
  let assetBytes = 0;
  let entries = 0;
  let pathBytes = 0;

  try {
    for await (const { entry, body } of readTar(uncompressed(gunzip, () => compressedIn))) {
      if (++entries > READ_CAPS.maxEntries)
        throw new Stop({ path: ARCHIVE, message: `more than ${READ_CAPS.maxEntries} entries; inspection stopped` });
      observer.entry?.(entry);
      const { path: raw, type, size } = entry;
      pathBytes += Buffer.byteLength(raw);
      if (pathBytes > READ_CAPS.maxPathBytesTotal)
        throw new Stop({
          path: ARCHIVE,
          message: `the entry names total more than ${mb(READ_CAPS.maxPathBytesTotal)}; inspection stopped`,
        });
      const unsafe = unsafeName(raw);
      if (unsafe) problems.push({ path: raw, message: `${raw}: ${unsafe}` });
      if (LINK_TYPES[type])
        problems.push({ path: raw, message: `${raw}: ${LINK_TYPES[type]} entries are not allowed` });
      else if (type !== "file" && type !== "directory")
        problems.push({ path: raw, message: `${raw}: unsupported entry type ${type}` });

      const name = normaliseArchivePath(raw);
      const regular = type === "file" && !unsafe;
      if (type === "directory" && !unsafe && name !== "") directories.push(name);
      if (regular && files.has(name)) problems.push({ path: name, message: `${name}: duplicate entry` });
      if (regular && size > READ_CAPS.maxEntryBytes)
        problems.push({
          path: name,
          message: `${name}: ${mb(size)} is over the per-file cap of ${mb(READ_CAPS.maxEntryBytes)}`,
        });

      const top = name.includes("/") ? name.slice(0, name.indexOf("/")) : null;
      const component = regular && top && top in COMPONENTS ? (top as Component) : null;
      const isManifest = regular && name === MANIFEST_PATH;
      const keepManifest = isManifest && size <= READ_CAPS.maxManifestBytes;
      if (isManifest && !keepManifest)
        problems.push({ path: name, message: `${name}: larger than ${mb(READ_CAPS.maxManifestBytes)}` });
      if (regular && top === "assets") assetBytes += size;
      let meter: GzipMeter | undefined;
      if (component) {
        meter = meters.get(component) ?? new GzipMeter();
        meters.set(component, meter);
      }
      // Only a file that could be a sound needs its first bytes (format sniffing); the rest keep none.
      const sniff = regular && audioFormatOfName(name) !== null;
      const manifestChunks: Buffer[] = [];
      let head = NO_BYTES;
      for await (const chunk of body) {
        if (!regular) continue;
        if (sniff && head.length < SNIFF_BYTES)
          head = Buffer.concat([head, chunk.subarray(0, SNIFF_BYTES - head.length)]);
        if (keepManifest) manifestChunks.push(chunk);
        if (meter) await meter.write(chunk);
      }
      if (regular) files.set(name, { size, head });
      if (keepManifest) manifest = Buffer.concat(manifestChunks);
      else if (isManifest && manifest === null) manifest = "reported";
      if (type === "directory" && !unsafe && name === MANIFEST_PATH && manifest === null) {
        problems.push({
          path: MANIFEST_PATH,
          message: "manifest.json is a directory in the archive; it must be a file",
        });
        manifest = "reported";
      }
      if (problems.full) {
        problems.stopped();
        throw new Stop(null);
      }
    }
    observer.end?.();
  } catch (e) {
    for (const m of meters.values()) m.destroy();
    if (release === "destroy") source.destroy();
    else {
      // Unpiping releases the source from gunzip's backpressure; its other reader carries on alone.
      source.off("data", onData);
      source.unpipe(gunzip);
    }
    gunzip.destroy();
    if (!(e instanceof Stop) && !(e instanceof TarRefusal)) throw e;
    const fatal = e instanceof TarRefusal ? { path: e.path, message: e.message } : e.detail;
    return { problems: fatal ? [...problems.list, fatal] : problems.list, warnings, manifest: null, soundCount: 0 };
  }

  for (const problem of fileDirectoryClashes(files.keys(), directories)) problems.push(problem);
  for (const [component, meter] of meters) {
    const gzipped = await meter.finish();
    const key = COMPONENTS[component];
    if (gzipped > limits[key]) {
      problems.push({
        path: `${component}/`,
        message: `${component}/ is ${mb(gzipped)} gzipped; the limit is ${mb(limits[key])}`,
        limit: key,
        max: limits[key],
        current: gzipped,
      });
    }
  }
  if (assetBytes > limits.static_assets_bytes) {
    problems.push({
      path: "assets/",
      message: `assets/ holds ${mb(assetBytes)}; the limit is ${mb(limits.static_assets_bytes)}`,
      limit: "static_assets_bytes",
      max: limits.static_assets_bytes,
      current: assetBytes,
    });
  }
  const checked = checkManifest(manifest, files, limits, problems, warnings);
  return { problems: problems.list, warnings, manifest: checked.manifest, soundCount: checked.soundCount };
}
