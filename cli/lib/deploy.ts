/**
 * `ext deploy`, step by step, with plain arguments: resolve what to deploy → (build) → fetch the resolved
 * limits → pack → inspect locally with the server's own inspector → upload as a stream → (wait). Every
 * check the server would make happens before a byte is uploaded; a refusal names the limit and its source.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { inspectBundle } from "../../src/bundles/inspect";
import { EmulatorClock } from "../../src/clock";
import { packDirectory, PackError, type PackResult } from "../../src/bundles/pack";
import type { ErrorDetail } from "../../src/errors/api-error";
import { isLimitKey } from "../../src/limits/catalog";
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

export interface DeployResult {
  ok: true;
  dryRun: boolean;
  extensionId: string;
  version: string;
  versionId: string | null;
  status: string | null;
  bundle: PackResult;
  warnings: string[];
  soundLimit: { value: number; source: string; used: number };
}

/** The bundle breaks a rule: exit 2, nothing uploaded. */
export class LocalValidationError extends Error {
  override name = "LocalValidationError";
  constructor(readonly problems: ErrorDetail[]) {
    super(`the bundle would be refused; nothing was uploaded:\n${problems.map((p) => `  - ${p.message}`).join("\n")}`);
  }
}

/** The version was rejected, or --wait ran out of time: exit 1. */
class DeployOutcomeError extends Error {
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
    throw new LocalValidationError([{ path: "manifest.json", message: `manifest.json is not valid JSON: ${(e as Error).message}` }]);
  }
}

const str = (v: unknown) => (typeof v === "string" && v.length > 0 ? v : null);

async function fetchLimits(o: DeployOptions, extensionId: string): Promise<ResolvedLimits> {
  const body = await requestJson(o.endpoints.limitsUrl(extensionId), { token: o.apiKey, onRetry: (s) => o.note(`rate limited; retrying in ${s} s`) });
  return parseLimitsBody(body);
}

/** A count problem gets the limit's source and how to raise it. */
function explain(problem: ErrorDetail, limits: ResolvedLimits): ErrorDetail {
  const key = typeof problem.limit === "string" ? problem.limit : null;
  if (!key || !isLimitKey(key) || typeof problem.max !== "number" || typeof problem.current !== "number") return problem;
  return { ...problem, source: limits.source(key), message: `${problem.message}. ${explainLimit(key, limits.source(key))}` };
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
  if (!manifest) throw new LocalValidationError([{ path: "manifest.json", message: `manifest.json is missing in ${o.dir}` }]);
  extensionId ??= str(manifest.extensionId);
  if (!extensionId) throw new UsageError("no extension id: give --extension, set EXT_EXTENSION_ID, or put extensionId in manifest.json");
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
    for (const w of inspection.warnings) o.note(`warning: ${w}`);
    if (inspection.problems.length > 0) throw new LocalValidationError(inspection.problems.map((p) => explain(p, limits)));
    const soundLimit = { value: limits.bundle.max_sounds_per_extension, source: limits.source("max_sounds_per_extension"), used: inspection.soundCount };
    const base = { ok: true as const, extensionId, version, bundle: packed, warnings: inspection.warnings, soundLimit };
    if (o.dryRun) return { ...base, dryRun: true, versionId: null, status: null };

    const form = multipartBody({ version, changelog: o.changelog }, { field: "bundle", path: archive, filename: "bundle.tar.gz", contentType: "application/gzip" });
    const progress = createProgress("uploading", o.tty);
    const submitted = await requestJson<{ version: { id: string; status: string } }>(`${o.endpoints.baseUrl}/extensions/${encodeURIComponent(extensionId)}/versions`, {
      method: "POST",
      token: o.apiKey,
      headers: { "content-type": form.contentType, "content-length": String(form.contentLength) },
      body: () => form.stream((sent, total) => progress.update(sent, total)),
      onRetry: (s) => o.note(`rate limited; retrying in ${s} s`),
    }).finally(() => progress.done());
    let status = submitted.version.status;
    if (o.wait) status = await waitForReview(o, extensionId, submitted.version.id, status);
    return { ...base, dryRun: false, versionId: submitted.version.id, status };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const POLL_MS = 1000;

/**
 * Polls the versions list every second until the version is approved or rejected, or --timeout passes.
 * The deadline is read from a clock (real time), not counted in polls: a slow answer or a Retry-After
 * wait would otherwise stretch it. The last poll is at the deadline; a poll (or its Retry-After wait)
 * still unanswered one poll interval past the deadline is cut, so --wait ends by timeout + 1 s.
 */
async function waitForReview(o: DeployOptions, extensionId: string, versionId: string, status: string): Promise<string> {
  const url = `${o.endpoints.baseUrl}/extensions/${encodeURIComponent(extensionId)}/versions`;
  const clock = new EmulatorClock();
  const deadline = clock.nowMs() + o.timeoutSeconds * 1000;
  const timedOut = () => new DeployOutcomeError(`version ${versionId} is still ${status} after ${o.timeoutSeconds} s (--timeout)`);
  while (status !== "approved" && status !== "rejected") {
    if (deadline - clock.nowMs() <= 0) throw timedOut();
    await Bun.sleep(Math.min(POLL_MS, deadline - clock.nowMs()));
    const cut = new AbortController();
    const timer = setTimeout(() => cut.abort(timedOut()), Math.max(deadline - clock.nowMs(), 0) + POLL_MS);
    try {
      const list = await requestJson<{ versions: { id: string; status: string }[] }>(url, { token: o.apiKey, signal: cut.signal, onRetry: (s) => o.note(`rate limited; retrying in ${s} s`) });
      status = list.versions.find((v) => v.id === versionId)?.status ?? status;
    } finally {
      clearTimeout(timer);
    }
  }
  if (status === "rejected") throw new DeployOutcomeError(`version ${versionId} was rejected by review`);
  return status;
}
