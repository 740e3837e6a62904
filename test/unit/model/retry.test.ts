import { describe, expect, it } from 'vitest';
import { ModelError } from '../../../src-main/model/errors';
import { backoffMs, exhaustedError, RetryBudget } from '../../../src-main/model/retry';

const streamDrop = (): ModelError =>
  new ModelError('dropped', 'ResponseStreamDisconnected', { retryable: true, phase: 'stream' });
const http500 = (retryAfterMs: number | null = null): ModelError =>
  new ModelError('HTTP 500', 'InternalServerError', {
    retryable: true,
    phase: 'request',
    httpStatus: 500,
    retryAfterMs,
  });

describe('backoff', () => {
  it('doubles from 200 ms with ±10% jitter', () => {
    expect([1, 2, 3, 4].map((n) => backoffMs(n, () => 0.5))).toEqual([200, 400, 800, 1600]);
    expect(backoffMs(1, () => 0)).toBe(180);
    expect(backoffMs(1, () => 1)).toBe(220);
  });
});

describe('RetryBudget', () => {
  it('keeps separate budgets for requests and streams', () => {
    const budget = new RetryBudget(2, 1, () => 0.5);
    expect(budget.next(http500())).toEqual({ retry: true, attempt: 1, max: 2, delayMs: 200 });
    expect(budget.next(streamDrop())).toEqual({ retry: true, attempt: 1, max: 1, delayMs: 200 });
    expect(budget.next(http500())).toEqual({ retry: true, attempt: 2, max: 2, delayMs: 400 });
    expect(budget.next(streamDrop())).toEqual({ retry: false, attempt: 1, max: 1, delayMs: 0 });
    expect(budget.next(http500())).toEqual({ retry: false, attempt: 2, max: 2, delayMs: 0 });
  });

  it('lets the server-requested delay win', () => {
    expect(new RetryBudget(4, 5).next(http500(1234)).delayMs).toBe(1234);
  });

  it('never retries a non-retryable error', () => {
    const unauthorized = new ModelError('401', 'Unauthorized', { retryable: false, phase: 'request', httpStatus: 401 });
    expect(new RetryBudget(4, 5).next(unauthorized).retry).toBe(false);
    expect(exhaustedError(unauthorized, { retry: false, attempt: 0, max: 4, delayMs: 0 })).toBe(unauthorized);
  });

  it('says how many retries were spent when it gives up', () => {
    const err = exhaustedError(http500(), { retry: false, attempt: 4, max: 4, delayMs: 0 });
    expect(err.message).toBe('HTTP 500 (gave up after 4 retries)');
    expect(err.options.retryable).toBe(false);
  });
});
