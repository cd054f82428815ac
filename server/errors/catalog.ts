/**
 * Every failure the emulator reports, with its status, wire code and message, in one place: `errors`, made
 * of the messages of each area (requests, the developer API's resources, the control plane, the dashboard's login).
 * Services throw `errors.x(...)`; nothing else builds an ApiError by hand.
 */
import { controlErrors } from "./control-errors";
import { loginErrors } from "./login-errors";
import { requestErrors } from "./request-errors";
import { resourceErrors } from "./resource-errors";

export { BUNDLE_DETAILS_MAX, DETAILS_MAX, MORE_PROBLEMS, NAME_ECHO_MAX } from "./message-parts";
export { RATE_LIMIT_HINT } from "./request-errors";

/** The areas, each of which names its errors once (test/errors/catalog.test.ts checks that no name repeats). */
export const ERROR_AREAS = [requestErrors, resourceErrors, controlErrors, loginErrors] as const;

export const errors = { ...requestErrors, ...resourceErrors, ...controlErrors, ...loginErrors };
