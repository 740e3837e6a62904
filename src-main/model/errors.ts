/**
 * Codex's `CodexErrorInfo` values that Weft reports (see PROTOCOL.md `error`); clients switch on them.
 */
export type ModelErrorInfo =
  | 'ContextWindowExceeded'
  | 'UsageLimitExceeded'
  | 'HttpConnectionFailed'
  | 'ResponseStreamConnectionFailed'
  | 'ResponseStreamDisconnected'
  | 'ResponseTooManyFailedAttempts'
  | 'BadRequest'
  | 'Unauthorized'
  | 'InternalServerError'
  | 'Other';

/** A failed model request, classified for the retry policy and for people. */
export class ModelError extends Error {
  constructor(
    message: string,
    readonly info: ModelErrorInfo,
    readonly options: {
      /** Retrying the same request may succeed (5xx, 429, dropped connection, idle stream). */
      retryable: boolean;
      /** Failed before any event was streamed: counts against request retries, not stream retries. */
      phase: 'request' | 'stream';
      httpStatus?: number | null;
      /** Server-requested delay (Retry-After); wins over our backoff. */
      retryAfterMs?: number | null;
      /** The answer stopped at the output token limit (what came before it was streamed). */
      outputLimit?: boolean;
    },
  ) {
    super(message);
    this.name = 'ModelError';
  }
}
