/**
 * What `ext deploy` learns and how it ends: the report printed on every outcome, and the errors that each say
 * what became of the deploy (packed, uploaded, submitted), so the command can print it and pick the exit code.
 */

import type { ExcludedPath, PackedFile } from "../../src/bundles/pack";
import type { ErrorDetail } from "../../src/errors/api-error";
import { printable } from "../../src/printable";

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

/** The bundle breaks a rule: exit 2, nothing uploaded. A problem's `excerpt` (lines of a file) follows it. */
export class LocalValidationError extends Error {
  override name = "LocalValidationError";
  constructor(readonly problems: ErrorDetail[]) {
    super(
      `the bundle would be refused; nothing was uploaded:\n${problems
        .map(
          (p) =>
            `  - ${printable(p.message)}${typeof p.excerpt === "string" && p.excerpt ? `\n${printableLines(p.excerpt)}` : ""}`,
        )
        .join("\n")}`,
    );
  }
}

const printableLines = (text: string) => text.split("\n").map(printable).join("\n");

/** Ctrl-C stopped the deploy; the message says what became of it (exit 130). */
export class Interrupted extends Error {
  override name = "Interrupted";
}

/** Ctrl-C during the upload: the request is cut, so the server keeps no version and no bundle. */
export class UploadCancelled extends Interrupted {
  constructor() {
    super("upload cancelled; nothing was submitted");
  }
}

/** Ctrl-C during --wait: the version was submitted and stays as it is. */
export class WaitStopped extends Interrupted {
  constructor(report: DeployReport) {
    super(`stopped waiting; version ${report.versionId} (${report.version}) is still ${report.status}`);
  }
}

/** The version was rejected, or --wait ran out of time: exit 1. */
export class DeployOutcomeError extends Error {
  override name = "DeployOutcomeError";
}

/** Ctrl-C before the upload: the local work stops, and nothing reached the server. */
export class CancelledBeforeUpload extends Interrupted {
  constructor(what: string) {
    super(`deploy cancelled while ${what}; nothing was uploaded and no version was created`);
  }
}
