/**
 * The Bun helper's `deploy(folder, …)`: the folder packed as `ext deploy` packs it (src/bundles/pack.ts: the
 * default exclusions and `.extignore`), uploaded through the typed client. The server inspects the upload
 * with the same inspector `ext deploy` runs locally, so a refusal lists the same problems (422 bundle_invalid).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { DeployedVersion, DeployOptions } from "../client/emulator";
import { submittedVersion } from "../client/emulator-methods";
import { type ApiClient, unwrap, versionUpload } from "../client/index";
import { packDirectory } from "./bundles/pack";
import { secretWarnings } from "./bundles/secret-warnings";

export async function deployFolder(
  client: ApiClient,
  folder: string,
  options: DeployOptions,
): Promise<DeployedVersion> {
  const work = mkdtempSync(join(tmpdir(), "ext-deploy-"));
  try {
    const archive = join(work, "bundle.tar.gz");
    const packed = await packDirectory(resolve(folder), archive);
    const submitted = unwrap(
      await client.POST("/developer/v1/extensions/{id}/versions", {
        params: { path: { id: options.extensionId } },
        ...versionUpload({ version: options.version, changelog: options.changelog, bundle: Bun.file(archive) }),
      }),
    );
    return await submittedVersion(client, options.extensionId, submitted.version.id, [
      ...secretWarnings(packed),
      ...(submitted.warnings ?? []),
    ]);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
