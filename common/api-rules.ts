/**
 * The API's rules that the tools read too — for their help text and for the checks they make before a call — as
 * the server defines them: the bounds of an extension's fields, of a secret, of a limit request's reason and of an
 * install count, the JSON body cap, the size of the request log. The server's models and checks are built from
 * these, so a tool never restates a bound.
 */
import { characterCount } from "./text/text-length";

/** An extension's name: 1 to 80 characters once trimmed. */
export const NAME_MAX = 80;
export const SHORT_DESCRIPTION_MAX = 140;
export const VISIBILITIES = ["private", "unlisted", "public"] as const;

export const SECRET_NAME_PATTERN = "^[A-Za-z_][A-Za-z0-9_]{0,127}$";
export const SECRET_NAME_RE = new RegExp(SECRET_NAME_PATTERN);
/** Values are 1 byte to 64 KB, counted in UTF-8 bytes (the service checks bytes; the schema only types). */
export const SECRET_VALUE_MAX_BYTES = 64 * 1024;

/** A limit request's reason: at least this many characters once trimmed. */
export const REASON_MIN = 20;

/** The rule a request's reason is held to, by the API and by `ext limits request`: 20+ characters once trimmed. */
export function reasonLongEnough(reason: string): boolean {
  return characterCount(reason.trim()) >= REASON_MIN;
}

/** Most installs (or uninstalls, or moves) one call records: counters make any count cost the same. */
export const MAX_INSTALLS_PER_CALL = 100_000_000;

/**
 * The developer API's JSON bodies are small (a description is at most 20,000 characters, a secret 64 KB), so any
 * JSON body over 1 MiB is refused (server/http/body-limit.ts).
 */
export const JSON_BODY_MAX_BYTES = 1024 * 1024;

/** How many requests the request log keeps, and how many GET /_emulator/requests lists when not told. */
export const REQUEST_LOG_CAPACITY = 500;
export const REQUEST_LOG_DEFAULT_LIMIT = 100;
