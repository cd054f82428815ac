/**
 * What the catalogue's messages share (server/errors/catalog.ts): the caps on what an error echoes back, byte
 * sizes as people read them, and the one validation message that many errors are made of.
 */
import { ApiError, type ErrorDetail } from "./api-error";

/** How many bundle problems an error lists, and how much of an archive name it echoes. */
export const BUNDLE_DETAILS_MAX = 100;
export const NAME_ECHO_MAX = 256;
/**
 * How many problems a validation error lists. Past it the list is cut and one closing detail says so: a body
 * (or fixture) with 60,000 bad fields must not turn the error into a multi-megabyte response.
 */
export const DETAILS_MAX = 100;
export const MORE_PROBLEMS = `…and more problems: only the first ${DETAILS_MAX} are listed`;
export const capDetails = (details: ErrorDetail[]) =>
  details.length <= DETAILS_MAX ? details : [...details.slice(0, DETAILS_MAX), { message: MORE_PROBLEMS }];
const andMore = (details: ErrorDetail[]) =>
  details.length > DETAILS_MAX ? " (and more)" : details.length > 1 ? ` (and ${details.length - 1} more)` : "";
/** Byte limits as people read them (MB as 1024 × 1024 bytes, as the CLI counts them); the exact count goes beside. */
export const megabytes = (bytes: number) =>
  bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MB` : `${Math.round(bytes / 1024)} KB`;
export const clip = (text: string, max = NAME_ECHO_MAX) => (text.length > max ? `${text.slice(0, max)}…` : text);

/** One message for every validation failure: the first problem, and how many more `details` holds. */
export const validationError = (details: ErrorDetail[]) =>
  new ApiError(
    422,
    "validation_error",
    `Request failed validation: ${details[0]?.message ?? "invalid request"}${andMore(details)}`,
    capDetails(details),
  );
