// What sub-agents need from the thread that spawns them and from the host that makes their threads. A
// sub-agent is a thread of its own (its own session, history, rollout and turns); the host (the app
// server, `weft exec`) makes it the way it makes every thread, so that clients see, resume and answer it.
import type {
  ResponseItem,
  ServerNotification,
  TokenUsageBreakdown,
  Turn,
  UserInput,
} from '../../../src-preload/protocol';
import type { ContextReference } from '../../context/initial-context';
import type { CoreNotification } from '../../tools/types';
import type { TurnSettings } from '../types';

/** A role a sub-agent may be spawned as (`[agents.<name>]` in config.toml, `agent_type` of spawn_agent). */
export interface AgentRole {
  description: string;
  /** Added to the sub-agent's developer instructions; absent = the thread's own. */
  developerInstructions?: string;
  model?: string;
  effort?: string;
}

/** What a sub-agent's controller uses of its session (the core's `Session` is one). */
export interface AgentSession {
  readonly threadId: string;
  readonly activeTurnId: string | null;
  /** Its rollout; null when it is not saved (an ephemeral parent's). */
  readonly transcriptPath: string | null;
  /** What the thread has used so far, its own sub-agents' included; null before its first model answer. */
  readonly tokenUsage: { readonly total: TokenUsageBreakdown } | null;
  contextRef: ContextReference | null;
  startTurn(input: UserInput[]): Promise<Turn>;
  interrupt(): Promise<void>;
  subscribe(listener: (n: ServerNotification) => void): () => void;
  /** Tells the thread's clients (and its rollout) something that happened in it (a hook run about it). */
  emit(event: CoreNotification): void;
  appendHistory(...items: ResponseItem[]): void;
}

/** Where a thread is in its session tree: a thread a person started is its own root, at depth 0. */
export interface AgentTreePosition {
  /** The root thread's id. */
  readonly sessionId: string;
  /** How deep below the root the thread is (1 for a child of the root). */
  readonly depth: number;
}

/** What a sub-agent's controller uses of the thread that spawns it. */
export interface ParentLink extends AgentTreePosition {
  readonly threadId: string;
  settings(): TurnSettings;
  history(): readonly ResponseItem[];
  contextRef(): ContextReference | null;
  /** News for the parent's model: joins its running turn's next request, or waits for its next turn. */
  addModelInput(item: ResponseItem): void;
  /** A sub-agent's tokens, counted in the parent's total. */
  addChildUsage(usage: TokenUsageBreakdown): void;
}

/** A new sub-agent, as the host makes its thread. */
export interface SubAgentSpec {
  threadId: string;
  parentThreadId: string;
  /** The root thread's id. */
  sessionId: string;
  /** 1 for a child of a root thread. */
  depth: number;
  nickname: string;
  role: string | null;
  /** The parent's cwd, sandbox and approvals now, with the model and effort asked for. */
  settings: TurnSettings;
  /** The role's developer instructions; null = the config's. */
  developerInstructions: string | null;
}

/** How a host makes, reopens and lets go of sub-agent threads. */
export interface SubAgentHost {
  /** Makes the sub-agent's thread (saved as any thread, unless the parent is ephemeral) and its session. */
  create(spec: SubAgentSpec): Promise<AgentSession>;
  /**
   * Loads a saved sub-agent of `parentThreadId` again (resume_agent); null when `threadId` names none of
   * its sub-agents.
   */
  reopen(
    threadId: string,
    parentThreadId: string,
  ): Promise<{ session: AgentSession; nickname: string; role: string | null } | null>;
  /** The parent closed the sub-agent: its thread is no longer held for it (it stays a saved thread). */
  release(threadId: string): Promise<void>;
}
