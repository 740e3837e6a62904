// `thread/read` from the store: the index row when no turns are asked for, else the rollout's turns (all,
// or a page), with the index's name for a Codex thread. What `ThreadStore.read` and `readAsync` share.
import type { Catalog, Located } from './catalog';
import type { LoadedThread, LoadOptions } from './loader';
import type { ReadThreadResult } from './store-types';
import { threadFromRow } from './thread-index';

export interface ReadOptions {
  includeTurns?: boolean | null;
  turnsCursor?: string | null;
  turnsLimit?: number | null;
}

/** The answer from the index alone (no turns asked for, and the thread has a row), else null. */
export function readFromIndex(catalog: Catalog, threadId: string, options: ReadOptions): ReadThreadResult | null {
  if (options.includeTurns) return null;
  const row = catalog.guard(() => catalog.index.get(threadId));
  if (!row) return null;
  return { thread: threadFromRow(row), turnDetails: [], olderTurnsCursor: null, totalTurns: null, warnings: [] };
}

/** How the rollout is loaded for a read: its turns only, never the model history. */
export function readLoadOptions(options: ReadOptions): LoadOptions {
  return { history: false, turnsLimit: options.turnsLimit, turnsCursor: options.turnsCursor };
}

/** The answer from the loaded rollout. */
export function readResult(loc: Located, options: ReadOptions, state: LoadedThread): ReadThreadResult {
  if (loc.origin === 'codex' && loc.attributes.name !== null) state.thread.name = loc.attributes.name;
  if (!options.includeTurns) state.thread.turns = [];
  return {
    thread: state.thread,
    turnDetails: options.includeTurns ? state.turnDetails : [],
    olderTurnsCursor: options.includeTurns ? state.olderTurnsCursor : null,
    totalTurns: options.includeTurns ? state.totalTurns : null,
    warnings: state.warnings,
  };
}
