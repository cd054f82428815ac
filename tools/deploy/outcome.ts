/**
 * What `ext deploy` learns and how it ends: the report printed on every outcome, and the errors that each say
 * what became of the deploy (packed, uploaded, submitted), so the command can print it and pick the exit code.
 */

import type { DeployFailureJson, DeployReport } from "../../client/deploy-result";
import { printable } from "../../common/text/printable";
import type { ErrorDetail } from "../../server";
import { errorJson } from "../calls/api-error";

/** Everything a deploy learnt, success or not: printed on every outcome (tools/cli/lib/deploy-report.ts). */
export type { DeployReport } from "../../client/deploy-result";

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

/**
 * A failed deploy as `ext deploy --json` prints it, and as the helpers read it (client/deploy-result.ts):
 * the local problems or the error, then whatever the deploy had learnt.
 */
export function deployFailureJson(e: unknown): DeployFailureJson {
  const report = e instanceof DeployFailure ? e.report : null;
  const cause = e instanceof DeployFailure ? e.cause : e;
  if (cause instanceof LocalValidationError) return { ok: false, problems: cause.problems, ...report };
  return { ok: false, error: errorJson(cause) as DeployFailureJson["error"], ...report };
}
