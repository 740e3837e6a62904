import type {
  ResponseItem,
  ThreadTokenUsage,
  TokenUsageBreakdown,
  Turn,
  TurnError,
  UserInput,
  WeftTokenCost,
} from '../../../src-preload/protocol';
import type { ContextReference } from '../../context/initial-context';
import type { WorkingMemory } from '../../context/compaction';
import { ModelError } from '../../model/errors';
import { addUsage, costOf, priceTable, threadCost, ZERO_USAGE } from '../../model/prices';
import type { ModelRequest, ModelUsage } from '../../model/types';
import type { ServerRequestSender } from '../../tools/types';
import { isAbortError } from '../../util/abort';
import { errorMessage } from '../../util/errors';
import { newItemId } from '../../util/ids';
import type { SampleOutcome } from '../sample-collector';
import { codexErrorInfo, sampleWithRetries, type SamplingHost } from '../sampling';
import type { TurnSettings } from '../types';
import { shellCommandItem, type UserShellInput } from './shell-command-item';

/** What a turn shares with its session. */
export interface TurnHost extends SamplingHost {
  readonly history: readonly ResponseItem[];
  /** Appends to the model-visible history (and the thread's rollout). */
  appendHistory(...items: ResponseItem[]): void;
  /** Server requests go through the session, which tracks what the thread is waiting on. */
  sendRequest: ServerRequestSender;
  /** What the model was last told about cwd and permissions, or null before the first turn. */
  contextRef: ContextReference | null;
  /** Facts kept verbatim across compactions. */
  workingMemory: WorkingMemory;
  replaceHistory(items: ResponseItem[]): void;
  tokenUsage: ThreadTokenUsage | null;
  /** The thread's tokens by model (for its cost at each model's price). */
  readonly usageByModel: Map<string, TokenUsageBreakdown>;
}

/** How a kind's own work ended (`run`); the turn ends after the user's commands that joined it. */
export interface TurnEnd {
  status: Turn['status'];
  error: TurnError | null;
}

/**
 * What every kind of turn shares (regular.ts, compact.ts, review.ts, user-shell.ts): its id, its end
 * (`interrupt`), its snapshot, the user's commands that join it, its model requests and their token
 * usage. The session starts a turn once (`start`) and announces the finished one (`turn/completed`).
 */
export abstract class TurnTask {
  readonly id = newItemId();
  private readonly controller = new AbortController();
  private readonly startedAtMs = Date.now();
  /** User commands (`!cmd`) running during this turn, and what they will tell the model. */
  private readonly userShells: Promise<void>[] = [];
  private shellsClosed = false;
  /** What the user's commands told the model while the turn still sends requests: sent with the next one. */
  protected readonly pendingItems: ResponseItem[] = [];
  /** Whether input can still join this turn (false once the loop has decided to end; always for other kinds). */
  protected acceptingInput = false;
  private running: Promise<Turn> | null = null;
  /**
   * Resolves once the turn's first input is recorded (the user's message in the history and the rollout),
   * or the turn ended before it was: `turn/start` is answered after it is on disk.
   */
  readonly inputRecorded: Promise<void>;
  protected markInputRecorded: () => void = () => undefined;
  /** The tokens of this turn's requests so far. */
  private turnUsage: TokenUsageBreakdown = ZERO_USAGE;

  constructor(
    readonly host: TurnHost,
    readonly settings: TurnSettings,
  ) {
    this.inputRecorded = new Promise((resolve) => (this.markInputRecorded = resolve));
  }

  /**
   * The kind's own work, after `turn/started` and the turn context are recorded. A throw ends the turn as
   * `failure` says; either way the turn then ends as `finish` says.
   */
  protected abstract run(): Promise<TurnEnd>;

  /** Runs the turn (once; later calls return the same promise), resolving with the finished turn. */
  start(): Promise<Turn> {
    if (this.running) return this.running;
    const done = this.begin();
    this.running = done;
    const mark = (): void => this.markInputRecorded();
    done.then(mark, mark);
    return done;
  }

  private async begin(): Promise<Turn> {
    // Let the caller subscribe and answer `turn/start` before the first event.
    await Promise.resolve();
    const { threadId } = this.host.options;
    this.host.emit({ method: 'turn/started', params: { threadId, turn: this.snapshot() } });
    this.host.options.recorder?.turnContext({
      turnId: this.id,
      cwd: this.settings.cwd,
      approvalPolicy: this.settings.approvalPolicy,
      sandboxPolicy: this.settings.sandboxPolicy,
      model: this.settings.model,
      effort: this.settings.effort,
      summary: this.settings.summary,
      questions: this.settings.questions,
    });
    let end: TurnEnd;
    try {
      end = await this.run();
    } catch (e) {
      end = this.failure(e);
    }
    return this.finish(end);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Input that joins this turn at its next model request; false when the turn takes none or is ending. */
  steer(_input: UserInput[]): boolean {
    return false;
  }

  interrupt(): void {
    this.controller.abort(new Error('turn interrupted'));
  }

  /** Model input (not the user's) for this turn's next request; false when the turn sends no more. */
  addModelInput(item: ResponseItem): boolean {
    if (!this.acceptingInput) return false;
    this.pendingItems.push(item);
    return true;
  }

  /**
   * Runs the user's command as an item of this turn. The model sees it with its next request, or, if
   * the turn has stopped asking the model, with the next turn's first.
   */
  addUserShell(input: UserShellInput): boolean {
    if (this.shellsClosed) return false;
    this.userShells.push(
      shellCommandItem(this, input).then((message) => {
        if (this.acceptingInput) this.pendingItems.push(message);
        else this.host.appendHistory(message);
      }),
    );
    return true;
  }

  snapshot(status: Turn['status'] = 'inProgress', error: TurnError | null = null): Turn {
    const completed = status === 'inProgress' ? null : Date.now();
    return {
      id: this.id,
      items: [],
      status,
      error,
      startedAt: Math.floor(this.startedAtMs / 1000),
      completedAt: completed === null ? null : Math.floor(completed / 1000),
      durationMs: completed === null ? null : completed - this.startedAtMs,
    };
  }

  /** How a turn that threw ended: interrupted, or failed (told to clients as an `error`). */
  protected failure(e: unknown): { status: Turn['status']; error: TurnError | null } {
    this.acceptingInput = false;
    if (this.signal.aborted || isAbortError(e)) return { status: 'interrupted', error: null };
    const info = e instanceof ModelError ? e.info : 'Other';
    const error = { message: errorMessage(e), codexErrorInfo: codexErrorInfo(info), additionalDetails: null };
    const { threadId } = this.host.options;
    this.host.emit({ method: 'error', params: { error, willRetry: false, threadId, turnId: this.id } });
    return { status: 'failed', error };
  }

  /**
   * Ends a turn of any kind: the user's commands that joined it end within it (their items come before
   * `turn/completed`; a later command gets a turn of its own), and what they printed waits for the next
   * request, in the order they ended. A turn interrupted while it waits for them ends interrupted (the
   * interrupt stopped them).
   */
  private async finish(end: TurnEnd): Promise<Turn> {
    this.shellsClosed = true;
    this.acceptingInput = false;
    if (this.pendingItems.length > 0) this.host.appendHistory(...this.pendingItems.splice(0));
    await Promise.all(this.userShells);
    const status = end.status === 'completed' && this.signal.aborted ? 'interrupted' : end.status;
    return this.snapshot(status, end.error);
  }

  /** The reasoning parameters of this turn's requests (null when the model takes none). */
  reasoning(): ModelRequest['reasoning'] {
    return this.host.options.supportsReasoning
      ? { effort: this.settings.effort, summary: this.settings.summary ?? 'auto' }
      : null;
  }

  /**
   * One model response, retried on drops and 5xx/429 within the provider's budgets (`request` is built
   * again for each attempt). `quiet`: its items are collected but not shown (a review's raw answer).
   */
  protected sample(request: () => ModelRequest, quiet: boolean): Promise<SampleOutcome> {
    return sampleWithRetries(this.host, { turnId: this.id, request, signal: this.signal, quiet });
  }

  /**
   * Counts a request's tokens in the thread's and the turn's totals and cost, and tells the clients.
   * `shownAsLast`: what the context meter shows afterwards when it is not this request (a compaction's).
   */
  recordUsage(usage: ModelUsage, shownAsLast?: TokenUsageBreakdown): void {
    const last = {
      totalTokens: usage.totalTokens,
      inputTokens: usage.inputTokens,
      cachedInputTokens: usage.cachedInputTokens,
      ...(usage.cacheWriteInputTokens ? { cacheWriteInputTokens: usage.cacheWriteInputTokens } : {}),
      outputTokens: usage.outputTokens,
      reasoningOutputTokens: usage.reasoningOutputTokens,
    };
    const total = addUsage(this.host.tokenUsage?.total ?? ZERO_USAGE, last);
    this.host.tokenUsage = {
      total,
      last: shownAsLast ?? last,
      modelContextWindow: this.host.options.modelContextWindow,
    };
    this.host.emit({
      method: 'thread/tokenUsage/updated',
      params: {
        threadId: this.host.options.threadId,
        turnId: this.id,
        tokenUsage: this.host.tokenUsage,
        weftCost: this.costWith(last),
      },
    });
  }

  /** The turn's and the thread's cost once `last` (a request of this turn's model) is added to them. */
  private costWith(last: TokenUsageBreakdown): WeftTokenCost {
    const model = this.settings.model;
    const byModel = this.host.usageByModel;
    byModel.set(model, addUsage(byModel.get(model) ?? ZERO_USAGE, last));
    this.turnUsage = addUsage(this.turnUsage, last);
    const prices = this.host.options.prices ?? priceTable({});
    const price = prices(model);
    return {
      model,
      price,
      turn: { usage: this.turnUsage, cost: costOf(model, this.turnUsage, price) },
      thread: threadCost(byModel, prices),
    };
  }
}
