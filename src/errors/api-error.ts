/** One error type for everything the API refuses; `onError` (src/errors/handler.ts) turns it into the envelope. */
export interface ErrorDetail {
  field?: string;
  path?: string;
  message: string;
  [extra: string]: unknown;
}

export class ApiError extends Error {
  override name = "ApiError";
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: ErrorDetail[],
    /** Extra response headers (Retry-After, WWW-Authenticate, Allow). */
    readonly headers?: Record<string, string>,
  ) {
    // No stack trace: an ApiError is an answer to the client, never logged with one, and capturing it is
    // the largest part of constructing the error.
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
  }

  toBody() {
    return {
      error: {
        code: this.code,
        message: this.message,
        status: this.status,
        ...(this.details && this.details.length > 0 ? { details: this.details } : {}),
      },
    };
  }
}
