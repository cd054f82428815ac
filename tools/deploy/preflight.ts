/**
 * What the server would refuse, or do, with this submission that it can say before the upload: a version
 * label already taken (the upload would end in a 409 version_exists; the next free label is suggested), the
 * version cap (past max_versions_per_extension the oldest version is archived), and the extension's admin
 * status (a disabled extension stays disabled whatever is approved). Asked by the dry run and by the real
 * deploy before a byte is sent. Advice only: when the server cannot say (an error, no answer within a few
 * seconds), a warning says so and the upload decides.
 */
import type { ApiClient, Version } from "../../client";
import type { ErrorDetail } from "../../server";
import { call } from "../calls/http";
import type { ResolvedLimits } from "./limits";

export interface PreflightResult {
  problems: ErrorDetail[];
  warnings: string[];
}

/** The label after `label` not in `taken`: its last number counted up (1.0.0 → 1.0.1, v2 → v3), else `label.1`. */
export function nextFreeLabel(label: string, taken: ReadonlySet<string>): string {
  const m = /^(.*?)(\d+)(\D*)$/.exec(label);
  // At most taken.size candidates can be taken, so one of these is free.
  for (let i = 1n; ; i++) {
    const candidate = m ? `${m[1]}${BigInt(m[2]!) + i}${m[3]}` : `${label}.${i}`;
    if (!taken.has(candidate)) return candidate;
  }
}

/** How long the advice may hold up a deploy. */
const PREFLIGHT_TIMEOUT_MS = 3000;

export async function preflight(
  api: ApiClient,
  check: { extensionId: string; label: string; limits: ResolvedLimits },
  onRetry: (seconds: number) => void,
): Promise<PreflightResult> {
  const id = check.extensionId;
  const signal = AbortSignal.timeout(PREFLIGHT_TIMEOUT_MS);
  let extension: Awaited<ReturnType<typeof readExtension>>;
  let versions: Version[];
  try {
    [extension, { versions }] = await Promise.all([
      readExtension(api, id, signal, onRetry),
      // Archived versions keep their labels: a label is taken for good.
      call(
        () =>
          api.GET("/developer/v1/extensions/{id}/versions", {
            params: { path: { id }, query: { include: "archived" } },
            signal,
          }),
        { onRetry, signal },
      ),
    ]);
  } catch (e) {
    const why = signal.aborted ? `no answer within ${PREFLIGHT_TIMEOUT_MS / 1000} s` : (e as Error)?.message;
    return { problems: [], warnings: [`could not ask the server in advance what it would refuse (${why})`] };
  }
  const problems: ErrorDetail[] = [];
  const warnings: string[] = [];
  const taken = new Set(versions.map((v) => v.version));
  if (taken.has(check.label)) {
    const next = nextFreeLabel(check.label, taken);
    problems.push({
      field: "version",
      code: "version_exists",
      suggestion: next,
      message: `version ${check.label} already exists for ${id} (the upload would be refused: 409 version_exists); the next free label is ${next}: --version ${next}`,
    });
  }
  const cap = check.limits.value("max_versions_per_extension");
  const live = versions.filter((v) => v.status !== "archived");
  if (live.length >= cap) {
    const oldest = oldestArchivable(live, extension.currentVersionId);
    warnings.push(
      `${id} has ${live.length} versions, its max_versions_per_extension limit (${cap}, source: ${check.limits.source("max_versions_per_extension")}): this one makes the server archive the oldest${oldest ? `, ${oldest.id} (${oldest.version})` : ""}`,
    );
  }
  if (extension.status === "disabled")
    warnings.push(
      `${id} is disabled by a platform admin: the version can be submitted and reviewed, but the extension stays disabled until an admin enables it`,
    );
  return { problems, warnings };
}

function readExtension(api: ApiClient, id: string, signal: AbortSignal, onRetry: (seconds: number) => void) {
  return call(() => api.GET("/developer/v1/extensions/{id}", { params: { path: { id } }, signal }), {
    onRetry,
    signal,
  });
}

/** The version the cap archives first: the oldest submitted that is not the current one. */
function oldestArchivable(live: Version[], currentId: string | null): Version | undefined {
  return live
    .filter((v) => v.id !== currentId)
    .sort((a, b) => (a.submittedAt < b.submittedAt ? -1 : a.submittedAt > b.submittedAt ? 1 : 0))[0];
}
