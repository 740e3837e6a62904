// The renderer's data, as fed by protocol notifications and request results. Plain data only: the
// reducers in this folder are the only code that builds new versions of it, and they never mutate a
// version someone else may hold (see draft.ts).
import type {
  WeftHookRunPlace,
  WeftFork,
  Thread,
  ThreadItem,
  ThreadReadState,
  ThreadStatus,
  ThreadTokenUsage,
  TurnError,
  TurnPlanStep,
  TurnStatus,
  WeftDiffCut,
  WeftAutomationRunEndedNotification,
  WeftEnvironmentStatusNotification,
  WeftTokenCost,
} from '../../src-preload/protocol';
import type { IncomingServerRequest } from '../client/types';

/** Characters of command output an item keeps; older output is dropped (xterm keeps its own scrollback). */
export const OUTPUT_TAIL_CHARS = 256 * 1024;

/**
 * The bounded tail of a command's output (see output-tail.ts). `chunks` joined are the last `kept`
 * characters; `total` counts every character ever received; `epoch` changes when the output was replaced
 * rather than appended to (a view must then redraw from scratch).
 */
export interface OutputTail {
  chunks: string[];
  kept: number;
  total: number;
  epoch: number;
}

export interface ItemEntry {
  item: ThreadItem;
  /**
   * `item/completed` was seen (or the item came from a finished turn): the item is final, and a replayed
   * `item/started` or a late delta for it changes nothing.
   */
  completed: boolean;
  /** commandExecution only: its output so far (the item's own `aggregatedOutput` is kept null). */
  output: OutputTail | null;
  /** mcpToolCall only, while it runs: the server's latest progress (numbers null when it sent none). */
  progress?: McpProgress | null;
}

export interface McpProgress {
  message: string;
  progress: number | null;
  total: number | null;
}

/** Something that happened during a turn: an error, a retry in progress, a warning. */
export interface Notice {
  kind: 'error' | 'retry' | 'warning';
  message: string;
  details: string | null;
}

export interface PlanView {
  explanation: string | null;
  steps: TurnPlanStep[];
}

export interface TurnView {
  id: string;
  status: TurnStatus;
  error: TurnError | null;
  startedAt: number | null;
  completedAt: number | null;
  durationMs: number | null;
  /** Item ids in the order the items started. */
  itemIds: string[];
  items: Record<string, ItemEntry>;
  /** The turn's aggregated unified diff (latest snapshot); null when it changed no files. */
  diff: string | null;
  /** The whole diff's totals when `diff` was cut to what a message carries; null when it is whole. */
  diffCut: WeftDiffCut | null;
  /** Files in the turn's diff as last told (counted once, not on every render). */
  diffFiles: number;
  /**
   * The server said the diff changed since `diff` was read (`weft/turn/diffChanged`): a view that shows
   * the text reads it again (`weft/turn/diff`); the rest use `diffFiles` and `diffCut`.
   */
  diffStale: boolean;
  plan: PlanView | null;
  notices: Notice[];
  /**
   * The turn's hook runs in the order they started (`hook/started`, then `hook/completed` replacing it; a
   * turn read from disk: its recorded runs), each with the item it ran after.
   */
  hooks: WeftHookRunPlace[];
}

export interface Conversation {
  threadId: string;
  /**
   * Bumped whenever a turn or an item is added (the list of rows changes); not by text streaming into an
   * item. Views that only care about the shape of the conversation watch this and `turnIds`.
   */
  shape: number;
  turnIds: string[];
  turns: Record<string, TurnView>;
  tokenUsage: ThreadTokenUsage | null;
  /**
   * The thread has turns before the first loaded one: the cursor that pages them (`thread/turns/list`);
   * null when `turnIds` starts at the thread's first turn.
   */
  olderTurnsCursor: string | null;
}

export interface AppData {
  /** The project shown (the one the switcher points at); null until one is chosen. */
  cwd: string | null;
  /** Live threads of the project, newest first. */
  live: Thread[];
  archived: Thread[];
  /**
   * The live threads of the other projects open in the window, by project folder (their first page, newest
   * first): the board's counts and "Needs me" cover them too.
   */
  elsewhere: Record<string, Thread[]>;
  /** Latest status per thread id, from lists and notifications. */
  statuses: Record<string, ThreadStatus>;
  /** How each thread's latest turn ended (or `inProgress`), from lists and notifications. */
  lastTurnStatus: Record<string, TurnStatus>;
  /** Whether each thread was read since its last turn ended, from lists and notifications (absent: read). */
  readStates: Record<string, ThreadReadState>;
  /** Loaded conversations by thread id. */
  conversations: Record<string, Conversation>;
  /** Server requests awaiting an answer, oldest first. */
  approvals: IncomingServerRequest[];
  /** Server-wide warnings (newest last, at most MAX_WARNINGS). */
  warnings: Notice[];
  /** MCP servers that failed to start or exited, by name → why (cleared when one is ready again). */
  mcpFailures: Record<string, string>;
  /** Forks with their own copy of the project (worktree or copy) made from this project's threads, by thread id. */
  forks: Record<string, WeftFork>;
  /** The latest cost the server told of each thread (`weftCost` of `thread/tokenUsage/updated`), by thread id. */
  costs: Record<string, WeftTokenCost>;
  /** The link to the remote environment this server relays to (`weft/environment/status`); null: none told. */
  link: WeftEnvironmentStatusNotification | null;
  /**
   * Runs of automations that ended since the page connected, oldest first (at most MAX_ENDED_RUNS): the
   * Automations screen reloads on each, and the notifier tells of those whose `notify` is set.
   */
  endedRuns: WeftAutomationRunEndedNotification[];
}

export const MAX_WARNINGS = 5;
export const MAX_ENDED_RUNS = 20;

export function emptyAppData(cwd: string | null = null): AppData {
  return {
    cwd,
    live: [],
    archived: [],
    elsewhere: {},
    statuses: {},
    lastTurnStatus: {},
    readStates: {},
    conversations: {},
    approvals: [],
    warnings: [],
    mcpFailures: {},
    forks: {},
    costs: {},
    link: null,
    endedRuns: [],
  };
}
