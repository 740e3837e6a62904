// The shapes the thread store's API takes and gives (see thread-store.ts).
import type { GitInfo, RolloutWeftWorktree, Thread } from '../../src-preload/protocol';
import type { RolloutWriteError } from './errors';
import type { LoadedThread } from './loader';
import type { SessionRecorder } from './recorder';
import type { NewSubAgent } from './sub-agent-meta';
import type { TurnDetails } from './turn-items';

export interface ThreadStoreOptions {
  now?: () => Date;
  /** Problems that stopped nothing (unreadable files, index trouble, failed writes). Default: stderr. */
  onWarning?: (message: string) => void;
  /** Bring the index up to date in the background after opening (default true). */
  repair?: boolean;
  /**
   * A thread's rollout stopped or resumed being saved (a write refused, lines moved to a rescue file, all
   * written again). Default: `onWarning`. A recording's own `onError` takes the failures instead.
   */
  onThreadWarning?: (threadId: string, message: string) => void;
  /** Tuning of the rollout writers (tests shorten the retry interval). */
  writer?: { retryIntervalMs?: number; maxPendingBytes?: number; rescueDir?: string };
  /** Longest stretch of repair work between yields, in ms (default 8; tests use 0 to pause at every step). */
  repairSliceMs?: number;
}

export interface NewThreadMeta {
  id: string;
  cwd: string;
  modelProvider: string;
  model: string;
  /** "appServer", "exec", …; a sub-agent's is written from `subAgent` instead. */
  source: string;
  /** Null: the model's built-in instructions. */
  baseInstructions: string | null;
  forkedFromId?: string | null;
  forkedAtTurnId?: string | null;
  git?: GitInfo | null;
  /** The git worktree the thread works in (a worktree thread); absent or null: none. */
  weftWorktree?: RolloutWeftWorktree | null;
  /** A sub-agent a thread's model spawned: recorded as Codex does (its `source` then is the sub-agent's). */
  subAgent?: NewSubAgent | null;
}

export interface RecordingOptions {
  /** A write failed (lines are kept and retried); default: the store's onWarning. */
  onError?: (error: RolloutWriteError) => void;
}

/** A session recorder that also knows its file. */
export type ThreadRecorder = SessionRecorder & {
  readonly path: string;
  /** Resolves once every line recorded so far was handed to the OS (a process crash no longer loses it). */
  written(): Promise<void>;
};

export interface OpenedThread {
  state: LoadedThread;
  recorder: ThreadRecorder;
}

export interface ForkedThread extends OpenedThread {
  threadId: string;
  path: string;
}

export interface ReadThreadResult {
  /** With `turns` when `includeTurns` was asked (all, or the page). */
  thread: Thread;
  turnDetails: TurnDetails[];
  olderTurnsCursor: string | null;
  /** Live turns in all; null when turns were not read. */
  totalTurns: number | null;
  warnings: string[];
}

/** A thread working in a git worktree of its own (see `ThreadStore.worktreeThreads`). */
export interface WorktreeThread {
  thread: Thread;
  archived: boolean;
  worktree: RolloutWeftWorktree;
}

export interface ForkEntry {
  thread: Thread;
  forkedAtTurnId: string | null;
}
