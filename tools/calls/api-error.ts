/**
 * How the CLI shows a refusal: `422 bundle_invalid: …` plus one line per detail, as the server wrote them;
 * with --json, the server's envelope as it came. An answer that is not the API's (another server at that
 * address, a proxy's page) is said to be so, with what was found there, never its raw HTML.
 */
import { ApiCallError } from "../../client";
import { CONTROL_PREFIX } from "../../common/addresses";
import { printable, printableLines } from "../../common/text/printable";

/** What a server that is not ext answered, as the CLI describes it. */
export interface ForeignAnswer {
  /** The request's URL (its origin and path are named). */
  url: string;
  method: string;
  status: number;
  contentType: string;
  /** The `Server` header, when there is one (nginx, Apache, a dev server's name). */
  server: string;
  body: string;
}

/** How much of a foreign body is looked at, and shown. */
const FOREIGN_BODY_SCAN = 4096;
const FOREIGN_SNIPPET = 80;

const snippet = (text: string) => {
  const flat = text.replace(/\s+/g, " ").trim();
  return printable(flat.length > FOREIGN_SNIPPET ? `${flat.slice(0, FOREIGN_SNIPPET)}…` : flat);
};

/** What the body is: an HTML page (with its title), JSON without the envelope, nothing, or some text. */
function whatWasFound(a: ForeignAnswer): string {
  const body = a.body.slice(0, FOREIGN_BODY_SCAN);
  if (/html/i.test(a.contentType) || /^\s*<(!doctype|html|head|body)/i.test(body)) {
    const title = /<title[^>]*>([^<]*)<\/title>/i.exec(body)?.[1];
    return `an HTML page${title?.trim() ? ` titled "${snippet(title)}"` : ""}`;
  }
  if (body.trim() === "") return "an empty answer";
  if (/json/i.test(a.contentType)) return `JSON that is not the API's (${snippet(body)})`;
  return `${a.contentType ? `${printable(a.contentType.split(";")[0]!)} ` : ""}text (${snippet(body)})`;
}

/** The URL's origin and path; a URL that does not parse is all origin. */
function originAndPath(url: string): { origin: string; path: string } {
  try {
    const u = new URL(url);
    return { origin: u.origin, path: u.pathname };
  } catch {
    return { origin: url, path: "" };
  }
}

/** "http://127.0.0.1:8080 did not answer as an ext emulator: GET /developer/v1/… got 404 with an HTML page …" */
export function describeForeign(a: ForeignAnswer): string {
  const { origin, path } = originAndPath(a.url);
  return (
    `${origin} did not answer as an ext emulator: ${a.method} ${printable(path)} got ${a.status} with ${whatWasFound(a)}` +
    `${a.server ? ` from ${printable(a.server.slice(0, FOREIGN_SNIPPET))}` : ""}. ` +
    "Is --target (or EXT_BASE_URL) the address `ext serve` printed?"
  );
}

/**
 * "the server at http://127.0.0.1:4780 answered something that is not the emulator's API (GET /developer/v1/…
 * got 200 with JSON that is not the API's ([]))": a success whose body the CLI cannot read as the API's.
 */
export function describeNotTheApi(a: ForeignAnswer): string {
  const { origin, path } = originAndPath(a.url);
  return `the server at ${origin} answered something that is not the emulator's API (${a.method} ${printable(path)} got ${a.status} with ${whatWasFound(a)})`;
}

/** Refusals that carried no error envelope: what was found instead, to be described. */
const unenveloped = new WeakMap<ApiCallError, ForeignAnswer>();

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;

function envelopeOf(body: unknown): Record<string, unknown> | null {
  const error = isObject(body) ? body.error : undefined;
  return isObject(error) && typeof error.code === "string" ? error : null;
}

/** Why a 429 was not waited out (the command's wait bound), said under it. */
const notRetried = new WeakMap<ApiCallError, string>();

/** Whether each answer's request carried a key, a token or a session (answer-reader.ts notes it). */
const credentialSent = new WeakMap<Response, boolean>();
/** A control plane's 401, said as what to do about it (api-error's headline). */
const controlPlaneRefusals = new WeakMap<ApiCallError, string>();

export function noteCredential(response: Response, sent: boolean): void {
  credentialSent.set(response, sent);
}

/**
 * "the control plane at URL needs its admin token: …" when none was sent; "… refused the admin token: …" when
 * one was. The server's own words follow in brackets.
 */
function controlPlaneRefusal(e: ApiCallError, response: Response): string {
  const { origin } = originAndPath(response.url);
  const server = `(${e.summary})`;
  if (credentialSent.get(response))
    return `the control plane at ${origin} refused the admin token: it is not this server's (a restarted \`ext serve\` makes a new one unless given one; a command run in its folder reads the current one) ${server}`;
  return `the control plane at ${origin} needs its admin token: set EXT_ADMIN_TOKEN (a flag shows in \`ps\`), or run the command in the folder of that \`ext serve\`, which finds the token itself ${server}`;
}

/**
 * Notes what a refusal without the API's envelope carried (`response` says from where), and why a 429 was
 * not retried (`notWaited`); returns `e`.
 */
export function recordRefusal(e: unknown, body: unknown, response: Response, notWaited: string | null = null): unknown {
  if (e instanceof ApiCallError && notWaited) notRetried.set(e, notWaited);
  if (e instanceof ApiCallError && e.status === 401 && e.path.startsWith(CONTROL_PREFIX) && envelopeOf(body))
    controlPlaneRefusals.set(e, controlPlaneRefusal(e, response));
  if (e instanceof ApiCallError && !envelopeOf(body))
    unenveloped.set(e, {
      url: response.url,
      method: e.method,
      status: e.status,
      contentType: response.headers.get("content-type") ?? "",
      server: response.headers.get("server") ?? "",
      body: typeof body === "string" ? body : body === undefined ? "" : JSON.stringify(body),
    });
  return e;
}

/** `422 validation_error: …`, or what was found, for a refusal that is not the API's. */
export function headline(e: ApiCallError): string {
  const foreign = unenveloped.get(e);
  if (foreign !== undefined) return describeForeign(foreign);
  return controlPlaneRefusals.get(e) ?? e.summary;
}

/** The headline plus one line per detail, as the server wrote them. */
export function describeApiError(e: ApiCallError): string {
  const lines = [printable(headline(e))];
  for (const d of e.details) {
    const where = d.path ?? d.field;
    lines.push(`  - ${printable(`${where ? `${where}: ` : ""}${d.message}`)}`);
  }
  const why = notRetried.get(e);
  if (why) lines.push(`  ${why}`);
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

/** What the runner prints after `error: `: the server's words, or a local message, made printable. */
export function describeError(e: unknown): string {
  if (e instanceof ApiCallError) return describeApiError(e);
  return printableLines((e as Error)?.message ?? String(e));
}
