/**
 * A stored version's bundle as the dashboard shows it: the file tree with sizes, the manifest, the
 * inspection's warnings, and one file's bytes for the `<audio>` player. The archive was inspected when it
 * was submitted, but it is read again here with the same safety caps (READ_CAPS), never extracted.
 */
import { createReadStream } from "node:fs";
import { eq } from "drizzle-orm";
import type { BlobStore } from "../../blobs/blob-store";
import { audioFormatOfName } from "../../bundles/audio-formats";
import { READ_CAPS } from "../../bundles/bundle-limits";
import { MANIFEST_PATH, normaliseArchivePath } from "../../bundles/manifest";
import type { Db } from "../../db/database";
import { extensions, versions } from "../../db/schema";
import { errors } from "../../errors/catalog";
import { type BundleContents, LISTING_MAX, SOUND_MEDIA_TYPES } from "./admin-model";

/** The player serves sounds only, up to the platform's largest sound file. */
export const PLAYABLE_MAX_BYTES = 10 * 1024 * 1024;

/** Walks the archive's regular files; `visit` returns true to stop early. */
async function walk(
  path: string,
  visit: (name: string, size: number, body: AsyncIterable<Buffer>) => Promise<boolean>,
): Promise<void> {
  // Loaded on the first listing: not part of a cold start.
  const [{ createGunzip }, { default: tar }] = await Promise.all([import("node:zlib"), import("tar-stream")]);
  const extract = tar.extract();
  const input = createReadStream(path).pipe(createGunzip());
  input.on("error", (e) => extract.destroy(e));
  input.pipe(extract);
  let entries = 0;
  let total = 0;
  try {
    for await (const entry of extract) {
      const size = entry.header.size ?? 0;
      if (
        ++entries > READ_CAPS.maxEntries ||
        (total += size) > READ_CAPS.maxUncompressedBytes ||
        size > READ_CAPS.maxEntryBytes
      )
        break;
      if (entry.header.type !== "file") {
        entry.resume();
        continue;
      }
      if (await visit(normaliseArchivePath(entry.header.name), size, entry as AsyncIterable<Buffer>)) break;
      entry.resume();
    }
  } finally {
    input.destroy();
    extract.destroy();
  }
}

async function readCapped(body: AsyncIterable<Buffer>, max: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let n = 0;
  for await (const chunk of body) {
    n += chunk.length;
    if (n > max) throw new Error("over cap");
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

export function createBundleContents(deps: { db: Db; blobs: BlobStore }) {
  const { db, blobs } = deps;
  const find = (versionId: string) => {
    const row = db
      .select({ v: versions, accountId: extensions.accountId })
      .from(versions)
      .innerJoin(extensions, eq(extensions.id, versions.extensionId))
      .where(eq(versions.id, versionId))
      .get();
    if (!row) throw errors.versionNotFound(versionId);
    return row;
  };

  return {
    async list(versionId: string): Promise<BundleContents> {
      const { v, accountId } = find(versionId);
      const files: BundleContents["files"] = [];
      let truncated = false;
      let manifest: unknown = null;
      await walk(blobs.pathOf(v.bundleBlobId), async (path, size, body) => {
        if (files.length >= LISTING_MAX) truncated = true;
        else files.push({ path, size, audio: audioFormatOfName(path) });
        if (path === MANIFEST_PATH && size <= READ_CAPS.maxManifestBytes) {
          try {
            manifest = JSON.parse((await readCapped(body, READ_CAPS.maxManifestBytes)).toString("utf8"));
          } catch {
            manifest = null;
          }
        }
        return false;
      });
      files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
      return {
        versionId: v.id,
        extensionId: v.extensionId,
        accountId,
        version: v.version,
        status: v.status,
        bundleSizeBytes: v.bundleSizeBytes,
        bundleSha256: v.bundleSha256,
        soundCount: v.soundCount,
        warnings: JSON.parse(v.warnings) as string[],
        files,
        truncated,
        manifest,
      };
    },

    /**
     * One sound of the bundle, to play. Only audio files are served, with their audio type and `nosniff`,
     * so no file of an uploaded bundle can ever be rendered as a page on the dashboard's origin.
     */
    async sound(versionId: string, wanted: string): Promise<{ bytes: Buffer; contentType: string }> {
      const { v } = find(versionId);
      const path = normaliseArchivePath(wanted);
      const format = audioFormatOfName(path);
      if (!format) throw errors.bundleFileNotFound(versionId, wanted);
      let found: Buffer | null = null;
      await walk(blobs.pathOf(v.bundleBlobId), async (name, size, body) => {
        if (name !== path) return false;
        if (size > PLAYABLE_MAX_BYTES) throw errors.bundleFileTooLarge(path, PLAYABLE_MAX_BYTES);
        found = await readCapped(body, PLAYABLE_MAX_BYTES);
        return true;
      });
      if (!found) throw errors.bundleFileNotFound(versionId, wanted);
      return { bytes: found, contentType: SOUND_MEDIA_TYPES[format] };
    },
  };
}
