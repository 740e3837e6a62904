import type { LiveView } from '../browser/live-view';
import type { HookEngine } from './hooks/engine';
import type {
  AskForApproval,
  ResponseItem,
  ThreadTokenUsage,
  TokenUsageBreakdown,
  ReasoningSummary,
  SandboxPolicy,
  StoppedCommand,
  ServerNotification,
  ThreadItem,
  Turn,
  UserInput,
  WeftDiffCut,
  WeftHookRunPlace,
} from '../../src-preload/protocol';
import type { ContextReference } from '../context/initial-context';
import type { ReviewTurnInput } from './review-turn';
import type { ModelClient } from '../model/types';
import type { PriceTable } from '../model/prices';
import type { McpManager } from '../mcp/manager';
import type { ToolRegistry } from '../tools/registry';
import type { FileCheckpoints } from '../tools/file-checkpoints';
import type { BackgroundSessions } from '../tools/background-changes';
import type { SafetyServices } from '../tools/safety-services';
import type { CommandEnvPolicy } from '../safety/command-env';
import type { HostRequestSender } from '../tools/types';
import type { SessionRecorder } from '../store/recorder';

/** Settings a turn runs with. `turn/start` overrides stick for later turns. */
export interface TurnSettings {
  cwd: string;
  model: string;
  /** Any effort the model supports (Weft's pickers know `ReasoningEffort`'s values). */
  effort: string | null;
  summary: ReasoningSummary | null;
  approvalPolicy: AskForApproval;
  sandboxPolicy: SandboxPolicy;
  /**
   * Whether the model is offered `request_user_input` (may ask a question). False while nobody is there to
   * answer: an automation's run (see ARCHITECTURE.md "Automations", who may be asked); a sub-agent has its
   * parent's.
   */
  questions: boolean;
}

export type TurnOverrides = Partial<TurnSettings>;

/** Options for one turn only (they do not stick). */
export interface TurnOptions {
  /** A JSON Schema the turn's final answer must follow; absent = free text. */
  outputSchema?: Record<string, unknown> | null;
  /** The client that asks for the turn (its `clientInfo.name`; `weft_exec`), told to the `notify` program. */
  client?: string;
}

export interface SessionOptions {
  threadId: string;
  settings: TurnSettings;
  baseInstructions: string;
  developerInstructions?: string | null;
  modelClient: ModelClient;
  tools: ToolRegistry;
  /** Answers server requests (approvals, user input); the host (app server, `weft exec`) provides it. */
  sendRequest: HostRequestSender;
  retry: { requestMaxRetries: number; streamMaxRetries: number };
  /** Whether the model accepts `reasoning` parameters. */
  supportsReasoning: boolean;
  /** Each model's price, for the cost in `thread/tokenUsage/updated`; absent = Weft's default prices. */
  prices?: PriceTable;
  modelContextWindow: number | null;
  /** Called after an interrupt has stopped the turn (kill background exec sessions). */
  onInterrupt?: () => Promise<void> | void;
  /** Stops the commands the model left running after its turns (exec sessions); returns them. */
  stopBackgroundCommands?: (reason: string) => Promise<StoppedCommand[]>;
  env?: NodeJS.ProcessEnv;
  /** What commands the session runs itself start with (`shell_environment_policy`); default: the default filter. */
  envPolicy?: CommandEnvPolicy;
  now?: () => Date;
  /** Approval rules, session approvals and the OS sandbox: every command and patch goes through them. */
  safety: SafetyServices;
  /** Checkpoints of the files each tool call changes; absent = none. */
  checkpoints?: FileCheckpoints;
  /** The commands left running in the background (the exec engine), whose changes belong to their turns. */
  background?: BackgroundSessions;
  /** Persists the thread as it happens; absent for ephemeral threads. */
  recorder?: SessionRecorder;
  /** State of a resumed or forked thread. */
  initial?: {
    history: ResponseItem[];
    /**
     * Reads the rest of the history when the first turn needs it (a resumed thread: the resume answers
     * without parsing it). Its items come before `history`; what it had to skip is told as warnings.
     */
    loadHistory?: () => Promise<{ items: ResponseItem[]; warnings: string[] }>;
    /** `turns` are the newest of the thread: this pages the older ones (`thread/turns/list`); else null. */
    olderTurnsCursor?: string | null;
    turns: TurnRecord[];
    tokenUsage: ThreadTokenUsage | null;
    /** `tokenUsage.total` by model; absent or null = none known (a thread without usage). */
    usageByModel?: Readonly<Record<string, TokenUsageBreakdown>> | null;
    /** What the model was last told about cwd and permissions, if anything. */
    contextRef: ContextReference | null;
  };
  /** Compact automatically once the context reaches this many tokens; null = never automatically. */
  autoCompactTokenLimit?: number | null;
  /** The thread's MCP servers; absent when none are configured. */
  mcp?: McpManager;
  /** The thread's lifecycle hooks; absent when none are configured. */
  hooks?: HookEngine;
  /** The live view of the thread's browser; absent when the browser tools are off. */
  browserLive?: LiveView;
  /** Where project context comes from (AGENTS.md, skills); absent = environment context only. */
  context?: {
    weftHome: string;
    projectDocMaxBytes: number;
    projectDocFallbackFilenames: readonly string[];
    projectRootMarkers: readonly string[];
  };
}

/** Where a session writes its history as it happens: the thread store's recorder (one interface). */
export type { SessionRecorder };

/** Submissions into a session's queue (Codex's SQ). */
export type Op =
  | { type: 'userTurn'; input: UserInput[]; overrides?: TurnOverrides; options?: TurnOptions }
  | { type: 'compact' }
  | { type: 'userShell'; command: string; timeoutMs: number }
  | { type: 'worktreeSetup'; script: string }
  | { type: 'review'; review: ReviewTurnInput }
  | { type: 'steer'; input: UserInput[]; expectedTurnId?: string }
  | { type: 'interrupt' }
  | { type: 'shutdown' };

export type SessionEventListener = (event: ServerNotification) => void;

/** A turn as the UI knows it: items in completion order. */
export interface TurnRecord {
  turn: Turn;
  /** Completed items, in the order they completed. */
  items: ThreadItem[];
  /**
   * Items started and not completed yet (a command running, a patch waiting for review, an answer
   * streaming: its text so far), so that a client attaching mid-turn sees them; absent on turns read from disk.
   */
  open?: Map<string, ThreadItem>;
  /** The turn's latest aggregated diff (`turn/diff/updated`), for clients that attach later. */
  diff?: string;
  /** Its totals when it was cut (`weftDiffCut`). */
  diffCut?: WeftDiffCut;
  /** Hook runs that ended in this process, each after the item completed last before it (as the rollout has them). */
  hookRuns?: WeftHookRunPlace[];
}
