/** Test helpers for version submission: real .tar.gz files built with the project's archive writer. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { versionUpload } from "../../client";
import { type RawEntry, writeTarGz } from "../../scripts/lib/archive-writer";
import { validEntries } from "../../scripts/lib/samples";
import { DEMO_KEY, type RawResponse, type TestEmulator } from "./emulator";

export interface BundleDir {
  /** Writes a .tar.gz of these entries (a small valid bundle by default) and returns its path. */
  make(entries?: RawEntry[]): Promise<string>;
  cleanup(): void;
}

export function bundleDir(): BundleDir {
  const dir = mkdtempSync(join(tmpdir(), "ext-bundles-"));
  let n = 0;
  return {
    async make(entries = validEntries()) {
      const file = join(dir, `b${n++}.tar.gz`);
      await writeTarGz(entries, file);
      return file;
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * POST /extensions/:id/versions as a real multipart upload of a file on disk, raw: for forms the typed client
 * would not send (fields missing or extra). A well-formed submission goes through `uploadVersion`.
 */
export function submitVersion(
  emu: TestEmulator,
  extensionId: string,
  form: { version?: string; changelog?: string; bundle?: string; extra?: Record<string, string> },
  key?: string,
): Promise<RawResponse> {
  const body = new FormData();
  if (form.version !== undefined) body.append("version", form.version);
  if (form.changelog !== undefined) body.append("changelog", form.changelog);
  for (const [k, v] of Object.entries(form.extra ?? {})) body.append(k, v);
  if (form.bundle) body.append("bundle", Bun.file(form.bundle), "bundle.tar.gz");
  return emu.rawRequest("POST", `/developer/v1/extensions/${extensionId}/versions`, { body, key: key ?? DEMO_KEY });
}

/**
 * POST /extensions/:id/versions through the typed client, as the CLI uploads: a well-formed submission of the
 * bundle file at `bundle`. Malformed forms (fields missing or extra) go through `submitVersion`.
 */
export function uploadVersion(
  emu: TestEmulator,
  extensionId: string,
  form: { version: string; changelog?: string; bundle: string },
  key?: string,
) {
  return (key ? emu.clientFor(key) : emu.client).POST("/developer/v1/extensions/{id}/versions", {
    params: { path: { id: extensionId } },
    ...versionUpload({
      version: form.version,
      ...(form.changelog !== undefined ? { changelog: form.changelog } : {}),
      bundle: Bun.file(form.bundle),
    }),
  });
}

export async function createExtension(emu: TestEmulator, name = "Sound Board", key?: string): Promise<string> {
  const res = await (key ? emu.clientFor(key) : emu.client).POST("/developer/v1/extensions", { body: { name } });
  if (res.response.status !== 201 || !res.data)
    throw new Error(`create failed: ${res.response.status} ${JSON.stringify(res.error)}`);
  return res.data.extension.id;
}
