import type {
  ResponseItem,
  ServerNotification,
  StoppedCommand,
  ThreadActiveFlag,
  ThreadItem,
  ThreadStatus,
  ThreadTokenUsage,
  TokenUsageBreakdown,
  Turn,
  UserInput,
} from '../../src-preload/protocol';
import type { CoreNotification, ServerRequestSender } from '../tools/types';
import { DisposableStore, toDisposable, type Disposable } from '../util/disposable';
import { recordBackgroundChanges } from '../tools/background-changes';
import { addUsage, priceTable, threadCost } from '../model/prices';
import { memoryFromHistory, type WorkingMemory } from '../context/compaction';
import type { ContextReference } from '../context/initial-context';
import type { ReviewTurnInput } from './review-turn';
import { stampNotification, stampRequest } from './stamps';
import { currentStep } from './thread-step';
import { dropFromTurn, noteInTurns } from './turn-record';
import type { TurnHost, TurnTask } from './turns/base';
import { CompactTurn } from './turns/compact';
import { RegularTurn } from './turns/regular';
import { ReviewTurn } from './turns/review';
import type { UserShellInput } from './turns/shell-command-item';
import { UserShellTurn } from './turns/user-shell';
import { WorktreeSetupTurn } from './turns/worktree-setup';
import type {
  Op,
  SessionEventListener,
  SessionOptions,
  TurnOptions,
  TurnOverrides,
  TurnRecord,
  TurnSettings,
} from './types';

export class SessionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SessionError';
  }
}

type OpResult = { turn: Turn } | { ok: true };

/**
 * One thread's agent: a submission queue in (`submit`), an event stream out (`subscribe`). At most one
 * turn runs at a time; input that arrives while it runs joins it at its next model request.
 */
export class Session implements TurnHost, Disposable {
  /**
   * What the thread owns (its rollout, the commands it left running, its MCP servers): released, newest
   * first, when it shuts down, once its turn has stopped.
   */
  readonly resources = new DisposableStore();
  private readonly historyItems: ResponseItem[];
  readonly turns: TurnRecord[];
  contextRef: ContextReference | null;
  workingMemory: WorkingMemory;
  tokenUsage: ThreadTokenUsage | null;
  readonly usageByModel: Map<string, TokenUsageBreakdown>;
  /** The client that asked for the latest turn (TurnOptions.client); null until one names itself. */
  turnClient: string | null = null;
  private settings: TurnSettings;
  private active: TurnTask | null = null;
  /** Resolves once the active turn is announced and the session is ready for the next one. */
  private activeFinished: Promise<void> = Promise.resolve();
  private readonly listeners = new Set<SessionEventListener>();
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;
  private readonly waiting = new Map<ThreadActiveFlag, number>();
  /** The status last told (JSON), so an unchanged one is not told again. */
  private statusSaid = '';
  /** The loaded turns are the newest of a long thread: this pages the older ones (else null). */
  olderTurnsCursor: string | null;
  /** The part of the history not read yet (a resumed thread's, read when its first turn starts). */
  private laterHistory: NonNullable<SessionOptions['initial']>['loadHistory'] | null;

  constructor(readonly options: SessionOptions) {
    this.settings = { ...options.settings };
    this.historyItems = [...(options.initial?.history ?? [])];
    this.laterHistory = options.initial?.loadHistory ?? null;
    this.olderTurnsCursor = options.initial?.olderTurnsCursor ?? null;
    this.turns = [...(options.initial?.turns ?? [])];
    this.contextRef = options.initial?.contextRef ?? null;
    this.workingMemory = memoryFromHistory(this.historyItems);
    this.tokenUsage = options.initial?.tokenUsage ?? null;
    this.usageByModel = new Map(Object.entries(options.initial?.usageByModel ?? {}));
    const recorder = options.recorder;
    if (recorder)
      this.resources.add(
        toDisposable(() => recorder.close()),
        "the thread's rollout",
      );
  }

  get history(): readonly ResponseItem[] {
    return this.historyItems;
  }

  appendHistory(...items: ResponseItem[]): void {
    this.historyItems.push(...items);
    this.options.recorder?.responseItems(items);
  }

  /** Replaces the history (after a rollback or compaction), without recording it. */
  replaceHistory(items: readonly ResponseItem[]): void {
    // One push per item: a spread of a long history would overflow the call's argument limit.
    this.historyItems.length = 0;
    for (const item of items) this.historyItems.push(item);
  }

  /**
   * Reads the part of the history a resume left for later, once: turns wait for it. What reading it had to
   * skip (torn or corrupt lines) reaches the clients as warnings. A failed read fails the turn that needed
   * it, saying why, and is tried again by the next one.
   */
  private async historyReady(): Promise<void> {
    // A rollback while it was being read leaves a newer history to read instead.
    for (let load = this.laterHistory; load; load = this.laterHistory) {
      let read: Awaited<ReturnType<typeof load>>;
      try {
        read = await load();
      } catch (e) {
        const why = e instanceof Error ? e.message : String(e);
        throw new SessionError(`could not read this thread's history: ${why}`);
      }
      if (this.laterHistory !== load) continue;
      this.laterHistory = null;
      const since = this.historyItems.splice(0);
      this.replaceHistory(read.items);
      for (const item of since) this.historyItems.push(item);
      this.workingMemory = memoryFromHistory(this.historyItems);
      for (const message of read.warnings) {
        this.broadcast({ method: 'warning', params: { threadId: this.threadId, message } });
      }
    }
  }

  /** Replaces everything the session knows of the past (after a rollback), without recording it. */
  resetState(state: NonNullable<SessionOptions['initial']>): void {
    if (this.active) throw new SessionError('cannot reset a thread while a turn is running');
    this.laterHistory = state.loadHistory ?? null;
    this.olderTurnsCursor = state.olderTurnsCursor ?? null;
    this.replaceHistory(state.history);
    this.workingMemory = memoryFromHistory(this.historyItems);
    this.turns.splice(0, this.turns.length, ...state.turns);
    this.tokenUsage = state.tokenUsage;
    this.usageByModel.clear();
    for (const [model, usage] of Object.entries(state.usageByModel ?? {})) this.usageByModel.set(model, usage);
    this.contextRef = state.contextRef;
  }

  get threadId(): string {
    return this.options.threadId;
  }

  /** The thread's rollout; null for a thread that is not saved. */
  get transcriptPath(): string | null {
    return this.options.recorder?.path ?? null;
  }

  /**
   * `thread/tokenUsage/updated` for what the thread has used so far, with its cost at today's prices (sent
   * after `thread/resume`, as Codex does when usage was saved); null before the thread used any tokens.
   */
  tokenUsageUpdate(): ServerNotification | null {
    if (this.tokenUsage === null) return null;
    const prices = this.options.prices ?? priceTable({});
    const model = this.settings.model;
    return {
      method: 'thread/tokenUsage/updated',
      params: {
        threadId: this.threadId,
        turnId: this.turns[this.turns.length - 1]?.turn.id ?? '',
        tokenUsage: this.tokenUsage,
        weftCost: { model, price: prices(model), turn: null, thread: threadCost(this.usageByModel, prices) },
      },
    };
  }

  get currentSettings(): TurnSettings {
    return { ...this.settings };
  }

  /**
   * A Handoff moved the thread: its next turns work in `cwd` (the model is told of the new folder with
   * the next turn's environment context). Refused while a turn runs.
   */
  moveTo(cwd: string): void {
    if (this.active) throw new SessionError('a turn is running; move the thread once it has finished');
    this.settings = { ...this.settings, cwd };
  }

  get activeTurnId(): string | null {
    return this.active?.id ?? null;
  }

  /**
   * `idle`, or `systemError` when the last turn failed (as Codex says it, until the next turn starts);
   * while a turn runs, `active` with who it waits on and what it does now (`weftStep`).
   */
  get status(): ThreadStatus {
    if (!this.active) return this.turns.at(-1)?.turn.status === 'failed' ? { type: 'systemError' } : { type: 'idle' };
    const activeFlags = [...this.waiting].filter(([, n]) => n > 0).map(([flag]) => flag);
    const running = this.turns.find((record) => record.turn.id === this.active?.id);
    return { type: 'active', activeFlags, weftStep: currentStep(running?.open?.values()) };
  }

  /**
   * Forwards a server request to the host, with the thread marked as waiting on it meanwhile. Approvals
   * are stamped with when they were asked; questions always block the turn.
   */
  readonly sendRequest: ServerRequestSender = async (request, signal) => {
    const flag: ThreadActiveFlag =
      request.method === 'item/tool/requestUserInput' ? 'waitingOnUserInput' : 'waitingOnApproval';
    this.waiting.set(flag, (this.waiting.get(flag) ?? 0) + 1);
    this.emitStatus();
    const stamped = stampRequest(request, this.nowMs());
    try {
      const refused = await this.permissionHooks(request);
      const answer = refused ?? (await this.options.sendRequest(stamped, signal));
      if (request.method !== 'item/tool/requestUserInput') {
        this.options.recorder?.approval({
          turnId: request.params.turnId,
          itemId: request.params.itemId,
          kind: request.method === 'item/commandExecution/requestApproval' ? 'command' : 'fileChange',
          request: stamped.params,
          decision: answer,
        });
      }
      return answer;
    } finally {
      this.waiting.set(flag, (this.waiting.get(flag) ?? 1) - 1);
      this.emitStatus();
    }
  };

  /**
   * PermissionRequest hooks, before an approval is asked: a hook that blocks (exit 2 or a `deny`) declines
   * it without asking the person (the answer a person's "decline" would give); otherwise the person is asked.
   * The payload is Codex 0.169's: the call's `tool_name` and `tool_input` as PreToolUse had them (a command's
   * `description` is the reason it asks), and no `tool_use_id`.
   */
  private async permissionHooks(request: Parameters<ServerRequestSender>[0]): Promise<{ decision: 'decline' } | null> {
    const hooks = this.options.hooks;
    if (hooks === undefined || request.method === 'item/tool/requestUserInput' || !hooks.has('PermissionRequest'))
      return null;
    const { itemId, turnId } = request.params;
    let toolName: string;
    let toolInput: unknown;
    let toolUseId = itemId;
    if (request.method === 'item/commandExecution/requestApproval') {
      // A command's item is its call.
      const input = hooks.callOf(itemId)?.toolInput;
      const seen = typeof input === 'object' && input !== null && 'command' in input ? input.command : null;
      const reason = request.params.reason ?? null;
      toolName = 'Bash';
      toolInput = {
        command: typeof seen === 'string' ? seen : request.params.command,
        ...(reason ? { description: reason } : {}),
      };
    } else {
      const call = hooks.latestCall('apply_patch');
      toolName = 'apply_patch';
      toolInput = call?.toolInput ?? { command: '' };
      toolUseId = call?.callId ?? itemId;
    }
    const result = await hooks.run({
      event: 'PermissionRequest',
      turnId,
      target: toolName,
      toolUseId,
      fields: { tool_name: toolName, tool_input: toolInput },
    });
    return result.blockReason === null ? null : { decision: 'decline' };
  }

  subscribe(listener: SessionEventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Sends a notification to the rollout and every subscriber, with item lifecycle times stamped. */
  emit(event: CoreNotification): void {
    this.publish(event, true);
  }

  /**
   * Sends a notification to every subscriber now and returns what records it in the rollout (a model
   * attempt's items are recorded once the attempt has succeeded; see SampleCollector).
   */
  announce(event: CoreNotification): () => void {
    const notification = this.publish(event, false);
    return () => this.options.recorder?.notification(notification);
  }

  /**
   * Takes back an item clients were shown that is not part of the turn (what a failed model attempt had
   * begun and no later attempt said): it is completed as given (empty) and leaves the turn's items.
   */
  withdraw(turnId: string, item: ThreadItem): void {
    this.publish({ method: 'item/completed', params: { threadId: this.threadId, turnId, item } }, false);
    dropFromTurn(
      this.turns.find((t) => t.turn.id === turnId),
      item.id,
    );
  }

  private publish(event: CoreNotification, record: boolean): ServerNotification {
    const notification = stampNotification(event, () => this.nowMs());
    if (record) this.options.recorder?.notification(notification);
    noteInTurns(this.turns, notification);
    this.broadcast(notification);
    // An item that starts or ends may change what the running turn is doing (its status's `weftStep`).
    if (this.active && (notification.method === 'item/started' || notification.method === 'item/completed'))
      this.emitStatus();
    return notification;
  }

  private nowMs(): number {
    return (this.options.now?.() ?? new Date()).getTime();
  }

  private broadcast(notification: ServerNotification): void {
    for (const listener of [...this.listeners]) listener(notification);
  }

  /** Ops are handled one at a time, in order (Codex's submission loop). */
  submit(op: Op): Promise<OpResult> {
    const result = this.queue.then(() => this.handle(op));
    this.queue = result.catch(() => undefined);
    return result;
  }

  startTurn(input: UserInput[], overrides?: TurnOverrides, options?: TurnOptions): Promise<Turn> {
    return this.submit({ type: 'userTurn', input, overrides, options }).then((r) =>
      'turn' in r ? r.turn : this.mustHaveActive(),
    );
  }

  steer(input: UserInput[], expectedTurnId?: string): Promise<void> {
    return this.submit({ type: 'steer', input, expectedTurnId }).then(() => undefined);
  }

  interrupt(): Promise<void> {
    return this.submit({ type: 'interrupt' }).then(() => undefined);
  }

  /**
   * Runs the user's own command (`!cmd`): in a turn of its own, or as an item of the running turn.
   * Resolves once it has started.
   */
  shellCommand(command: string, timeoutMs: number): Promise<void> {
    return this.submit({ type: 'userShell', command, timeoutMs }).then(() => undefined);
  }

  /**
   * Runs a worktree's setup script (`[worktree] setup`) in the sandbox, as a turn of its own; a turn asked
   * for meanwhile starts once it has ended. Resolves once it has started.
   */
  worktreeSetup(script: string): Promise<void> {
    return this.submit({ type: 'worktreeSetup', script }).then(() => undefined);
  }

  /** Compacts the history now, as a turn of its own. */
  compact(): Promise<Turn> {
    return this.submit({ type: 'compact' }).then((r) => ('turn' in r ? r.turn : this.mustHaveActive()));
  }

  /** Runs a code review as a turn of its own (`review/start`). */
  startReview(review: ReviewTurnInput): Promise<Turn> {
    return this.submit({ type: 'review', review }).then((r) => ('turn' in r ? r.turn : this.mustHaveActive()));
  }

  shutdown(): Promise<void> {
    return this.submit({ type: 'shutdown' }).then(() => undefined);
  }

  /** `shutdown` (once; again, it waits for the first): stops the turn, then releases what the thread owns. */
  dispose(): Promise<void> {
    return this.shutdown();
  }

  /**
   * Runs `work` between ops: it is refused while a turn runs, and a turn asked for meanwhile starts
   * once it has ended (a file restore must not race the agent). `what` ends the refusal's sentence.
   */
  exclusive<T>(what: string, work: () => Promise<T>): Promise<T> {
    const result = this.queue.then(async () => {
      if (this.closed) throw new SessionError(`thread ${this.threadId} is shut down`);
      if (this.active) throw new SessionError(`a turn is running in this thread; interrupt it before ${what}`);
      return work();
    });
    this.queue = result.catch(() => undefined);
    return result;
  }

  /** Stops the commands the model left running after its turns; returns what was stopped. */
  async stopBackgroundCommands(reason: string): Promise<StoppedCommand[]> {
    return (await this.options.stopBackgroundCommands?.(reason)) ?? [];
  }

  /**
   * Records what the commands the model left running changed since the last look, as the turns that
   * started them (before a restore looks at the workspace `root`). Nothing without checkpoints or such
   * commands.
   */
  async recordBackgroundChanges(root: string): Promise<void> {
    const { checkpoints, background, threadId } = this.options;
    if (checkpoints === undefined || background === undefined) return;
    await recordBackgroundChanges(checkpoints, background, threadId, root);
  }

  /**
   * Model input that is not the user's (a sub-agent's news): it joins the running turn's next request, or
   * waits in the history for the next turn.
   */
  addModelInput(item: ResponseItem): void {
    if (this.closed) return;
    if (this.active?.addModelInput(item)) return;
    this.appendHistory(item);
  }

  /**
   * A sub-agent's tokens (its last request's), counted in this thread's total; `last` stays this thread's
   * own (it is what the context window holds).
   */
  addChildUsage(usage: TokenUsageBreakdown): void {
    if (this.closed) return;
    const zero = { totalTokens: 0, inputTokens: 0, cachedInputTokens: 0, outputTokens: 0, reasoningOutputTokens: 0 };
    const prev = this.tokenUsage;
    this.tokenUsage = {
      total: addUsage(prev?.total ?? zero, usage),
      last: prev?.last ?? zero,
      modelContextWindow: this.options.modelContextWindow,
    };
    const turnId = this.active?.id ?? this.turns[this.turns.length - 1]?.turn.id ?? '';
    this.emit({
      method: 'thread/tokenUsage/updated',
      params: { threadId: this.threadId, turnId, tokenUsage: this.tokenUsage },
    });
  }

  /** Resolves when no turn is running. */
  async whenIdle(): Promise<void> {
    while (this.active) await this.activeFinished;
  }

  private async handle(op: Op): Promise<OpResult> {
    if (this.closed) {
      // Shutting down again waits for (and reports) the first release.
      if (op.type === 'shutdown') return this.resources.dispose().then(() => ({ ok: true }));
      throw new SessionError(`thread ${this.threadId} is shut down`);
    }
    if (op.type === 'userTurn' || op.type === 'compact' || op.type === 'userShell' || op.type === 'review') {
      await this.historyReady();
    }
    switch (op.type) {
      case 'userTurn': {
        if (op.overrides) this.settings = { ...this.settings, ...definedOnly(op.overrides) };
        if (op.options?.client !== undefined) this.turnClient = op.options.client;
        if (this.active?.steer(op.input)) return { turn: this.active.snapshot() };
        // The running turn is already ending: this input starts the next turn once it has.
        if (this.active) await this.activeFinished;
        const turn = this.begin(new RegularTurn(this, this.settings, op.input, op.options));
        await this.inputSaved();
        return { turn };
      }
      case 'compact': {
        if (this.active) throw new SessionError('a turn is running; compact the thread once it has finished');
        return { turn: this.begin(new CompactTurn(this, this.settings)) };
      }
      case 'userShell': {
        const input: UserShellInput = { userShell: op.command, timeoutMs: op.timeoutMs };
        if (this.active?.addUserShell(input)) return { turn: this.active.snapshot() };
        // The running turn is already ending: the command gets a turn of its own once it has.
        if (this.active) await this.activeFinished;
        return { turn: this.begin(new UserShellTurn(this, this.settings, input)) };
      }
      case 'worktreeSetup': {
        if (this.active) await this.activeFinished;
        return { turn: this.begin(new WorktreeSetupTurn(this, this.settings, op.script)) };
      }
      case 'review': {
        if (this.active) throw new SessionError('a turn is running; start the review once it has finished');
        return { turn: this.begin(new ReviewTurn(this, this.settings, op.review)) };
      }
      case 'steer': {
        if (!this.active) throw new SessionError('there is no running turn to steer; start a new turn instead');
        if (op.expectedTurnId !== undefined && op.expectedTurnId !== this.active.id) {
          throw new SessionError(`expected turn ${op.expectedTurnId} but the running turn is ${this.active.id}`);
        }
        if (!this.active.steer(op.input))
          throw new SessionError(`turn ${this.active.id} is already finishing; start a new turn instead`);
        return { ok: true };
      }
      case 'interrupt': {
        const active = this.active;
        if (active) {
          active.interrupt();
          await this.activeFinished;
          await this.options.hooks?.run({ event: 'Interrupt', turnId: active.id, fields: {} });
        }
        await this.options.onInterrupt?.();
        return { ok: true };
      }
      case 'shutdown': {
        const active = this.active;
        if (active) {
          active.interrupt();
          await this.activeFinished;
        }
        this.closed = true;
        await this.resources.dispose();
        return { ok: true };
      }
    }
  }

  /** Makes `runner` (a turn of any kind) the active turn and starts it; announces it once it has ended. */
  private begin(runner: TurnTask): Turn {
    const done = runner.start();
    this.active = runner;
    const record: TurnRecord = { turn: runner.snapshot(), items: [] };
    this.turns.push(record);
    this.emitStatus();
    this.activeFinished = done.then(async (finished) => {
      let turn = finished;
      // Durable before announced: once a client sees turn/completed, the turn is on disk; and the
      // session is ready for the next turn by then. A turn that could not be saved fails, saying so.
      this.options.recorder?.notification({
        method: 'turn/completed',
        params: { threadId: this.threadId, turn: { ...turn, items: [...record.items] } },
      });
      try {
        await this.options.recorder?.turnEnded();
      } catch (e) {
        const error = {
          message: `This thread is not being saved: ${e instanceof Error ? e.message : String(e)}`,
          codexErrorInfo: 'other',
          additionalDetails: null,
        };
        // Told, not recorded: the turn's own lines are queued after its end; once they reach the disk it is whole.
        this.broadcast({
          method: 'error',
          params: { error, willRetry: false, threadId: this.threadId, turnId: turn.id },
        });
        turn = { ...turn, status: 'failed', error };
      }
      record.turn = turn;
      const completed: ServerNotification = {
        method: 'turn/completed',
        params: { threadId: this.threadId, turn: { ...turn, items: [...record.items] } },
      };
      if (this.active === runner) this.active = null;
      this.broadcast(completed);
      this.emitStatus();
    });
    return record.turn;
  }

  /**
   * Resolves once the new turn's first input is recorded and fsynced, so that a client answered `turn/start`
   * can rely on the user's message being on disk. A disk that refuses it is already told to clients (and
   * fails the turn when it ends); the turn runs all the same.
   */
  private async inputSaved(): Promise<void> {
    await this.active?.inputRecorded;
    await this.options.recorder?.durable().catch(() => undefined);
  }

  private mustHaveActive(): Turn {
    if (!this.active) throw new SessionError('no running turn');
    return this.active.snapshot();
  }

  /** Tells the status when it is not the one told last. */
  private emitStatus(): void {
    const status = this.status;
    const said = JSON.stringify(status);
    if (said === this.statusSaid) return;
    this.statusSaid = said;
    this.emit({ method: 'thread/status/changed', params: { threadId: this.threadId, status } });
  }
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null)) as Partial<T>;
}
