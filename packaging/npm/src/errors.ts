/** The helpers' own error (shared with the Bun helper); a refused API call is the client's ApiCallError. */
export { StartEmulatorError } from "../../../client/errors";
