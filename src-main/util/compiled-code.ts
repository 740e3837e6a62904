// Keeping the code V8 compiled for a run of a one-file command (`weft exec` and the hosts: `app-server`,
// `serve`, `mcp-server`, `acp`) for the next run: bin/weft.js runs those files with such code and puts the
// two functions it answers to on `globalThis` (see `runWithKeptCode` there); anywhere else these do nothing.

/**
 * Says that this run went the way a run of its command usually goes (a turn was run, a host started),
 * so the code V8 compiled for it is worth keeping for the next run: bin/weft.js saves it at exit when it has
 * none yet for this build (see `runWithKeptCode` there). A run that only printed help or refused its
 * arguments says nothing. Outside bin/weft.js's one-file commands, nothing happens.
 */
export function keepCompiledCode(): void {
  (globalThis as Record<symbol, unknown>)[Symbol.for('weft.keepCompiledCode')] = true;
}

/**
 * Saves the code compiled so far now, rather than at exit, when bin/weft.js has none yet for this build: a
 * host does it once it is assembled and quiet, so that the next start has its start-up's code even when this
 * process is killed. A synchronous write of about 1–2 MB (once per build and Node); nothing elsewhere.
 */
export function saveCompiledCode(): void {
  const save = (globalThis as Record<symbol, unknown>)[Symbol.for('weft.saveCompiledCode')];
  if (typeof save === 'function') save();
}
