/**
 * The deploy core, shared by `ext deploy` and the Bun helper's `deploy`. Step by step, with plain arguments: resolve what to deploy → (build) → fetch the resolved
 * limits → pack → inspect locally with the server's own inspector → upload as a stream → (wait). Every
 * check the server would make happens before a byte is uploaded; a refusal names the limit and its source.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { type ApiClient, type BundleStream, versionUpload } from "../../client";
import type { DeployResult } from "../../client/deploy-result";
import { ReadRefusal } from "../../common/files/safe-read";
import { readJsonFileText } from "../../common/json/json-reader";
import { printable } from "../../common/text/printable";
import {
  bundleInspection,
  EmulatorClock,
  type ErrorDetail,
  isLimitKey,
  jsonSyntaxProblem,
  normaliseArchivePath,
  READ_CAPS,
} from "../../server";
import { apiClient, call, type Endpoints, retryNote } from "../calls/http";
import { UsageError } from "../calls/usage-error";
import { runBuild } from "./build-step";
import type { Interrupts } from "./interrupts";
import { explainLimit, parseLimitsBody, type ResolvedLimits } from "./limits";
import {
  CancelledBeforeUpload,
  DeployFailure,
  DeployOutcomeError,
  type DeployReport,
  LocalValidationError,
  UploadCancelled,
  WaitStopped,
} from "./outcome";
import { PackError, type PackResult, packDirectory } from "./pack";
import { preflight } from "./preflight";
import { createProgress } from "./progress";
import { secretWarnings } from "./secret-warnings";
import { showElapsed, waitNotice } from "./wait-notice";

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
  /**
   * Takes Ctrl-C over for the deploy's run, so it can say what became of the deploy (the CLI's); without it,
   * Ctrl-C is left to the process (a helper, a test).
   */
  listenForInterrupts?: () => Interrupts;
}

interface LocalManifest {
  extensionId?: unknown;
  version?: unknown;
}

/** manifest.json of `dir` (`shown` is the folder as the user wrote it), null when there is none. */
function readManifest(dir: string, shown: string): LocalManifest | null {
  const path = join(dir, "manifest.json");
  if (!existsSync(path)) return null;
  let raw: string;
  try {
    // As every JSON from a file is read: no link followed, a regular file, within the size and nesting caps.
    raw = readJsonFileText(path, READ_CAPS.maxManifestBytes);
  } catch (e) {
    if (!(e instanceof ReadRefusal)) throw e;
    throw new LocalValidationError([
      { path: "manifest.json", message: `${join(shown, "manifest.json")} ${e.message}` },
    ]);
  }
  // A byte-order mark (some editors write one) is not the user's mistake.
  const text = raw.startsWith("\uFEFF") ? raw.slice(1) : raw;
  try {
    const data = JSON.parse(text);
    return data && typeof data === "object" && !Array.isArray(data) ? data : {};
  } catch (e) {
    // Where it breaks, as fixture errors say it: FILE:LINE:COLUMN, the line and a caret.
    const syntax = jsonSyntaxProblem(text);
    const file = join(shown, "manifest.json");
    throw new LocalValidationError([
      syntax
        ? {
            path: "manifest.json",
            line: syntax.line,
            column: syntax.column,
            message: `${file}:${syntax.line}:${syntax.column}: not valid JSON: ${syntax.message}`,
            excerpt: syntax.excerpt,
          }
        : { path: "manifest.json", message: `${file} is not valid JSON: ${(e as Error).message}` },
    ]);
  }
}

/** A file given where the folder belongs: say so, and name the folder when the file is its manifest.json. */
function refuseFile(dir: string, shown: string): void {
  if (!statSync(dir, { throwIfNoEntry: false })?.isFile()) return;
  const folder = basename(dir) === "manifest.json" ? dirname(shown) : null;
  throw new UsageError(
    `${shown} is a file; ext deploy takes the folder that holds manifest.json${folder ? ` (here: ext deploy ${folder})` : ""}`,
    false,
  );
}

/** Entries of a folder looked at for a manifest one level down: a project root can hold many. */
const MAX_ENTRIES_SEARCHED = 1000;

/** The subfolders of `dir` (not dot-folders or node_modules) that hold a manifest.json: a build's output folder. */
function manifestsOneLevelDown(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir, { withFileTypes: true })
      .slice(0, MAX_ENTRIES_SEARCHED)
      .filter((e) => e.isDirectory() && !e.name.startsWith(".") && e.name !== "node_modules")
      .map((e) => e.name);
  } catch {
    return [];
  }
  return names.filter((name) => existsSync(join(dir, name, "manifest.json"))).sort();
}

function missingManifest(dir: string, shown: string): LocalValidationError {
  const below = manifestsOneLevelDown(dir);
  let message = `manifest.json is missing in ${shown}`;
  if (below.length > 0) {
    const found = below.slice(0, 3).map((name) => join(shown, name, "manifest.json"));
    message += `; found ${found.join(", ")}${below.length > 3 ? ` and ${below.length - 3} more` : ""} one level down: deploy that folder (ext deploy ${join(shown, below[0]!)})`;
  }
  return new LocalValidationError([{ path: "manifest.json", message }]);
}

const str = (v: unknown) => (typeof v === "string" && v.length > 0 ? v : null);

async function fetchLimits(o: DeployOptions, extensionId: string): Promise<ResolvedLimits> {
  const api = apiClient(o.endpoints, o.apiKey);
  const body = await call(
    () => api.GET("/v1/developer/extensions/{id}/limits", { params: { path: { id: extensionId } } }),
    {
      onRetry: (s) => o.note(retryNote(s)),
    },
  );
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
  const interrupts = o.listenForInterrupts?.() ?? ignoreInterrupts;
  try {
    return await deploySteps(o, interrupts);
  } finally {
    interrupts.close();
  }
}

async function deploySteps(o: DeployOptions, interrupts: Interrupts): Promise<DeployResult> {
  const step = <T>(what: string, work: Promise<T>) => interrupts.during(work, () => new CancelledBeforeUpload(what));
  // Loaded from the start, beside the requests: the inspection runs between the limits' request and the upload.
  const inspector = bundleInspection();
  const dir = resolve(o.dir);
  refuseFile(dir, o.dir);
  let manifest = readManifest(dir, o.dir);
  let extensionId = o.extensionId ?? str(manifest?.extensionId);
  // The build's time limit is the server's; every other local check comes before any request.
  let limits = o.build && extensionId ? await step("reading the limits", fetchLimits(o, extensionId)) : null;

  if (o.build) {
    const seconds = limits?.buildTimeSeconds ?? 300;
    o.note(`building: ${o.build} (limit ${seconds} s)`);
    await step("building", runBuild(o.build, seconds));
    refuseFile(dir, o.dir);
    manifest = readManifest(dir, o.dir);
  }
  if (!existsSync(dir)) throw new UsageError(`${o.dir} does not exist`);
  if (!manifest) throw missingManifest(dir, o.dir);
  extensionId ??= str(manifest.extensionId);
  if (!extensionId)
    throw new UsageError(
      "no extension id: give --extension, set EXT_EXTENSION_ID, or put extensionId in manifest.json (`ext extensions create --name NAME` makes one and prints its id)",
    );
  const version = o.version ?? str(manifest.version);
  if (!version) throw new UsageError("no version label: give --version or put version in manifest.json");
  const labelWarnings = labelMismatch(version, manifest);
  limits ??= await step("reading the limits", fetchLimits(o, extensionId));
  const refusals = await step(
    "checking the extension and its versions",
    preflight(apiClient(o.endpoints, o.apiKey), { extensionId, label: version, limits }, (s) => o.note(retryNote(s))),
  );

  const work = mkdtempSync(join(tmpdir(), "ext-deploy-"));
  try {
    const archive = join(work, "bundle.tar.gz");
    let packed: PackResult;
    try {
      packed = await step("packing", packDirectory(dir, archive));
    } catch (e) {
      if (e instanceof PackError) throw new LocalValidationError([{ path: o.dir, message: e.message }]);
      throw e;
    }
    // The server's own inspector, with the limits the server resolved for this extension.
    const { inspectBundle } = await inspector;
    const inspection = await step("checking the bundle", inspectBundle(archive, limits.bundle));
    const warnings = [...labelWarnings, ...refusals.warnings, ...secretWarnings(packed), ...inspection.warnings];
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
      const problems = [...refusals.problems, ...inspection.problems.map((p) => explain(p, limits))];
      if (problems.length > 0) throw new LocalValidationError(problems);
      if (!o.dryRun) await upload(o, archive, report, interrupts);
    } catch (e) {
      throw new DeployFailure(e, report);
    }
    return { ok: true, ...report };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const ignoreInterrupts: Interrupts = { during: (work) => work, close: () => {} };

const COMPONENT_LIMITS = {
  "layer/": "bundle_layer_gzip_bytes",
  "editor/": "bundle_editor_gzip_bytes",
  "interactive/": "bundle_interactive_gzip_bytes",
} as const;

/** Uploads, then (--wait) follows the review, writing what it learns into `report` as it goes. */
async function upload(o: DeployOptions, archive: string, report: DeployReport, interrupts: Interrupts): Promise<void> {
  const url = `${o.endpoints.baseUrl}/extensions/${encodeURIComponent(report.extensionId)}/versions`;
  const api = apiClient(o.endpoints, o.apiKey);
  // Off a terminal, the quarter lines go where every other note goes (nowhere, for a helper).
  const progress = createProgress("uploading", o.tty, o.tty ? undefined : (line) => o.note(line.trimEnd()));
  const sent = (report.upload = { url, sent: 0, total: report.bundle.bytes });
  // Ctrl-C cuts the request instead of the process, so the user hears what became of the upload.
  const cancel = new AbortController();
  const stop = () => {
    const cancelled = new UploadCancelled();
    cancel.abort(cancelled);
    return cancelled;
  };
  // A fresh stream of the archive for each attempt (a 429 is retried; a stream can be read only once).
  const submit = () =>
    api.POST("/developer/v1/extensions/{id}/versions", {
      params: { path: { id: report.extensionId } },
      ...versionUpload({
        version: report.version,
        changelog: o.changelog,
        bundle: fileStream(archive, (bytes, total) => {
          sent.sent = bytes;
          progress.update(bytes, total);
        }),
      }),
      signal: cancel.signal,
    });
  const submitted = await interrupts
    .during(call(submit, { onRetry: (s) => o.note(retryNote(s)), signal: cancel.signal }), stop)
    .finally(() => progress.done());
  // Shown, waited on and polled for: a version answer without a string id and status is not the API's.
  const version = (submitted as { version?: { id?: unknown; status?: unknown } }).version;
  if (typeof version?.id !== "string" || typeof version.status !== "string")
    throw new Error(
      `${o.endpoints.root} answered the upload without a version id and status: it is not the emulator's or the platform's API`,
    );
  report.versionId = version.id;
  report.status = version.status as typeof submitted.version.status;
  if (o.wait) await waitForReview(o, report, interrupts);
}

/** A --version label other than the manifest's own `version`: the bundle would say one thing, the version another. */
function labelMismatch(label: string, manifest: LocalManifest): string[] {
  const own = str(manifest.version);
  if (own === null || own === label) return [];
  return [
    `the version label ${label} (--version) differs from version ${JSON.stringify(own)} in manifest.json; the bundle keeps its manifest as it is`,
  ];
}

/** The archive read from disk chunk by chunk (never held in memory), `onBytes` seeing its bytes go by. */
function fileStream(path: string, onBytes: (sent: number, total: number) => void): BundleStream {
  const size = statSync(path).size;
  let sent = 0;
  const counter = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      sent += chunk.length;
      onBytes(sent, size);
      controller.enqueue(chunk);
    },
  });
  return { stream: (Bun.file(path).stream() as ReadableStream<Uint8Array>).pipeThrough(counter), size };
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
async function waitForReview(o: DeployOptions, report: DeployReport, interrupts: Interrupts): Promise<void> {
  const api = apiClient(o.endpoints, o.apiKey);
  const versionId = report.versionId!;
  const clock = new EmulatorClock();
  const deadline = clock.nowMs() + o.timeoutSeconds * 1000;
  const timedOut = () =>
    new DeployOutcomeError(`version ${versionId} is still ${report.status} after ${o.timeoutSeconds} s (--timeout)`);
  const subject = { versionId, label: report.version, timeoutSeconds: o.timeoutSeconds };
  for (const line of waitNotice(subject)) o.note(line);
  const elapsed = showElapsed(clock, o.timeoutSeconds, o.tty);
  try {
    await interrupts.during(pollReview(o, report, api, clock, deadline, timedOut), () => new WaitStopped(report));
  } finally {
    elapsed.stop();
  }
  if (report.status === "rejected")
    throw new DeployOutcomeError(
      `version ${versionId} was rejected by review${report.reason ? `: ${printable(report.reason)}` : ""}`,
    );
}

async function pollReview(
  o: DeployOptions,
  report: DeployReport,
  api: ApiClient,
  clock: EmulatorClock,
  deadline: number,
  timedOut: () => Error,
): Promise<void> {
  const versionId = report.versionId!;
  while (report.status !== "approved" && report.status !== "rejected") {
    if (deadline - clock.nowMs() <= 0) throw timedOut();
    await Bun.sleep(Math.min(POLL_MS, deadline - clock.nowMs()));
    const cut = new AbortController();
    const timer = setTimeout(() => cut.abort(timedOut()), Math.max(deadline - clock.nowMs(), 0) + POLL_MS);
    try {
      const list = await call(
        () =>
          api.GET("/developer/v1/extensions/{id}/versions", {
            params: { path: { id: report.extensionId } },
            signal: cut.signal,
          }),
        { signal: cut.signal, onRetry: (s) => o.note(retryNote(s)) },
      );
      const found = list.versions.find((v) => v.id === versionId);
      if (found) {
        report.status = found.status;
        report.reason = typeof found.rejectReason === "string" ? found.rejectReason : null;
      }
    } finally {
      clearTimeout(timer);
    }
  }
}
