import type OpenAI from 'openai';
import { ModelError } from './errors';
import { linkedSignal } from '../util/abort';
import { abortReason, classifyRequestError, classifyStreamError, idleError } from './request-errors';
import { nodeFetch } from './node-fetch';
import { wholeEventsFetch } from './sse-events';
import { warmModelClient } from './warm';

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
 * The SDK (about 300 KB with its resource classes) is loaded with the first model request, not at import:
 * a host that lists, reads or resumes threads never needs it.
 */
export async function createSdk(options: EndpointOptions, sdkReadsStreams = false): Promise<OpenAI> {
  // Loaded as the host's warm-up loads it (ahead, when the host was quiet; else now): the SDK, then a turn
  // of the event loop, then Node's fetch, never one stretch of both.
  await warmModelClient();
  const { default: OpenAI } = await import('openai');
  return new OpenAI({
    // The SDK insists on a key; endpoints without auth ignore the header.
    apiKey: options.apiKey ?? 'unused',
    baseURL: options.baseUrl,
    maxRetries: 0,
    timeout: 10 * 60_000,
    defaultHeaders: options.headers,
    defaultQuery: options.queryParams,
    fetch: sdkReadsStreams ? wholeEventsFetch(nodeFetch()) : nodeFetch(),
  });
}

/** One SDK client per model client, made on first use (see `createSdk`). */
export function lazySdk(options: EndpointOptions, sdkReadsStreams = false): () => Promise<OpenAI> {
  let sdk: Promise<OpenAI> | null = null;
  return () => {
    sdk ??= createSdk(options, sdkReadsStreams);
    // A failed load is not kept: the next request tries again.
    sdk.catch(() => (sdk = null));
    return sdk;
  };
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
  // The attempt's own signal: the caller's abort or the idle timer ends it. Its link to the caller's
  // signal is removed when the attempt ends (see `linkedSignal`: never `AbortSignal.any` here).
  const attempt = linkedSignal([signal]);
  let idle = false;
  let timer: NodeJS.Timeout | undefined;
  try {
    let stream: AsyncIterable<unknown>;
    try {
      stream = await open(attempt.signal);
    } catch (error) {
      throw classifyRequestError(error, signal);
    }
    const armIdle = (): void => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        idle = true;
        attempt.abort();
      }, idleMs);
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
      throw classifyStreamError(error, idle, idleMs);
    }
    if (signal.aborted) throw abortReason(signal);
    if (idle) throw idleError(idleMs);
  } finally {
    clearTimeout(timer);
    attempt.dispose();
  }
}
