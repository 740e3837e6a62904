import type {
  AskForApproval,
  ReasoningEffort,
  ReasoningSummary,
  SandboxPolicy,
  ServerNotification,
  ThreadItem,
  Turn,
  UserInput,
} from '../../src-preload/protocol';
import type { ModelClient } from '../model/types';
import type { ToolRegistry } from '../tools/registry';
import type { ServerRequestSender } from '../tools/types';

/** Settings a turn runs with. `turn/start` overrides stick for later turns. */
export interface TurnSettings {
  cwd: string;
  model: string;
  effort: ReasoningEffort | null;
  summary: ReasoningSummary | null;
  approvalPolicy: AskForApproval;
  sandboxPolicy: SandboxPolicy;
}

export type TurnOverrides = Partial<TurnSettings>;

export interface SessionOptions {
  threadId: string;
  settings: TurnSettings;
  baseInstructions: string;
  developerInstructions?: string | null;
  modelClient: ModelClient;
  tools: ToolRegistry;
  /** Answers server requests (approvals, user input); the host (app server, `weft exec`) provides it. */
  sendRequest: ServerRequestSender;
  retry: { requestMaxRetries: number; streamMaxRetries: number };
  /** Whether the model accepts `reasoning` parameters. */
  supportsReasoning: boolean;
  modelContextWindow: number | null;
  /** Called after an interrupt has stopped the turn (kill background exec sessions). */
  onInterrupt?: () => Promise<void> | void;
  /** Called once at shutdown, after the active turn has ended (kill exec sessions, close files). */
  onShutdown?: () => Promise<void> | void;
  env?: NodeJS.ProcessEnv;
  now?: () => Date;
}

/** Submissions into a session's queue (Codex's SQ). */
export type Op =
  | { type: 'userTurn'; input: UserInput[]; overrides?: TurnOverrides }
  | { type: 'steer'; input: UserInput[]; expectedTurnId?: string }
  | { type: 'interrupt' }
  | { type: 'shutdown' };

export type SessionEventListener = (event: ServerNotification) => void;

/** A turn as the UI knows it: items in completion order. */
export interface TurnRecord {
  turn: Turn;
  items: ThreadItem[];
}
