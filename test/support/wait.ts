// Event-driven waiting for tests: resolve when a matching event arrives, never after a sleep.
// The timeout is a deadlock guard, set well above any real wait; when it fires, the error names what
// was awaited and shows the last events seen, so a hung test explains itself.

/** Registers `listener` for events; returns the function that unregisters it. */
export type Subscribe<T> = (listener: (event: T) => void) => () => void;

export interface WaitForOptions {
  /** Deadlock guard: reject after this long. Default 15 000 ms. */
  timeoutMs?: number;
  /** What is being awaited, for the error message, e.g. `turn/completed`. */
  label?: string;
}

const DEFAULT_TIMEOUT_MS = 15_000;
const EVENTS_SHOWN = 5;
const EVENT_CHARS = 300;

/**
 * Resolves with the first event from `subscribe` matching `predicate`, then unsubscribes.
 * Only events delivered after the call are seen: subscribe before triggering what emits them.
 */
export function waitFor<T, U extends T>(
  subscribe: Subscribe<T>,
  predicate: (event: T) => event is U,
  options?: WaitForOptions,
): Promise<U>;
export function waitFor<T>(
  subscribe: Subscribe<T>,
  predicate: (event: T) => boolean,
  options?: WaitForOptions,
): Promise<T>;
export async function waitFor<T>(
  subscribe: Subscribe<T>,
  predicate: (event: T) => boolean,
  options: WaitForOptions = {},
): Promise<T> {
  const events = await collectUntil(subscribe, predicate, options);
  const match = events[events.length - 1];
  if (match === undefined) throw new Error('waitFor: collectUntil resolved without an event');
  return match;
}

/** Resolves with every event seen, up to and including the first one matching `predicate`. */
export function collectUntil<T>(
  subscribe: Subscribe<T>,
  predicate: (event: T) => boolean,
  options: WaitForOptions = {},
): Promise<T[]> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const label = options.label ?? 'unlabelled wait';
  return new Promise<T[]>((resolve, reject) => {
    const seen: T[] = [];
    let settled = false;
    let unsubscribe: (() => void) | undefined;

    const finish = (outcome: () => void): void => {
      settled = true;
      clearTimeout(timer);
      unsubscribe?.();
      outcome();
    };
    const timer = setTimeout(() => {
      finish(() => reject(new Error(timeoutMessage(label, timeoutMs, seen))));
    }, timeoutMs);

    const listener = (event: T): void => {
      if (settled) return;
      seen.push(event);
      let matched: boolean;
      try {
        matched = predicate(event);
      } catch (error) {
        finish(() => reject(error instanceof Error ? error : new Error(String(error))));
        return;
      }
      if (matched) finish(() => resolve(seen));
    };
    const stop = subscribe(listener);
    // The listener may have matched synchronously, during subscribe, before `stop` existed.
    if (settled) stop();
    else unsubscribe = stop;
  });
}

function timeoutMessage<T>(label: string, timeoutMs: number, seen: readonly T[]): string {
  const recent = seen.slice(-EVENTS_SHOWN).map((event) => `  ${describe(event)}`);
  const shown = recent.length === 0 ? 'no events at all' : `the last ${recent.length}:\n${recent.join('\n')}`;
  return (
    `waitFor(${label}): no matching event within ${timeoutMs} ms (a deadlock guard; ` +
    'nothing should take this long). ' +
    `Saw ${seen.length} events, ${shown}`
  );
}

function describe(event: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(event) ?? String(event);
  } catch {
    text = String(event);
  }
  return text.length > EVENT_CHARS ? `${text.slice(0, EVENT_CHARS)}…` : text;
}
