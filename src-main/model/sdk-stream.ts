import OpenAI from 'openai';
import { ModelError } from './errors';
import { abortReason, classifyRequestError, classifyStreamError, idleError } from './request-errors';
import { wholeEventsFetch } from './sse-events';

/** Where a provider's API lives and how to authenticate, as both wire APIs need it. */
export interface EndpointOptions {
  baseUrl: string;
  apiKey: string | null;
  headers?: Record<string, string>;
  queryParams?: Record<string, string>;
  /** No event for this long ends the attempt as a dropped stream. */
  streamIdleTimeoutMs: number;
}

/**
 * An SDK client that never retries by itself: Weft's retry budgets decide (see retry.ts). `sdkReadsStreams`:
 * the SDK reads its event streams itself, so they reach it one whole event per chunk (see sse-events.ts).
 */
export function createSdk(options: EndpointOptions, sdkReadsStreams = false): OpenAI {
  return new OpenAI({
    // The SDK insists on a key; endpoints without auth ignore the header.
    apiKey: options.apiKey ?? 'unused',
    baseURL: options.baseUrl,
    maxRetries: 0,
    timeout: 10 * 60_000,
    defaultHeaders: options.headers,
    defaultQuery: options.queryParams,
    ...(sdkReadsStreams ? { fetch: wholeEventsFetch() } : {}),
  });
}

/**
 * The raw events of one streamed request, with what both wire APIs share: failures classified as
 * `ModelError`s (request vs stream phase), an idle timeout, and the caller's abort surfacing as an
 * error even though the SDK ends its iteration quietly. Ends normally when the server ends the stream.
 */
export async function* guardedStream(
  open: (signal: AbortSignal) => Promise<AsyncIterable<unknown>>,
  signal: AbortSignal,
  idleMs: number,
): AsyncGenerator<unknown, void, undefined> {
  const idle = new AbortController();
  let stream: AsyncIterable<unknown>;
  try {
    stream = await open(AbortSignal.any([signal, idle.signal]));
  } catch (error) {
    throw classifyRequestError(error, signal);
  }
  let timer: NodeJS.Timeout | undefined;
  const armIdle = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => idle.abort(), idleMs);
  };
  try {
    armIdle();
    for await (const raw of stream) {
      armIdle();
      yield raw;
    }
  } catch (error) {
    if (error instanceof ModelError) throw error;
    if (signal.aborted) throw abortReason(signal);
    throw classifyStreamError(error, idle.signal.aborted, idleMs);
  } finally {
    clearTimeout(timer);
  }
  if (signal.aborted) throw abortReason(signal);
  if (idle.signal.aborted) throw idleError(idleMs);
}
