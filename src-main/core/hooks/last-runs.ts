/**
 * The latest run of each hook in this process (by hook key), for `hooks/list`'s `weftLastRun` (Settings →
 * Hooks shows it). Bounded: one entry per configured hook key, at most `MAX_KEYS` keys.
 */
import type { HookRunSummary } from '../../../src-preload/protocol';

const MAX_KEYS = 500;
const runs = new Map<string, HookRunSummary>();

export function noteLastRun(key: string, run: HookRunSummary): void {
  runs.delete(key);
  runs.set(key, run);
  if (runs.size > MAX_KEYS) {
    const oldest = runs.keys().next();
    if (!oldest.done) runs.delete(oldest.value);
  }
}

export function lastRunOf(key: string): HookRunSummary | null {
  return runs.get(key) ?? null;
}
