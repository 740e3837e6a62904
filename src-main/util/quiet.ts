// Work that holds the event loop for tens of milliseconds (loading modules) is done when the host is
// quiet: once no request has come for a while, so that no client waits behind it.

export interface QuietWindow {
  /** A request came: the quiet starts over. */
  touch(): void;
  /** Never runs (the host is closing); a run already started goes on. */
  stop(): void;
}

/**
 * Runs `run` once no `touch` has come for `quietMs`, or `maxMs` from now at the latest (null: only when
 * quiet). Runs at most once.
 */
export function whenQuiet(quietMs: number, maxMs: number | null, run: () => void): QuietWindow {
  const deadline = maxMs === null ? null : Date.now() + maxMs;
  let timer: NodeJS.Timeout | null = null;
  let done = false;
  const arm = (): void => {
    if (done) return;
    if (timer !== null) clearTimeout(timer);
    const wait = deadline === null ? quietMs : Math.max(0, Math.min(quietMs, deadline - Date.now()));
    timer = setTimeout(() => {
      timer = null;
      done = true;
      run();
    }, wait);
  };
  arm();
  return {
    touch: arm,
    stop: () => {
      done = true;
      if (timer !== null) clearTimeout(timer);
      timer = null;
    },
  };
}
