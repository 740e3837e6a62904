// The sub-agents of one thread: spawns them through the host, follows each one's state from its session's
// notifications, and does what the model's sub-agent tools ask (send, wait, close, resume). A sub-agent is
// open from its spawn (or resume) until it is closed: open ones count toward `agents.max_threads` whether
// they run or not, as in Codex. When a sub-agent's turn ends, the parent's model is told
// (`<subagent_notification>`); its tokens count in the parent's total. Interrupting the parent interrupts
// them; closing the parent's session closes them.
import type { SubAgentLifecycle } from '../hooks/engine';
import {
  agentStatusFormOf,
  isFinalAgentState,
  isKnownResponseItem,
  type CollabAgentState,
  type ServerNotification,
  type TokenUsageBreakdown,
  type UserInput,
} from '../../../src-preload/protocol';
import type { ResponseItem } from '../../../src-preload/protocol';
import type { Disposable } from '../../util/disposable';
import { uuidv7 } from '../../util/ids';
import { nicknameFor } from './nicknames';
import type { AgentRole, AgentSession, ParentLink, SubAgentHost } from './types';

/**
 * A refusal the model reads as the call's output (a limit, an unknown agent or role); `states` are the
 * receivers' states the failed item shows (an unknown agent is `notFound`).
 */
export class AgentCallError extends Error {
  constructor(
    message: string,
    readonly states: Record<string, CollabAgentState> = {},
  ) {
    super(message);
  }
}

const notFound = (id: string): AgentCallError =>
  new AgentCallError(`agent with id ${id} not found`, { [id]: { status: 'notFound', message: null } });

interface Child {
  readonly id: string;
  readonly nickname: string;
  readonly role: string | null;
  readonly session: AgentSession;
  state: CollabAgentState;
  /** The sub-agent's total usage already counted in the parent's. */
  counted: TokenUsageBreakdown;
  /** The newest answer of the turn running (or last run). */
  lastMessage: string | null;
  /** Spawned and its first turn not started yet: SubagentStart is told with that turn. */
  startUntold: boolean;
  /**
   * Input given and not yet answered: the turn that took it (null until its session says which). Another
   * turn's end (one that was ending as the input came) does not make the sub-agent finished.
   */
  awaiting: { turnId: string | null } | null;
  unsubscribe(): void;
}

export interface SpawnRequest {
  input: UserInput[];
  role: string | null;
  model: string | null;
  effort: string | null;
  forkContext: boolean;
}

export interface AgentControlOptions {
  parent: ParentLink;
  host: SubAgentHost;
  /** At most this many sub-agents are open at once (`agents.max_threads`). */
  maxThreads: number;
  /** A sub-agent is at most this deep below the root thread (`agents.max_depth`). */
  maxDepth: number;
  roles: Readonly<Record<string, AgentRole>>;
  /**
   * Told when a spawned sub-agent's first turn starts and each time one of its turns ends (SubagentStart
   * and SubagentStop hooks); never waited for.
   */
  onLifecycle?: (event: 'start' | 'stop', child: SubAgentLifecycle) => void;
}

const NOT_STARTED: CollabAgentState = { status: 'pendingInit', message: null };

const NO_USAGE: TokenUsageBreakdown = {
  totalTokens: 0,
  inputTokens: 0,
  cachedInputTokens: 0,
  outputTokens: 0,
  reasoningOutputTokens: 0,
};

/** `now` less `before`, field by field; null when nothing grew (a repeat of the same total). */
function usageGrowth(before: TokenUsageBreakdown, now: TokenUsageBreakdown): TokenUsageBreakdown | null {
  const grown = {
    totalTokens: Math.max(0, now.totalTokens - before.totalTokens),
    inputTokens: Math.max(0, now.inputTokens - before.inputTokens),
    cachedInputTokens: Math.max(0, now.cachedInputTokens - before.cachedInputTokens),
    cacheWriteInputTokens: Math.max(0, (now.cacheWriteInputTokens ?? 0) - (before.cacheWriteInputTokens ?? 0)),
    outputTokens: Math.max(0, now.outputTokens - before.outputTokens),
    reasoningOutputTokens: Math.max(0, now.reasoningOutputTokens - before.reasoningOutputTokens),
  };
  if (!Object.values(grown).some((v) => v > 0)) return null;
  const { cacheWriteInputTokens, ...rest } = grown;
  return cacheWriteInputTokens > 0 ? grown : rest;
}

export class AgentControl implements Disposable {
  private readonly children = new Map<string, Child>();
  /** Spawns and resumes under way: they hold a place under the limit. */
  private opening = 0;
  /** Nicknames given in this session, so that a new sub-agent is not taken for an old one. */
  private readonly named = new Set<string>();
  private readonly waiters = new Set<() => void>();
  private disposed = false;

  constructor(private readonly options: AgentControlOptions) {}

  get roles(): Readonly<Record<string, AgentRole>> {
    return this.options.roles;
  }

  /** The state of an open sub-agent; `notFound` for any other id. */
  stateOf(id: string): CollabAgentState {
    return this.children.get(id)?.state ?? { status: 'notFound', message: null };
  }

  nicknameOf(id: string): string | null {
    return this.children.get(id)?.nickname ?? null;
  }

  /** The settings a sub-agent spawned now gets: the parent's, with the model and effort asked for. */
  spawnSettings(request: Pick<SpawnRequest, 'model' | 'effort' | 'role'>) {
    const role = request.role === null ? undefined : this.options.roles[request.role];
    const settings = this.options.parent.settings();
    return {
      ...settings,
      model: request.model ?? role?.model ?? settings.model,
      effort: request.effort ?? role?.effort ?? settings.effort,
    };
  }

  /** Makes a sub-agent and starts its first turn; resolves once it exists (its turn goes on). */
  async spawn(request: SpawnRequest): Promise<{ id: string; nickname: string; state: CollabAgentState }> {
    const parent = this.options.parent;
    // Codex's words: a thread this deep is offered no sub-agent tools, so this answers only a stray call.
    if (parent.depth + 1 > this.options.maxDepth)
      throw new AgentCallError('Agent depth limit reached. Solve the task yourself.');
    this.checkRoom();
    const id = uuidv7();
    const nickname = nicknameFor(new Set([...this.named, ...[...this.children.values()].map((c) => c.nickname)]));
    this.named.add(nickname);
    const role = request.role === null ? undefined : this.options.roles[request.role];
    this.opening += 1;
    let session: AgentSession;
    try {
      session = await this.options.host.create({
        threadId: id,
        parentThreadId: parent.threadId,
        sessionId: parent.sessionId,
        depth: parent.depth + 1,
        nickname,
        role: request.role,
        settings: this.spawnSettings(request),
        developerInstructions: role?.developerInstructions ?? null,
      });
    } finally {
      this.opening -= 1;
    }
    if (request.forkContext) {
      // The parent's conversation so far, less the calls it has not answered (this spawn among them).
      session.appendHistory(...answeredOnly(parent.history()));
      session.contextRef = parent.contextRef();
    }
    const child = this.adopt(id, nickname, request.role, session);
    if (this.disposed) {
      await this.closeChild(child);
      throw new AgentCallError('the thread is shutting down; no sub-agent was started');
    }
    child.startUntold = true;
    this.start(child, request.input);
    return { id, nickname, state: NOT_STARTED };
  }

  /**
   * Gives an open sub-agent more input (`interrupt` stops its running turn first); returns the state it had
   * when the input came, as Codex's item shows it. A wait from now on waits for the turn that takes it.
   */
  async sendInput(id: string, input: UserInput[], interrupt: boolean): Promise<CollabAgentState> {
    const child = this.open(id);
    const before = child.state;
    if (interrupt && child.session.activeTurnId !== null) await child.session.interrupt();
    this.setState(child, { status: 'running', message: null });
    this.start(child, input);
    return before;
  }

  /**
   * Waits until one of `ids` has finished (or is not an open sub-agent); resolves with every one of them that
   * has, or `null` when `timeoutMs` passed first. Rejects when `signal` aborts (the turn was interrupted).
   */
  wait(ids: readonly string[], timeoutMs: number, signal: AbortSignal): Promise<Map<string, CollabAgentState> | null> {
    const finished = (): Map<string, CollabAgentState> | null => {
      const done = new Map<string, CollabAgentState>();
      for (const id of ids) {
        const state = this.stateOf(id);
        if (isFinalAgentState(state)) done.set(id, state);
      }
      return done.size > 0 ? done : null;
    };
    const now = finished();
    if (now !== null || ids.length === 0) return Promise.resolve(now);
    return new Promise((resolve, reject) => {
      const end = (): void => {
        clearTimeout(timer);
        this.waiters.delete(check);
        signal.removeEventListener('abort', abort);
      };
      const check = (): void => {
        const done = finished();
        if (done === null) return;
        end();
        resolve(done);
      };
      const abort = (): void => {
        end();
        reject(signal.reason instanceof Error ? signal.reason : new Error('the wait was interrupted'));
      };
      const timer = setTimeout(() => {
        end();
        resolve(null);
      }, timeoutMs);
      this.waiters.add(check);
      if (signal.aborted) abort();
      else signal.addEventListener('abort', abort, { once: true });
    });
  }

  /** Closes an open sub-agent (stopping its turn) and returns the state it had. */
  async close(id: string): Promise<CollabAgentState> {
    const child = this.open(id);
    const previous = child.state;
    await this.closeChild(child);
    return previous;
  }

  /** Opens a closed sub-agent of this thread again; it waits for input. */
  async resume(id: string): Promise<{ state: CollabAgentState; nickname: string }> {
    const open = this.children.get(id);
    if (open) return { state: open.state, nickname: open.nickname };
    this.checkRoom();
    this.opening += 1;
    let found: Awaited<ReturnType<SubAgentHost['reopen']>>;
    try {
      found = await this.options.host.reopen(id, this.options.parent.threadId);
    } finally {
      this.opening -= 1;
    }
    if (found === null) throw notFound(id);
    this.named.add(found.nickname);
    const child = this.adopt(id, found.nickname, found.role, found.session);
    return { state: child.state, nickname: child.nickname };
  }

  /** Interrupts every sub-agent's running turn (the parent was interrupted). */
  async interruptAll(): Promise<void> {
    await Promise.all(
      [...this.children.values()]
        .filter((c) => c.session.activeTurnId !== null)
        .map((c) => c.session.interrupt().catch(() => undefined)),
    );
  }

  /** Closes every sub-agent (the parent's session is shutting down). */
  async dispose(): Promise<void> {
    this.disposed = true;
    await Promise.all([...this.children.values()].map((c) => this.closeChild(c)));
  }

  private checkRoom(): void {
    if (this.disposed) throw new AgentCallError('the thread is shutting down; no sub-agent can be opened');
    const open = this.children.size + this.opening;
    const max = this.options.maxThreads;
    if (open >= max)
      throw new AgentCallError(
        `collab spawn failed: agent thread limit reached: ${open} sub-agent${open === 1 ? ' is' : 's are'} open and ` +
          `agents.max_threads is ${max}; close one with close_agent (its thread is kept) before spawning another`,
      );
  }

  private open(id: string): Child {
    const child = this.children.get(id);
    if (!child) throw notFound(id);
    return child;
  }

  private adopt(id: string, nickname: string, role: string | null, session: AgentSession): Child {
    const child: Child = {
      id,
      nickname,
      role,
      session,
      state: session.activeTurnId === null ? NOT_STARTED : { status: 'running', message: null },
      lastMessage: null,
      startUntold: false,
      awaiting: null,
      counted: session.tokenUsage?.total ?? NO_USAGE,
      unsubscribe: () => undefined,
    };
    child.unsubscribe = session.subscribe((n) => this.onChildEvent(child, n));
    this.children.set(id, child);
    return child;
  }

  private start(child: Child, input: UserInput[]): void {
    const awaiting = { turnId: null as string | null };
    child.awaiting = awaiting;
    child.session.startTurn(input).then(
      (turn) => {
        awaiting.turnId = turn.id;
      },
      (error: unknown) => {
        if (child.awaiting === awaiting) child.awaiting = null;
        const message = error instanceof Error ? error.message : String(error);
        this.setState(child, { status: 'errored', message: `the sub-agent could not start its turn: ${message}` });
      },
    );
  }

  private onChildEvent(child: Child, n: ServerNotification): void {
    switch (n.method) {
      case 'turn/started':
        child.lastMessage = null;
        this.setState(child, { status: 'running', message: null });
        if (child.startUntold) {
          child.startUntold = false;
          this.options.onLifecycle?.('start', this.lifecycle(child, n.params.turn.id, NOT_STARTED));
        }
        return;
      case 'item/completed':
        if (n.params.item.type === 'agentMessage' && n.params.item.text !== '') child.lastMessage = n.params.item.text;
        return;
      case 'thread/tokenUsage/updated': {
        // What its total grew by: its own answers and what its own sub-agents used alike, each once.
        const total = n.params.tokenUsage.total;
        const grown = usageGrowth(child.counted, total);
        child.counted = total;
        if (grown !== null) this.options.parent.addChildUsage(grown);
        return;
      }
      case 'turn/completed': {
        const turn = n.params.turn;
        if (child.awaiting !== null) {
          if (child.awaiting.turnId !== turn.id) return;
          child.awaiting = null;
        }
        const state: CollabAgentState =
          turn.status === 'completed'
            ? { status: 'completed', message: child.lastMessage }
            : turn.status === 'interrupted'
              ? { status: 'interrupted', message: null }
              : { status: 'errored', message: turn.error?.message ?? 'the turn failed' };
        this.setState(child, state);
        this.options.parent.addModelInput(notification(child.id, state));
        this.options.onLifecycle?.('stop', this.lifecycle(child, turn.id, state));
        return;
      }
      default:
        return;
    }
  }

  private lifecycle(child: Child, turnId: string, state: CollabAgentState): SubAgentLifecycle {
    return {
      agentId: child.id,
      nickname: child.nickname,
      role: child.role,
      turnId,
      transcriptPath: child.session.transcriptPath,
      emit: (n) => child.session.emit(n),
      status: state.status,
      lastMessage: state.message,
    };
  }

  private setState(child: Child, state: CollabAgentState): void {
    child.state = state;
    for (const waiter of [...this.waiters]) waiter();
  }

  private async closeChild(child: Child): Promise<void> {
    if (this.children.get(child.id) !== child) return;
    this.children.delete(child.id);
    child.unsubscribe();
    child.state = { status: 'shutdown', message: null };
    for (const waiter of [...this.waiters]) waiter();
    if (child.session.activeTurnId !== null) await child.session.interrupt().catch(() => undefined);
    await this.options.host.release(child.id);
  }
}

/** What the parent's model is told when a sub-agent's turn ends (Codex's `<subagent_notification>`). */
function notification(id: string, state: CollabAgentState): ResponseItem {
  const body = JSON.stringify({ agent_path: id, status: agentStatusFormOf(state) });
  return {
    type: 'message',
    role: 'user',
    content: [{ type: 'input_text', text: `<subagent_notification>\n${body}\n</subagent_notification>` }],
  };
}

/** A history without the tool calls it holds no output for (a copy given to a sub-agent must be valid). */
function answeredOnly(history: readonly ResponseItem[]): ResponseItem[] {
  const answered = new Set<string>();
  for (const item of history) {
    if (!isKnownResponseItem(item)) continue;
    if (item.type === 'function_call_output' || item.type === 'custom_tool_call_output') answered.add(item.call_id);
  }
  return history.filter((item) => {
    if (!isKnownResponseItem(item)) return true;
    return !((item.type === 'function_call' || item.type === 'custom_tool_call') && !answered.has(item.call_id));
  });
}
