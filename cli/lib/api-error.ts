/**
 * How the CLI shows a refusal: `422 bundle_invalid: …` plus one line per detail, as the server wrote them;
 * with --json, the server's envelope as it came. A refusal without the envelope (another server, a proxy)
 * shows its status and the start of its text.
 */
import { ApiCallError } from "../../client";

/** The body of refusals that carried no error envelope, kept to be shown as it came. */
const unenveloped = new WeakMap<ApiCallError, string>();

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;

function envelopeOf(body: unknown): Record<string, unknown> | null {
  const error = isObject(body) ? body.error : undefined;
  return isObject(error) && typeof error.code === "string" ? error : null;
}

/** Notes the refused body of `e` when it is not the API's envelope; returns `e`. */
export function recordRefusal(e: unknown, body: unknown): unknown {
  if (e instanceof ApiCallError && !envelopeOf(body))
    unenveloped.set(e, typeof body === "string" ? body : body === undefined ? "" : JSON.stringify(body));
  return e;
}

/** `422 validation_error: …`, or `HTTP 502: <text>` for a refusal that is not the API's. */
export function headline(e: ApiCallError): string {
  const text = unenveloped.get(e);
  if (text === undefined) return e.summary;
  return `HTTP ${e.status}${text ? `: ${text.slice(0, 200)}` : ""}`;
}

/** The headline plus one line per detail, as the server wrote them. */
export function describeApiError(e: ApiCallError): string {
  const lines = [headline(e)];
  for (const d of e.details) {
    const where = d.path ?? d.field;
    lines.push(`  - ${where ? `${where}: ` : ""}${d.message}`);
  }
  return lines.join("\n");
}

/** An error as --json prints it: the server's envelope (it carries its HTTP status), else the message. */
export function errorJson(e: unknown): unknown {
  if (e instanceof ApiCallError) {
    if (unenveloped.has(e)) return { message: headline(e), status: e.status };
    return {
      code: e.code,
      message: e.message,
      status: e.status,
      ...(e.details.length > 0 ? { details: e.details } : {}),
    };
  }
  return { message: (e as Error)?.message ?? String(e) };
}

/** What the runner prints after `error: `. */
export function describeError(e: unknown): string {
  if (e instanceof ApiCallError) return describeApiError(e);
  return (e as Error)?.message ?? String(e);
}
