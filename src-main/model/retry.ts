import { ModelError } from './errors';

export interface RetryDecision {
  retry: boolean;
  /** 1-based retry number within its budget. */
  attempt: number;
  max: number;
  delayMs: number;
}

/** Backoff before retry `attempt` (1-based): 200 ms × 2^(attempt−1), jittered ±10%. */
export function backoffMs(attempt: number, random: () => number = Math.random): number {
  const base = 200 * 2 ** Math.max(0, attempt - 1);
  return Math.round(base * (0.9 + random() * 0.2));
}

/**
 * Two budgets, as Codex has them: failures before a stream starts (HTTP 5xx/429, refused
 * connection) spend request retries; a stream that drops or goes idle spends stream retries.
 * Non-retryable errors (400, 401, 403, context window exceeded) are never retried.
 */
export class RetryBudget {
  private requestRetries = 0;
  private streamRetries = 0;

  constructor(
    private readonly requestMax: number,
    private readonly streamMax: number,
    private readonly random: () => number = Math.random,
  ) {}

  next(error: ModelError): RetryDecision {
    const stream = error.options.phase === 'stream';
    const max = stream ? this.streamMax : this.requestMax;
    if (!error.options.retryable) return { retry: false, attempt: 0, max, delayMs: 0 };
    const attempt = stream ? ++this.streamRetries : ++this.requestRetries;
    if (attempt > max) return { retry: false, attempt: attempt - 1, max, delayMs: 0 };
    const delayMs = error.options.retryAfterMs ?? backoffMs(attempt, this.random);
    return { retry: true, attempt, max, delayMs };
  }
}

export function exhaustedError(error: ModelError, decision: RetryDecision): ModelError {
  if (!error.options.retryable || decision.max === 0) return error;
  return new ModelError(`${error.message} (gave up after ${decision.max} retries)`, error.info, {
    ...error.options,
    retryable: false,
  });
}
