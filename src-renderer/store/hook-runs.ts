// A turn's hook runs, each placed after the item it ran after. One function tells a run to the list, for
// live notifications (`hook/started`, `hook/completed`) and for the runs a turn read from disk brings
// (`Turn.weftHookRuns`), so a reloaded thread shows its runs as they were shown live.
import type { HookRunSummary, WeftHookRunPlace } from '../../src-preload/protocol';
import { sameJson } from './same-json';

/**
 * `hooks` with `run` told. A run starting is a new entry after `afterItemId` (the same hook runs again, e.g.
 * Stop after a continuation, as its own entry); a run ending replaces the entry of its start, or is a new
 * entry when its start was not seen. Null when nothing changed; `added` when the list grew (a new row).
 */
export function withHookRun(
  hooks: readonly WeftHookRunPlace[],
  run: HookRunSummary,
  afterItemId: string | null,
): { hooks: WeftHookRunPlace[]; added: boolean } | null {
  let at = -1;
  for (let i = hooks.length - 1; i >= 0; i--) {
    if (hooks[i]?.run.id === run.id) {
      at = i;
      break;
    }
  }
  const existing = at >= 0 ? hooks[at] : undefined;
  if (existing !== undefined && sameJson(existing.run, run)) return null;
  if (existing !== undefined && existing.run.status === 'running') {
    return { hooks: hooks.map((h, i) => (i === at ? { run, afterItemId: h.afterItemId } : h)), added: false };
  }
  return { hooks: [...hooks, { run, afterItemId }], added: true };
}

/** The runs a turn read from disk brings, told one by one as live. */
export function recordedHookRuns(places: readonly WeftHookRunPlace[] | undefined): WeftHookRunPlace[] {
  let hooks: WeftHookRunPlace[] = [];
  for (const place of places ?? []) hooks = withHookRun(hooks, place.run, place.afterItemId)?.hooks ?? hooks;
  return hooks;
}
