/**
 * The one place errors become responses. Every non-success — our ApiError, Elysia's parse/validation/
 * not-found errors, anything unexpected — leaves as `{error:{code,message,status}}`. Unexpected errors are
 * logged (with stack) for the operator and answered as a bare 500: nothing internal reaches the client.
 */
import type { ValueError } from "@sinclair/typebox/errors";
import { Value } from "@sinclair/typebox/value";
import { Elysia, type TSchema, type ValidationError } from "elysia";
import type { Logger } from "../base/logger";
import { asStringError } from "../schema/text-length";
import { ApiError, type ErrorDetail } from "./api-error";
import { DETAILS_MAX, errors } from "./catalog";
import { problemOf } from "./value-errors";

/** A request field as the API names it: `scopes.0`, or the root (`body`, `query`) for the value itself. */
const fieldOf = (root: string) => (pointer: string) => pointer.replace(/^\//, "").replace(/\//g, ".") || root;

/**
 * TypeBox value errors as `details`, one per field, in the words of the one translator (./value-errors.ts)
 * that fixtures use too, so a fixture and a request refused for the same value say the same thing.
 */
export function validationDetails(all: readonly ValueError[] | undefined, root = "body"): ErrorDetail[] {
  const seen = new Set<string>();
  const details: ErrorDetail[] = [];
  for (const e of all ?? []) {
    const { path: field, message } = problemOf(e, fieldOf(root));
    // The first problem of a field is the useful one ("required" rather than "required" + "must be a string").
    if (seen.has(field)) continue;
    seen.add(field);
    details.push({ field, message: `${field}: ${message}` });
  }
  return details;
}

/** TypeBox's own errors of a failed validation, at most DETAILS_MAX + 1: never Elysia's `all`, whose summaries quote the value. */
function valueErrorsOf(error: ValidationError): ValueError[] {
  const { validator, value } = error;
  const iterator = "Errors" in validator ? validator.Errors(value) : Value.Errors(validator as TSchema, value);
  const out: ValueError[] = [];
  for (const e of iterator as Iterable<ValueError>) {
    out.push(asStringError(e));
    if (out.length > DETAILS_MAX) break;
  }
  return out;
}

export function toApiError(
  code: string | number,
  error: unknown,
  method: string,
  path: string,
  allowedMethods: (path: string) => string[],
): ApiError | null {
  if (error instanceof ApiError) return error;
  switch (code) {
    case "PARSE": {
      const cause = (error as { cause?: unknown })?.cause;
      return cause instanceof ApiError ? cause : errors.malformedJson();
    }
    case "VALIDATION": {
      // A response that fails its own schema is the server's bug, not the client's: a 500 (and a log line).
      if ((error as { type?: string }).type === "response") return null;
      // Where the value came from names a problem that has no path (a coerced query number is "property").
      const on = (error as { type?: string }).type;
      const root = on === "property" ? "query" : (on ?? "body");
      const details = validationDetails(valueErrorsOf(error as ValidationError), root);
      return errors.validation(details);
    }
    case "NOT_FOUND": {
      const allowed = allowedMethods(path);
      return allowed.length > 0 && !allowed.includes(method)
        ? errors.methodNotAllowed(method, path, allowed)
        : errors.notFound(method, path);
    }
    default:
      return null;
  }
}

/**
 * Puts the error's status and headers on the response state and returns its envelope as a value: the framework
 * serializes it, and the response passes through the mapResponse hook (server/http/request-context.ts) where the
 * request log sees it, as every answer does.
 */
function answerError(err: ApiError, set: { status?: number | string; headers: Record<string, unknown> }) {
  set.status = err.status;
  // Whatever type the route had set: the envelope is made as every JSON answer is, with their one type.
  delete set.headers["content-type"];
  if (err.headers) Object.assign(set.headers, err.headers);
  return err.toBody();
}

export function errorHandler(logger: Logger, allowedMethods: (path: string) => string[]) {
  return new Elysia({ name: "error-handler" })
    .error({ ApiError })
    .onError({ as: "global" }, ({ code, error, request, path, set }) => {
      let err = toApiError(code, error, request.method, path, allowedMethods);
      if (!err) {
        logger.error("unexpected error", {
          method: request.method,
          path,
          error: error instanceof Error ? (error.stack ?? error.message) : String(error),
        });
        err = errors.internal();
      }
      // Headers already set on this request (X-RateLimit-*) travel with the error too.
      return answerError(err, set as { status?: number | string; headers: Record<string, unknown> });
    });
}
