/** One error type for everything the API refuses; `onError` (server/errors/handler.ts) turns it into the envelope. */
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
    super(message);
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
