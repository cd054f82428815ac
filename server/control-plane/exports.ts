/**
 * State out and back in: `GET /export` (the whole state as an archive), the archive form of `POST /seed`
 * (staging below), and in-process snapshots (`/snapshots`).
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { Elysia } from "elysia";
import { ReadRefusal } from "../../common/files/safe-read";
import { FIXTURE_JSON_MAX_BYTES, readJsonFileText } from "../../common/json/json-reader";
import { errors } from "../errors/catalog";
import { EXPORT_MEDIA_TYPE, exportState } from "../exports/document";
import { apiAuth } from "../http/auth";
import { requestContextOf, temporaryOf } from "../http/request-context";
import type { Runtime } from "../runtime/runtime";
import { servedAs, t } from "../schema/schema";
import type { BundleDir } from "../seed/bundle-files";
import { EXPORT_FIXTURE_FILE } from "../seed/resolve";
import { FixtureError, parseFixtureJson } from "../seed/validate";
import { fixtureError, restoreSnapshot } from "./reset";
import { controlRoute, NoContent, noContent } from "./route-kit";

const ARCHIVE_LABEL = "uploaded archive";
const ARCHIVED_FIXTURE = `${EXPORT_FIXTURE_FILE} of the ${ARCHIVE_LABEL}`;

/**
 * The archive reader and writer (tar-stream and its streams), loaded by the first request that moves an
 * archive rather than by every start.
 */
const archiveModule = () => import("../exports/archive");

/**
 * Reads an uploaded export archive into a fresh folder under the blob store's tmp/, owned by the request
 * (removed before its answer is sent; swept at start if the process dies), and returns its fixture document
 * parsed, for the route to check (seedEmulator, naming ARCHIVED_FIXTURE). A refusal is the 422 envelope
 * naming the entry.
 */
export async function stageSeedArchive(runtime: Runtime, request: Request): Promise<unknown> {
  const dir = temporaryOf(request, runtime.blobs.tempPath("seed"));
  const context = requestContextOf(request);
  if (context) context.stagedExportDir = dir;
  if (!request.body) throw errors.exportInvalid(`the ${ARCHIVE_LABEL} is empty`);
  const { ExportArchiveError, readExportArchive } = await archiveModule();
  try {
    await readExportArchive(request.body, dir, `the ${ARCHIVE_LABEL}`);
    const text = readJsonFileText(join(dir, EXPORT_FIXTURE_FILE), FIXTURE_JSON_MAX_BYTES);
    return parseFixtureJson(text, ARCHIVED_FIXTURE);
  } catch (e) {
    if (e instanceof ExportArchiveError) throw errors.exportInvalid(e.message);
    if (e instanceof ReadRefusal) throw errors.exportInvalid(`${ARCHIVED_FIXTURE} ${e.message}`);
    if (e instanceof FixtureError) throw fixtureError(e, ARCHIVED_FIXTURE);
    throw e;
  }
}

/** What to name the fixture of this request in a refusal: an uploaded archive's fixture.json, or none. */
export function seedBodyFile(request: Request): string | undefined {
  return requestContextOf(request)?.stagedExportDir === undefined ? undefined : ARCHIVED_FIXTURE;
}

/** Where the archive of this request was staged (for the loader), or null for a JSON body. */
export function stagedBundleDir(request: Request): BundleDir {
  const dir = requestContextOf(request)?.stagedExportDir;
  return dir === undefined ? null : { dir, label: ARCHIVE_LABEL };
}

const ExportQuery = t.Object(
  {
    includeSecretValues: t.Optional(
      t.Boolean({ description: "true: write secret values in plain text in fixture.json (default: names only)" }),
    ),
  },
  { additionalProperties: false },
);

/** Any text: an id that names no snapshot, however long, is a 404 (its message quotes the first 80 characters). */
const SnapshotParams = t.Object({ id: t.String({ description: "Snapshot id (snap_…)" }) });

const SnapshotCreated = t.Object(
  { snapshot: t.Object({ id: t.String({ description: "snap_…" }) }, { additionalProperties: false }) },
  { additionalProperties: false },
);

export function exportRoutes(runtime: Runtime) {
  return new Elysia()
    .use(apiAuth)
    .get(
      "/export",
      async ({ query }) => {
        const { exportArchive, pinBundles } = await archiveModule();
        const includeSecretValues = query.includeSecretValues === true;
        if (includeSecretValues) runtime.logger.warn("exporting secret values in plain text, as asked");
        const state = exportState(runtime, { includeSecretValues });
        const pinDir = runtime.blobs.tempPath("export");
        const pinned = pinBundles(state, (id) => runtime.blobs.pathOf(id), pinDir);
        async function* body() {
          try {
            yield* exportArchive(state, pinned);
          } finally {
            rmSync(pinDir, { recursive: true, force: true });
          }
        }
        return new Response(body(), {
          headers: {
            "content-type": EXPORT_MEDIA_TYPE,
            "content-disposition": 'attachment; filename="ext-export.tar"',
          },
        });
      },
      controlRoute(
        "exportState",
        "The whole state as an archive (fixture.json + bundles), loadable by POST /seed and --seed",
        {
          description:
            "Accounts, keys (as hashes; plaintext only where a fixture gave one), members, extensions, versions with statuses and timestamps, install counters, overrides, limit requests, secret names and the clock; each distinct bundle once. Secret values only with includeSecretValues=true.",
          query: ExportQuery,
          answers: {
            200: t.String({
              description: "A tar of fixture.json (fixture format 2) and bundles/<sha256>.tar.gz",
              ...servedAs(EXPORT_MEDIA_TYPE),
            }),
          },
        },
      ),
    )
    .post(
      "/snapshots",
      ({ set }) => {
        set.status = 201;
        return { snapshot: { id: runtime.snapshots.take() } };
      },
      controlRoute("createSnapshot", "Remember the current state (rows, bundles, clock) in memory", {
        description:
          "Gone on restart. At most 32 at a time, holding at most 256 MB of rows together (422 limit_exceeded past either); restore with POST /snapshots/{id}/restore, free with DELETE.",
        answers: { 201: SnapshotCreated },
        refusals: ["limit_exceeded"],
      }),
    )
    .post(
      "/snapshots/:id/restore",
      ({ params }) => {
        restoreSnapshot(runtime, params.id);
        return noContent();
      },
      controlRoute("restoreSnapshot", "Return to a snapshot", {
        description:
          "Its rows, bundle files and clock; rate windows, fault rules, the request log and pending auto-approvals are cleared, as by a reset. The snapshot stays, to be restored again.",
        params: SnapshotParams,
        answers: { 204: NoContent("State restored") },
        refusals: ["snapshot_not_found"],
      }),
    )
    .delete(
      "/snapshots/:id",
      ({ params }) => {
        runtime.snapshots.remove(params.id);
        return noContent();
      },
      controlRoute("deleteSnapshot", "Forget a snapshot", {
        params: SnapshotParams,
        answers: { 204: NoContent("Snapshot removed") },
        refusals: ["snapshot_not_found"],
      }),
    );
}
