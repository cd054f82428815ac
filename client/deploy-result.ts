/**
 * What a deploy gives back, ONE shape for `ext deploy --json` and both helpers' `deploy()`: the CLI's core
 * (tools/deploy/deploy.ts) produces it, the Bun helper calls that core in process, the Node helper runs it in the
 * binary and reads its `--json`. `deployOutcome()` turns the failure shape into the error both helpers
 * reject with, so a refusal (a label taken, a bundle over a limit, the server's own answer) reads the same.
 */
import { ApiCallError } from "./errors";
import type { ErrorDetail } from "./models";

export interface DeployReport {
  dryRun: boolean;
  extensionId: string;
  /** The version label. */
  version: string;
  /** The submitted version's id (ver_…); null when nothing was submitted. */
  versionId: string | null;
  /** The version's status when known: pending after the upload, approved or rejected after --wait. */
  status: string | null;
  /** The review's reason, when the version was rejected. */
  reason: string | null;
  bundle: { bytes: number; sha256: string; entries: number };
  /** Archive paths ("/"-separated) and sizes of what was packed. */
  files: { path: string; bytes: number }[];
  /** What the default rules or `.extignore` left out; a directory ends in "/". */
  excluded: { path: string; rule: string }[];
  components: { path: string; gzipBytes: number; limit: number }[];
  /** The files manifest.json names as sounds, with the per-file limit and warning threshold. */
  sounds: { path: string; bytes: number }[];
  soundFileLimits: { max: number; warning: number };
  soundLimit: { value: number; source: string; used: number };
  warnings: string[];
  /** Bytes of the archive sent to `url` (of `total`); null when no upload started. */
  upload: { url: string; sent: number; total: number } | null;
}

/** A deploy that succeeded: `ext deploy --json`'s line, and what both helpers' `deploy()` resolve to. */
export type DeployResult = DeployReport & { ok: true };

/** A deploy that submitted a version (the helpers never dry-run): the same result, its version known. */
export type SubmittedDeploy = DeployResult & { dryRun: false; versionId: string; status: string };

/**
 * A deploy that failed: `problems` when a local check refused the bundle (nothing uploaded), else `error`
 * (the server's envelope fields, or only `message`). The report's fields are there once packing was done.
 */
export type DeployFailureJson = Partial<DeployReport> & {
  ok: false;
  problems?: ErrorDetail[];
  error?: { code?: string; message?: string; status?: number; details?: ErrorDetail[] };
};

export type DeployJson = DeployResult | DeployFailureJson;

/** The status and code a local refusal stands for: the ones the server would answer the upload with. */
function localRefusal(problems: ErrorDetail[]): { status: number; code: string; message: string } {
  const taken = problems.find((p) => p.code === "version_exists");
  if (taken) return { status: 409, code: "version_exists", message: taken.message };
  return {
    status: 422,
    code: "bundle_invalid",
    message: `the bundle would be refused: ${problems.map((p) => p.message).join("; ")}`,
  };
}

/**
 * The result, or the error a helper rejects with: an ApiCallError for a refusal (a local check's, with the
 * status and code the server would give, or the server's own), a plain Error for anything else.
 */
export function deployOutcome(
  json: DeployJson | null,
  at: { extensionId: string; otherwise: string },
): SubmittedDeploy {
  if (json?.ok === true && !json.dryRun && json.versionId && json.status)
    return { ...json, dryRun: false, versionId: json.versionId, status: json.status };
  const request = { method: "POST", path: `/developer/v1/extensions/${encodeURIComponent(at.extensionId)}/versions` };
  const failure = json?.ok === false ? json : null;
  if (failure?.problems?.length)
    throw new ApiCallError({ ...localRefusal(failure.problems), details: failure.problems, ...request });
  const envelope = failure?.error;
  if (envelope?.code && typeof envelope.status === "number")
    throw new ApiCallError({
      status: envelope.status,
      code: envelope.code,
      message: envelope.message ?? envelope.code,
      details: envelope.details ?? [],
      ...request,
    });
  throw new Error(`deploy failed: ${envelope?.message || at.otherwise}`);
}
