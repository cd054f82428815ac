/** The Node helper's own errors; a refused API call is the client's ApiCallError. */
export class StartEmulatorError extends Error {
  override name = "StartEmulatorError";
}
