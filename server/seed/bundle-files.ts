/**
 * The bundle files a load writes: a version's exported bundle, read from its export directory and checked
 * against the size and digest `fixture.json` records, or the placeholder bundle a fixture version stands on
 * (server/seed/placeholder-bundle.ts). Both are written into the blob store the one way, here, before the row that
 * names them; the files of a load that fails are removed again (`discard`).
 *
 * An export directory holds `fixture.json` and, in `bundles/`, exactly the bundle files it names: anything
 * else there (a file it does not name, another kind of entry) refuses the load, from a directory and from an
 * archive alike, so every loader gives one answer (docs/behaviour.md, "Control plane").
 */
import { type Dirent, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ReadRefusal, readRegularFile } from "../../common/files/safe-read";
import type { Clock } from "../base/clock";
import { sha256Hex } from "../base/crypto";
import { newId } from "../base/ids";
import type { BlobStore } from "../blobs/blob-store";
import type { StoredBundle } from "../resources/versions/writer";
import { FixtureError } from "./fixture-error";
import type { Fixture, FixtureVersion } from "./model";
import { placeholderBundle } from "./placeholder-bundle";

/**
 * Where an export's bundles are: `<dir>/bundles/<sha256>.tar.gz`, named `label` in messages (the directory
 * given, or "uploaded archive"). Null for a fixture given as JSON alone.
 */
export type BundleDir = { dir: string; label: string } | null;

export const BUNDLES_FOLDER = "bundles";
export const bundleFileName = (sha256: string) => `${BUNDLES_FOLDER}/${sha256}.tar.gz`;

const problem = (path: string, message: string) => new FixtureError([{ path, message }]);

/** The digests of every bundle the fixture's versions name. */
function namedBundles(fixture: Fixture): Set<string> {
  const named = new Set<string>();
  for (const acc of fixture.accounts)
    for (const x of acc.extensions ?? []) for (const v of x.versions ?? []) if (v.bundle) named.add(v.bundle.sha256);
  return named;
}

/**
 * Refuses an export directory whose `bundles/` holds anything its fixture does not name: an unreferenced
 * bundle, a file of another name, a folder or a link. Nothing is read but the folder's listing.
 */
export function checkBundleFiles(bundleDir: NonNullable<BundleDir>, fixture: Fixture): void {
  let entries: Dirent[];
  try {
    entries = readdirSync(join(bundleDir.dir, BUNDLES_FOLDER), { withFileTypes: true });
  } catch {
    // No bundles folder (an export of a state without versions); a named bundle is then refused as missing.
    return;
  }
  const named = namedBundles(fixture);
  const stray = entries
    .map((e) => e.name)
    .filter((name) => {
      const digest = /^([0-9a-f]{64})\.tar\.gz$/.exec(name)?.[1];
      return digest === undefined || !named.has(digest);
    })
    .sort();
  if (stray.length === 0) return;
  const first = join(bundleDir.label, BUNDLES_FOLDER, stray[0]!.slice(0, 200));
  const more = stray.length > 1 ? ` (and ${stray.length - 1} more)` : "";
  throw problem(
    BUNDLES_FOLDER,
    `${first}${more} is not a bundle fixture.json names: an export's ${BUNDLES_FOLDER}/ holds exactly the bundles of its versions; remove it`,
  );
}

/** The bundle files of one load. */
export function createBundleFiles(deps: { clock: Clock; blobs: BlobStore }, bundleDir: BundleDir) {
  const { clock, blobs } = deps;
  /** Blob ids written by this load: removed again if it fails. */
  const written: string[] = [];

  function writeBlob(bytes: Buffer, sha256: string): StoredBundle {
    const blobId = newId("blob", clock.nowMs());
    const temp = blobs.tempPath("seed");
    writeFileSync(temp, bytes, { mode: 0o600 });
    blobs.commit(temp, blobId);
    written.push(blobId);
    return { blobId, bytes: bytes.length, sha256 };
  }

  /** The exported bundle file of a version, checked against its recorded size and digest. */
  function exported(bundle: NonNullable<FixtureVersion["bundle"]>, at: string): StoredBundle {
    const { sha256, sizeBytes } = bundle;
    if (bundleDir === null)
      throw problem(
        `${at}.bundle`,
        "the bundle is not in a JSON fixture: load the export's directory (ext seed DIR) or its archive",
      );
    const file = join(bundleDir.label, bundleFileName(sha256));
    let bytes: Buffer;
    try {
      // No link followed, a regular file only, and never more than the recorded size is read.
      bytes = readRegularFile(join(bundleDir.dir, bundleFileName(sha256)), sizeBytes);
    } catch (e) {
      if (e instanceof ReadRefusal && e.reason === "too-large")
        throw problem(`${at}.bundle`, `${file} does not match its recorded digest (larger than ${sizeBytes} bytes)`);
      throw problem(`${at}.bundle`, `${file} is missing or unreadable`);
    }
    const digest = sha256Hex(bytes);
    if (bytes.length !== sizeBytes || digest !== sha256)
      throw problem(
        `${at}.bundle`,
        `${file} does not match its recorded digest (${bytes.length} bytes with SHA-256 ${digest}; recorded ${sizeBytes} bytes with SHA-256 ${sha256})`,
      );
    return writeBlob(bytes, sha256);
  }

  return {
    /** The bundle a fixture version stands on: its exported file, or a placeholder holding only its manifest. */
    forVersion(v: FixtureVersion, at: string): StoredBundle {
      if (v.bundle) return exported(v.bundle, at);
      const placeholder = placeholderBundle(v.version);
      return writeBlob(placeholder.bytes, placeholder.sha256);
    },
    /** After a failed load: the files its versions would have used. */
    discard(): void {
      for (const blobId of written.splice(0)) blobs.delete(blobId);
    },
  };
}

export type BundleFiles = ReturnType<typeof createBundleFiles>;
