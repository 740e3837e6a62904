/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortError(signal));
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortError(signal));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export class AbortedError extends Error {
  constructor(message = 'aborted') {
    super(message);
    this.name = 'AbortedError';
  }
}

export function abortError(signal?: AbortSignal): Error {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason : new AbortedError();
}

export function isAbortError(error: unknown): boolean {
  return (
    error instanceof Error &&
    (error.name === 'AbortError' || error.name === 'AbortedError' || error.name === 'APIUserAbortError')
  );
}

/** A signal that follows others until it is disposed. */
export interface LinkedSignal {
  readonly signal: AbortSignal;
  /** Aborts this signal only (the sources are left alone). */
  abort(reason?: unknown): void;
  /** Stops following the sources: call it when the work the signal guarded has ended. */
  dispose(): void;
}

/**
 * A signal that aborts (with the same reason) as soon as any of `sources` does, or when `abort` is called.
 * Used instead of `AbortSignal.any`: Node keeps a composite signal that has listeners alive for as long as
 * one of its sources lives and has not aborted (nodejs/node#55351), so a composite made per request from a
 * long-lived signal, with the SDK's listener on it, keeps that request (and what it reaches) forever. Here
 * the only link is a listener on each source, removed by `dispose`.
 */
export function linkedSignal(sources: readonly AbortSignal[]): LinkedSignal {
  const controller = new AbortController();
  const follow = (source: AbortSignal) => (): void => {
    dispose();
    controller.abort(source.reason);
  };
  const links = sources.map((source) => ({ source, onAbort: follow(source) }));
  const dispose = (): void => {
    for (const { source, onAbort } of links) source.removeEventListener('abort', onAbort);
  };
  for (const { source, onAbort } of links) {
    if (source.aborted) {
      onAbort();
      break;
    }
    source.addEventListener('abort', onAbort, { once: true });
  }
  return {
    signal: controller.signal,
    abort: (reason?: unknown) => {
      dispose();
      controller.abort(reason);
    },
    dispose,
  };
}
