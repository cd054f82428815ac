/**
 * `ext deploy`, step by step, with plain arguments: resolve what to deploy → (build) → fetch the resolved
 * limits → pack → inspect locally with the server's own inspector → upload as a stream → (wait). Every
 * check the server would make happens before a byte is uploaded; a refusal names the limit and its source.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { inspectBundle } from "../../src/bundles/inspect";
import { normaliseArchivePath } from "../../src/bundles/manifest";
import { type ExcludedPath, PackError, type PackedFile, type PackResult, packDirectory } from "../../src/bundles/pack";
import { secretWarnings } from "../../src/bundles/secret-warnings";
import { EmulatorClock } from "../../src/clock";
import type { ErrorDetail } from "../../src/errors/api-error";
import { isLimitKey } from "../../src/limits/catalog";
import { printable } from "../../src/printable";
import { runBuild } from "./build-step";
import { type Endpoints, requestJson } from "./http";
import { explainLimit, parseLimitsBody, type ResolvedLimits } from "./limits";
import { multipartBody } from "./multipart";
import { createProgress } from "./progress";
import { UsageError } from "./runner";

export interface DeployOptions {
  dir: string;
  extensionId: string | null;
  version: string | null;
  changelog: string;
  apiKey: string;
  endpoints: Endpoints;
  build: string | null;
  dryRun: boolean;
  wait: boolean;
  timeoutSeconds: number;
  /** Where human-readable progress and warnings go (stderr); results are returned. */
  note: (line: string) => void;
  tty: boolean;
}

/** Everything a deploy learnt, success or not: printed on every outcome (deploy-report.ts). */
export interface DeployReport {
  dryRun: boolean;
  extensionId: string;
  version: string;
  versionId: string | null;
  /** The version's status when known: pending after the upload, approved or rejected after --wait. */
  status: string | null;
  /** The review's reason, when the version was rejected. */
  reason: string | null;
  bundle: { bytes: number; sha256: string; entries: number };
  files: PackedFile[];
  excluded: ExcludedPath[];
  components: { path: string; gzipBytes: number; limit: number }[];
  /** The files manifest.json names as sounds, with the per-file limit and warning threshold. */
  sounds: { path: string; bytes: number }[];
  soundFileLimits: { max: number; warning: number };
  soundLimit: { value: number; source: string; used: number };
  warnings: string[];
  /** Bytes of the archive sent to `url` (of `total`); null when no upload started. */
  upload: { url: string; sent: number; total: number } | null;
}

export type DeployResult = DeployReport & { ok: true };

/** The deploy failed after packing: `cause` is the error, `report` what was packed, uploaded and learnt. */
export class DeployFailure extends Error {
  override name = "DeployFailure";
  constructor(
    override readonly cause: unknown,
    readonly report: DeployReport,
  ) {
    super((cause as Error)?.message ?? String(cause));
  }
}

/** The bundle breaks a rule: exit 2, nothing uploaded. */
export class LocalValidationError extends Error {
  override name = "LocalValidationError";
  constructor(readonly problems: ErrorDetail[]) {
    super(
      `the bundle would be refused; nothing was uploaded:\n${problems.map((p) => `  - ${printable(p.message)}`).join("\n")}`,
    );
  }
}

/** The version was rejected, or --wait ran out of time: exit 1. */
export class DeployOutcomeError extends Error {
  override name = "DeployOutcomeError";
}

interface LocalManifest {
  extensionId?: unknown;
  version?: unknown;
}

function readManifest(dir: string): LocalManifest | null {
  const path = join(dir, "manifest.json");
  if (!existsSync(path)) return null;
  try {
    const data = JSON.parse(readFileSync(path, "utf8"));
    return data && typeof data === "object" && !Array.isArray(data) ? data : {};
  } catch (e) {
    throw new LocalValidationError([
      { path: "manifest.json", message: `manifest.json is not valid JSON: ${(e as Error).message}` },
    ]);
  }
}

const str = (v: unknown) => (typeof v === "string" && v.length > 0 ? v : null);

async function fetchLimits(o: DeployOptions, extensionId: string): Promise<ResolvedLimits> {
  const body = await requestJson(o.endpoints.limitsUrl(extensionId), {
    token: o.apiKey,
    onRetry: (s) => o.note(`rate limited; retrying in ${s} s`),
  });
  return parseLimitsBody(body);
}

/** A count problem gets the limit's source and how to raise it. */
function explain(problem: ErrorDetail, limits: ResolvedLimits): ErrorDetail {
  const key = typeof problem.limit === "string" ? problem.limit : null;
  if (!key || !isLimitKey(key) || typeof problem.max !== "number" || typeof problem.current !== "number")
    return problem;
  return {
    ...problem,
    source: limits.source(key),
    message: `${problem.message}. ${explainLimit(key, limits.source(key))}`,
  };
}

export async function deploy(o: DeployOptions): Promise<DeployResult> {
  const dir = resolve(o.dir);
  let manifest = readManifest(dir);
  let extensionId = o.extensionId ?? str(manifest?.extensionId);
  let limits = extensionId ? await fetchLimits(o, extensionId) : null;

  if (o.build) {
    const seconds = limits?.buildTimeSeconds ?? 300;
    o.note(`building: ${o.build} (limit ${seconds} s)`);
    await runBuild(o.build, seconds);
    manifest = readManifest(dir);
  }
  if (!existsSync(dir)) throw new UsageError(`${o.dir} does not exist`);
  if (!manifest)
    throw new LocalValidationError([{ path: "manifest.json", message: `manifest.json is missing in ${o.dir}` }]);
  extensionId ??= str(manifest.extensionId);
  if (!extensionId)
    throw new UsageError(
      "no extension id: give --extension, set EXT_EXTENSION_ID, or put extensionId in manifest.json (`ext extensions create --name NAME` makes one and prints its id)",
    );
  const version = o.version ?? str(manifest.version);
  if (!version) throw new UsageError("no version label: give --version or put version in manifest.json");
  limits ??= await fetchLimits(o, extensionId);

  const work = mkdtempSync(join(tmpdir(), "ext-deploy-"));
  try {
    const archive = join(work, "bundle.tar.gz");
    let packed: PackResult;
    try {
      packed = await packDirectory(dir, archive);
    } catch (e) {
      if (e instanceof PackError) throw new LocalValidationError([{ path: o.dir, message: e.message }]);
      throw e;
    }
    // The server's own inspector, with the limits the server resolved for this extension.
    const inspection = await inspectBundle(archive, limits.bundle);
    const warnings = [...secretWarnings(packed), ...inspection.warnings];
    for (const w of warnings) o.note(`warning: ${printable(w)}`);
    const report: DeployReport = {
      dryRun: o.dryRun,
      extensionId,
      version,
      versionId: null,
      status: null,
      reason: null,
      bundle: { bytes: packed.bytes, sha256: packed.sha256, entries: packed.entries },
      files: packed.files,
      excluded: packed.excluded,
      components: packed.components.map((c) => ({
        ...c,
        limit: limits.bundle[COMPONENT_LIMITS[c.path as keyof typeof COMPONENT_LIMITS]],
      })),
      sounds: soundFiles(inspection.manifest, packed),
      soundFileLimits: { max: limits.bundle.sound_file_bytes, warning: limits.bundle.sound_warning_bytes },
      soundLimit: {
        value: limits.bundle.max_sounds_per_extension,
        source: limits.source("max_sounds_per_extension"),
        used: inspection.soundCount,
      },
      warnings,
      upload: null,
    };
    try {
      if (inspection.problems.length > 0)
        throw new LocalValidationError(inspection.problems.map((p) => explain(p, limits)));
      if (!o.dryRun) await upload(o, archive, report);
    } catch (e) {
      throw new DeployFailure(e, report);
    }
    return { ok: true, ...report };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const COMPONENT_LIMITS = {
  "layer/": "bundle_layer_gzip_bytes",
  "editor/": "bundle_editor_gzip_bytes",
  "interactive/": "bundle_interactive_gzip_bytes",
} as const;

/** Uploads, then (--wait) follows the review, writing what it learns into `report` as it goes. */
async function upload(o: DeployOptions, archive: string, report: DeployReport): Promise<void> {
  const url = `${o.endpoints.baseUrl}/extensions/${encodeURIComponent(report.extensionId)}/versions`;
  const form = multipartBody(
    { version: report.version, changelog: o.changelog },
    { field: "bundle", path: archive, filename: "bundle.tar.gz", contentType: "application/gzip" },
  );
  const progress = createProgress("uploading", o.tty);
  const sent = (report.upload = { url, sent: 0, total: report.bundle.bytes });
  const submitted = await requestJson<{ version: { id: string; status: string } }>(url, {
    method: "POST",
    token: o.apiKey,
    headers: { "content-type": form.contentType, "content-length": String(form.contentLength) },
    body: () =>
      form.stream((bytes, total) => {
        sent.sent = bytes;
        progress.update(bytes, total);
      }),
    onRetry: (s) => o.note(`rate limited; retrying in ${s} s`),
  }).finally(() => progress.done());
  report.versionId = submitted.version.id;
  report.status = submitted.version.status;
  if (o.wait) await waitForReview(o, report);
}

/** The packed files that manifest.json names as sounds. */
function soundFiles(manifest: unknown, packed: PackResult): { path: string; bytes: number }[] {
  const sounds = (manifest as { sounds?: unknown } | null)?.sounds;
  if (!Array.isArray(sounds)) return [];
  const named = new Set(
    sounds
      .map((s) => (s as { file?: unknown } | null)?.file)
      .filter((f): f is string => typeof f === "string")
      .map(normaliseArchivePath),
  );
  return packed.files.filter((f) => named.has(f.path));
}

const POLL_MS = 1000;

/**
 * Polls the versions list every second until the version is approved or rejected, or --timeout passes.
 * The deadline is read from a clock (real time), not counted in polls: a slow answer or a Retry-After
 * wait would otherwise stretch it. The last poll is at the deadline; a poll (or its Retry-After wait)
 * still unanswered one poll interval past the deadline is cut, so --wait ends by timeout + 1 s.
 */
async function waitForReview(o: DeployOptions, report: DeployReport): Promise<void> {
  const url = `${o.endpoints.baseUrl}/extensions/${encodeURIComponent(report.extensionId)}/versions`;
  const versionId = report.versionId!;
  const clock = new EmulatorClock();
  const deadline = clock.nowMs() + o.timeoutSeconds * 1000;
  const timedOut = () =>
    new DeployOutcomeError(`version ${versionId} is still ${report.status} after ${o.timeoutSeconds} s (--timeout)`);
  while (report.status !== "approved" && report.status !== "rejected") {
    if (deadline - clock.nowMs() <= 0) throw timedOut();
    await Bun.sleep(Math.min(POLL_MS, deadline - clock.nowMs()));
    const cut = new AbortController();
    const timer = setTimeout(() => cut.abort(timedOut()), Math.max(deadline - clock.nowMs(), 0) + POLL_MS);
    try {
      const list = await requestJson<{ versions: { id: string; status: string; rejectReason?: string }[] }>(url, {
        token: o.apiKey,
        signal: cut.signal,
        onRetry: (s) => o.note(`rate limited; retrying in ${s} s`),
      });
      const found = list.versions.find((v) => v.id === versionId);
      if (found) {
        report.status = found.status;
        report.reason = typeof found.rejectReason === "string" ? found.rejectReason : null;
      }
    } finally {
      clearTimeout(timer);
    }
  }
  if (report.status === "rejected")
    throw new DeployOutcomeError(
      `version ${versionId} was rejected by review${report.reason ? `: ${report.reason}` : ""}`,
    );
}
