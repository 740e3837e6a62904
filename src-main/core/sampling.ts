// One model response as a turn asks for it: streamed into thread items, retried on drops and 5xx/429
// within the provider's budgets (Codex's two budgets and backoff), each retry told to clients as
// `Reconnecting... n/max`. A retry carries on the items the failed attempt began (see SampleCollector).
import type { ThreadItem } from '../../src-preload/protocol';
import { ModelError } from '../model/errors';
import { exhaustedError, RetryBudget } from '../model/retry';
import type { ModelRequest } from '../model/types';
import type { CoreNotification } from '../tools/types';
import { abortError, delay } from '../util/abort';
import { errorMessage } from '../util/errors';
import { SampleCollector, type CarriedItems, type CollectorHost, type SampleOutcome } from './sample-collector';
import type { SessionOptions } from './types';

/** What sampling needs of the session. */
export interface SamplingHost {
  readonly options: SessionOptions;
  emit(notification: CoreNotification): void;
  /** Sends a notification to clients without recording it; returns what records it later. */
  announce(notification: CoreNotification): () => void;
  /** Takes back an item clients were shown that is not part of the turn: it completes empty and leaves it. */
  withdraw(turnId: string, item: ThreadItem): void;
}

/**
 * Streams `request()` (built again for each attempt) until one attempt succeeds or the budgets are spent.
 * `quiet`: the items are collected but not shown or recorded (a review's raw answer).
 */
export async function sampleWithRetries(
  session: SamplingHost,
  turn: { turnId: string; request: () => ModelRequest; signal: AbortSignal; quiet: boolean },
): Promise<SampleOutcome> {
  const o = session.options;
  const { turnId, signal } = turn;
  const budget = new RetryBudget(o.retry.requestMaxRetries, o.retry.streamMaxRetries);
  const host: CollectorHost = turn.quiet
    ? { announce: () => () => undefined, withdraw: () => undefined }
    : { announce: (n) => session.announce(n), withdraw: (id, item) => session.withdraw(id, item) };
  // A failed attempt's items, carried on by the next one.
  let carried: CarriedItems | null = null;
  for (;;) {
    const collector: SampleCollector = new SampleCollector(o.threadId, turnId, host, carried);
    try {
      for await (const event of o.modelClient.stream(turn.request(), signal)) collector.handle(event);
      return await collector.outcome();
    } catch (e) {
      if (signal.aborted) {
        await collector.abandon();
        throw abortError(signal);
      }
      const err =
        e instanceof ModelError ? e : new ModelError(errorMessage(e), 'Other', { retryable: false, phase: 'stream' });
      const decision = budget.next(err);
      if (!decision.retry) {
        await collector.abandon();
        throw exhaustedError(err, decision);
      }
      const left = collector.suspend();
      carried = left;
      session.emit({
        method: 'error',
        params: {
          error: {
            message: `Reconnecting... ${decision.attempt}/${decision.max}`,
            codexErrorInfo: codexErrorInfo(err.info),
            additionalDetails: err.message,
          },
          willRetry: true,
          threadId: o.threadId,
          turnId,
        },
      });
      try {
        await delay(decision.delayMs, signal);
      } catch (stopped) {
        // Interrupted while waiting to retry: the failed attempt was the last one.
        await SampleCollector.close(o.threadId, turnId, host, left);
        throw stopped;
      }
    }
  }
}

/** Codex's v2 wire spelling of its error kinds: camelCase. */
export function codexErrorInfo(info: ModelError['info']): string {
  return info.charAt(0).toLowerCase() + info.slice(1);
}
