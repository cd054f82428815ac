/**
 * What every answer tells a browser, whatever made it and whatever a profile changed: never take the body for
 * another type than the one sent, load and run nothing from it, let no page frame it. So even a JSON answer
 * holding markup, opened in a tab, is text on the origin the dashboard keeps its session in. The answer step
 * (server/http/request-context.ts) puts them on every answer; a page that sets its own policy (the dashboard, the
 * docs) keeps it.
 *
 * Answers start from Headers made once (`headersFrom`): copying a Headers costs next to nothing, while headers
 * given as an object are read and checked key by key on every answer (about 0.2 µs a header).
 */

export const ANSWER_SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "x-content-type-options": "nosniff",
  "content-security-policy": "default-src 'none'; frame-ancestors 'none'",
});

/** The type of every JSON answer: the answer step sends it, and the request log shows it on the answers it kept. */
export const JSON_MEDIA_TYPE = "application/json;charset=utf-8";

declare const TEMPLATE: unique symbol;
/** Headers made by answerHeadersTemplate: they carry the security headers (what `madeAnswer` relies on). */
export type AnswerTemplate = Headers & { readonly [TEMPLATE]: true };

/** Headers to copy for answers: the security headers and `own` (a type, a cache policy), made once. */
export function answerHeadersTemplate(own: Readonly<Record<string, string>> = {}): AnswerTemplate {
  return new Headers({ ...ANSWER_SECURITY_HEADERS, ...own }) as AnswerTemplate;
}

const SECURE = answerHeadersTemplate();

/** A copy of `template` with `extra` set over it (the rate window's headers, those set while serving). */
export function headersFrom(template: Headers, extra: Readonly<Record<string, unknown>> | null): Headers {
  const headers = new Headers(template);
  if (extra) for (const name in extra) headers.set(name, String(extra[name]));
  return headers;
}

/** The security headers with `set` (headers set while serving, possibly none) over them. */
export function secureHeaders(set: Readonly<Record<string, unknown>>): Headers {
  for (const _ in set) return headersFrom(SECURE, set);
  return SECURE;
}

/** A Response made elsewhere (a handler's, a profile's change), given the security headers it lacks. */
export function secured(answer: Response): Response {
  const headers = answer.headers;
  for (const name in ANSWER_SECURITY_HEADERS) if (!headers.has(name)) headers.set(name, ANSWER_SECURITY_HEADERS[name]!);
  return answer;
}
