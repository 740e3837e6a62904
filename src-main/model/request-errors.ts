// Classification of model API failures (Responses and Chat Completions) into `ModelError`s, one set of
// rules for both: 401/403 and other 4xx are final, 429 and 5xx and dropped connections are retried, a
// server-requested delay is kept. Chat providers other than OpenAI rarely send an error `code`, so a
// context overflow is also recognised by the wording local servers use.
import { APIConnectionError, APIError, APIUserAbortError } from 'openai/error';
import { z } from 'zod';
import { ModelError } from './errors';

const CONTEXT_OVERFLOW = /context[ _-]?(length|window)|maximum context|too many tokens|prompt is too long/i;

export function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new APIUserAbortError();
}

export function idleError(ms: number): ModelError {
  return new ModelError(
    `no data from the model for ${Math.round(ms / 1000)} s; the stream was idle`,
    'ResponseStreamDisconnected',
    { retryable: true, phase: 'stream' },
  );
}

/** A failure before the stream started: the HTTP request itself. */
export function classifyRequestError(error: unknown, signal: AbortSignal): Error {
  if (error instanceof APIUserAbortError || signal.aborted) return abortReason(signal);
  if (error instanceof APIConnectionError) {
    return new ModelError(`could not reach the model endpoint: ${error.message}`, 'HttpConnectionFailed', {
      retryable: true,
      phase: 'request',
      httpStatus: null,
    });
  }
  if (error instanceof APIError) {
    const status = error.status ?? null;
    const detail = apiErrorDetail(error);
    const code = errorCode(error);
    const retryAfterMs = retryAfterFromHeaders(error.headers);
    if (code === 'context_length_exceeded' || (status === 400 && CONTEXT_OVERFLOW.test(detail))) {
      return new ModelError(`context window exceeded: ${detail}`, 'ContextWindowExceeded', {
        retryable: false,
        phase: 'request',
        httpStatus: status,
      });
    }
    if (status === 401 || status === 403) {
      return new ModelError(`the model endpoint refused the credentials (HTTP ${status}): ${detail}`, 'Unauthorized', {
        retryable: false,
        phase: 'request',
        httpStatus: status,
      });
    }
    if (status === 429 && (code === 'insufficient_quota' || code === 'usage_limit_reached')) {
      return new ModelError(`usage limit reached (HTTP 429): ${detail}`, 'UsageLimitExceeded', {
        retryable: false,
        phase: 'request',
        httpStatus: status,
      });
    }
    if (status === 429 || (status !== null && status >= 500)) {
      return new ModelError(
        `the model endpoint answered HTTP ${status}: ${detail}`,
        status === 429 ? 'Other' : 'InternalServerError',
        { retryable: true, phase: 'request', httpStatus: status, retryAfterMs },
      );
    }
    return new ModelError(`the model endpoint rejected the request (HTTP ${status ?? '?'}): ${detail}`, 'BadRequest', {
      retryable: false,
      phase: 'request',
      httpStatus: status,
    });
  }
  return new ModelError(`model request failed: ${error instanceof Error ? error.message : String(error)}`, 'Other', {
    retryable: false,
    phase: 'request',
  });
}

/** A failure after the stream started: a dropped connection, an idle stream, or an `error` frame. */
export function classifyStreamError(error: unknown, idled: boolean, idleMs: number): ModelError {
  if (idled) return idleError(idleMs);
  if (error instanceof APIError && error.status === undefined && !(error instanceof APIConnectionError)) {
    // An `{"error": …}` object inside an SSE frame.
    return streamedError(errorCode(error), apiErrorDetail(error));
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ModelError(`stream disconnected before completion: ${message}`, 'ResponseStreamDisconnected', {
    retryable: true,
    phase: 'stream',
  });
}

export function streamedError(code: string | null, message: string): ModelError {
  if (code === 'context_length_exceeded' || CONTEXT_OVERFLOW.test(message)) {
    return new ModelError(`context window exceeded: ${message}`, 'ContextWindowExceeded', {
      retryable: false,
      phase: 'stream',
    });
  }
  if (code === 'insufficient_quota' || code === 'usage_limit_reached') {
    return new ModelError(message, 'UsageLimitExceeded', { retryable: false, phase: 'stream' });
  }
  if (code === 'rate_limit_exceeded' || code === 'server_error' || code === 'server_is_overloaded') {
    return new ModelError(message, 'ResponseStreamDisconnected', {
      retryable: true,
      phase: 'stream',
      retryAfterMs: parseRetryAfterText(message),
    });
  }
  return new ModelError(`the model reported an error mid-stream: ${message}`, 'Other', {
    retryable: false,
    phase: 'stream',
  });
}

/** "Please try again in 1.5s" / "in 200ms" in a rate-limit message. */
function parseRetryAfterText(message: string): number | null {
  const m = /try again in (\d+(?:\.\d+)?)\s*(ms|s)\b/i.exec(message);
  if (!m?.[1]) return null;
  const n = Number(m[1]);
  return m[2] === 'ms' ? n : n * 1000;
}

function errorCode(error: APIError): string | null {
  return typeof error.code === 'string' ? error.code : null;
}

function apiErrorDetail(error: APIError): string {
  // Ollama and some proxies send `{"error": "<text>"}` rather than an error object.
  if (typeof error.error === 'string') return error.error;
  const parsed = z.object({ message: z.string() }).safeParse(error.error);
  if (parsed.success) return parsed.data.message;
  return error.message;
}

function retryAfterFromHeaders(headers: Headers | undefined): number | null {
  if (!headers) return null;
  const ms = headers.get('retry-after-ms');
  if (ms !== null && Number.isFinite(Number(ms))) return Number(ms);
  const s = headers.get('retry-after');
  if (s === null) return null;
  if (Number.isFinite(Number(s))) return Number(s) * 1000;
  const date = Date.parse(s);
  return Number.isNaN(date) ? null : Math.max(0, date - Date.now());
}
