import {
  isKnownResponseItem,
  type CommandExecutionItem,
  type ContentItem,
  type ResponseItem,
  type ThreadTokenUsage,
  type Turn,
  type TurnError,
  type UserInput,
} from '../../src-preload/protocol';
import { runUserShell, userShellMessage } from '../terminal/user-shell';
import { parseCommandActions } from '../tools/command-actions';
import { contextItems, contextReference, type ContextReference } from '../context/initial-context';
import { ModelError } from '../model/errors';
import type { ModelRequest, ModelUsage } from '../model/types';
import { findRepoRoot, TurnDiffTracker } from '../tools/turn-diff';
import type { ServerRequestSender, ToolCall, ToolContext, ToolResult } from '../tools/types';
import { ToolOrchestrator } from '../tools/orchestrator';
import { isAbortError } from '../util/abort';
import { errorMessage } from '../util/errors';
import { newItemId } from '../util/ids';
import {
  mergeMemory,
  parseCompactionAnswer,
  replacementHistory,
  summarize,
  type WorkingMemory,
} from '../context/compaction';
import { reviewHistoryText, type ReviewTurnInput } from './review-turn';
import type { SampleOutcome } from './sample-collector';
import { codexErrorInfo, sampleWithRetries, type SamplingHost } from './sampling';
import type { TurnOptions, TurnSettings } from './types';
import { userInputToMessage } from './user-input';

/** The user's own command (`thread/shellCommand`). */
export interface UserShellInput {
  userShell: string;
  timeoutMs: number;
}

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
}

/**
 * One turn of the ReAct loop: sample, run the tool calls, feed their outputs back, repeat. `done`
 * resolves with the finished turn; the session announces it (`turn/completed`).
 */
export class TurnRunner {
  readonly id = newItemId();
  private readonly controller = new AbortController();
  private readonly pending: UserInput[][] = [];
  /** Content tools produced for the model (e.g. an image from view_image), sent with the next request. */
  private readonly toolAttachments: ContentItem[] = [];
  private readonly turnDiff: TurnDiffTracker;
  private readonly orchestrator: ToolOrchestrator;
  private pendingCompaction = false;
  /** User commands (`!cmd`) running during this turn, and what they will tell the model. */
  private readonly userShells: Promise<void>[] = [];
  private readonly pendingItems: ResponseItem[] = [];
  private shellsClosed = false;
  /** Set for a review turn (`review/start`): one request to the reviewer, no tools. */
  private readonly review: ReviewTurnInput | null = null;
  private readonly startedAtMs: number;
  readonly done: Promise<Turn>;
  /**
   * Resolves once the turn's first input is recorded (the user's message in the history and the rollout),
   * or the turn ended before it was: `turn/start` is answered after it is on disk.
   */
  readonly inputRecorded: Promise<void>;
  private markInputRecorded: () => void = () => undefined;

  constructor(
    private readonly host: TurnHost,
    private readonly settings: TurnSettings,
    input: UserInput[] | 'compact' | UserShellInput | ReviewTurnInput,
    private readonly turnOptions: TurnOptions = {},
  ) {
    this.startedAtMs = Date.now();
    this.inputRecorded = new Promise((resolve) => (this.markInputRecorded = resolve));
    this.turnDiff = new TurnDiffTracker(findRepoRoot(settings.cwd));
    this.orchestrator = new ToolOrchestrator(
      host.options.safety,
      host.options.checkpoints ?? null,
      host.options.background ?? null,
    );
    if (input === 'compact') {
      this.acceptingInput = false;
      this.done = this.run(true);
    } else if ('userShell' in input) {
      this.acceptingInput = false;
      this.done = this.runShellTurn(input);
    } else if (!Array.isArray(input)) {
      this.acceptingInput = false;
      this.review = input;
      this.done = this.run(false);
    } else {
      this.pending.push(input);
      this.done = this.run(false);
    }
    const mark = (): void => this.markInputRecorded();
    this.done.then(mark, mark);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Whether input can still join this turn (false once the loop has decided to end). */
  private acceptingInput = true;

  /** Input that joins this turn at its next model request; false when the turn is already ending. */
  steer(input: UserInput[]): boolean {
    if (!this.acceptingInput) return false;
    this.pending.push(input);
    return true;
  }

  interrupt(): void {
    this.controller.abort(new Error('turn interrupted'));
  }

  /**
   * Runs the user's command as an item of this turn. The model sees it with its next request, or, if
   * the turn has stopped asking the model, with the next turn's first.
   */
  addUserShell(input: UserShellInput): boolean {
    if (this.shellsClosed) return false;
    this.userShells.push(
      this.userShellItem(input).then((message) => {
        if (this.acceptingInput) this.pendingItems.push(message);
        else this.host.appendHistory(message);
      }),
    );
    return true;
  }

  /** A turn that only runs the user's command. */
  private async runShellTurn(input: UserShellInput): Promise<Turn> {
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
    });
    this.host.appendHistory(await this.userShellItem(input));
    return this.snapshot(this.signal.aborted ? 'interrupted' : 'completed', null);
  }

  /** Runs one user command as a `commandExecution` item (source `userShell`); returns the model's view of it. */
  private async userShellItem(input: UserShellInput): Promise<ResponseItem> {
    const { threadId } = this.host.options;
    const turnId = this.id;
    const base: CommandExecutionItem = {
      type: 'commandExecution',
      id: newItemId(),
      command: input.userShell,
      cwd: this.settings.cwd,
      processId: null,
      source: 'userShell',
      status: 'inProgress',
      commandActions: parseCommandActions(input.userShell),
      aggregatedOutput: null,
      exitCode: null,
      durationMs: null,
    };
    this.host.emit({ method: 'item/started', params: { threadId, turnId, item: base } });
    try {
      const run = await runUserShell({
        command: input.userShell,
        cwd: this.settings.cwd,
        env: this.host.options.env ?? process.env,
        timeoutMs: input.timeoutMs,
        signal: this.signal,
        onOutput: (delta) =>
          this.host.emit({
            method: 'item/commandExecution/outputDelta',
            params: { threadId, turnId, itemId: base.id, delta },
          }),
      });
      const item: CommandExecutionItem = {
        ...base,
        status: run.exitCode === 0 && !run.timedOut ? 'completed' : 'failed',
        aggregatedOutput: run.output,
        exitCode: run.exitCode,
        durationMs: run.durationMs,
        weftOutcome: run.aborted ? 'stopped' : 'exited',
      };
      this.host.emit({ method: 'item/completed', params: { threadId, turnId, item } });
      return userShellMessage(input.userShell, run);
    } catch (e) {
      const weftError = `could not run the command: ${errorMessage(e)}`;
      this.host.emit({
        method: 'item/completed',
        params: { threadId, turnId, item: { ...base, status: 'failed', weftOutcome: 'error', weftError } },
      });
      return {
        type: 'message',
        role: 'user',
        content: [
          {
            type: 'input_text',
            text: `<user_shell_command>\n<command>\n${input.userShell}\n</command>\n<result>\n${weftError}\n</result>\n</user_shell_command>`,
          },
        ],
      };
    }
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

  private async run(compactOnly: boolean): Promise<Turn> {
    // Let the caller subscribe and answer `turn/start` before the first event.
    await Promise.resolve();
    const { threadId } = this.host.options;
    this.host.emit({ method: 'turn/started', params: { threadId, turn: this.snapshot() } });
    let status: Turn['status'] = 'completed';
    let error: TurnError | null = null;
    const unanswered = new Map<string, ToolCall>();
    this.host.options.recorder?.turnContext({
      turnId: this.id,
      cwd: this.settings.cwd,
      approvalPolicy: this.settings.approvalPolicy,
      sandboxPolicy: this.settings.sandboxPolicy,
      model: this.settings.model,
      effort: this.settings.effort,
      summary: this.settings.summary,
    });
    try {
      if (compactOnly) {
        await this.compact();
        return this.snapshot('completed', null);
      }
      if (this.review !== null) {
        await this.runReview(this.review);
        return this.snapshot('completed', null);
      }
      // The user's message is recorded first thing (after the context it follows), so that it is on disk
      // when `turn/start` is answered. A history over the limit is then compacted without it, and the
      // message follows the summary and the context again (the model sees it last, as it would have).
      const overLimit = this.overLimit();
      if (!overLimit) await this.recordContext();
      const input = await this.drainPending();
      this.markInputRecorded();
      if (overLimit) {
        await this.compact(input.length);
        await this.recordContext();
        this.host.appendHistory(...input);
      }
      // Tools that are still being discovered (MCP servers starting) are waited for, within their timeouts.
      await this.host.options.tools.prepare(this.signal);
      let compactedForLength = false;
      for (;;) {
        await this.drainPending();
        let outcome: SampleOutcome;
        try {
          outcome = await this.sample();
        } catch (e) {
          // Too long for the model: compact once and try again; a second refusal ends the turn.
          if (!(e instanceof ModelError) || e.info !== 'ContextWindowExceeded' || compactedForLength) throw e;
          compactedForLength = true;
          await this.compact();
          await this.recordContext();
          continue;
        }
        this.host.appendHistory(...outcome.items);
        if (outcome.usage) this.recordUsage(outcome.usage);
        if (outcome.toolCalls.length > 0 && this.overLimit()) {
          // Mid-turn: the outputs of these calls go after the summary, with the context again.
          this.pendingCompaction = true;
        }
        if (outcome.toolCalls.length === 0) {
          if (this.pending.length === 0) {
            this.acceptingInput = false;
            break;
          }
          continue;
        }
        for (const call of outcome.toolCalls) unanswered.set(call.callId, call);
        const results = await this.host.options.tools.dispatchAll(outcome.toolCalls, this.toolContext());
        outcome.toolCalls.forEach((call, i) => {
          const result = results[i];
          if (!result) return;
          this.host.appendHistory(toolOutputItem(call, result));
          unanswered.delete(call.callId);
        });
        if (this.toolAttachments.length > 0) {
          this.host.appendHistory({ type: 'message', role: 'user', content: this.toolAttachments.splice(0) });
        }
        if (this.pendingCompaction) {
          this.pendingCompaction = false;
          await this.compact();
          await this.recordContext();
        }
      }
    } catch (e) {
      this.acceptingInput = false;
      if (this.signal.aborted || isAbortError(e)) {
        status = 'interrupted';
      } else {
        status = 'failed';
        const info = e instanceof ModelError ? e.info : 'Other';
        error = { message: errorMessage(e), codexErrorInfo: codexErrorInfo(info), additionalDetails: null };
        this.host.emit({ method: 'error', params: { error, willRetry: false, threadId, turnId: this.id } });
      }
    }
    // Every call the model made must have an output, or the next request is invalid.
    for (const call of unanswered.values()) {
      this.host.appendHistory(toolOutputItem(call, { output: 'aborted', success: false }));
    }
    // The user's commands end within the turn they joined; what they printed waits for the next request.
    this.shellsClosed = true;
    await Promise.all(this.userShells);
    if (this.pendingItems.length > 0) this.host.appendHistory(...this.pendingItems.splice(0));
    return this.snapshot(status, error);
  }

  /** The full context on the first turn; afterwards only what changed (cwd, permissions). */
  private async recordContext(): Promise<void> {
    const o = this.host.options;
    const { items, warnings } = await contextItems(this.host.contextRef, this.settings, {
      weftHome: o.context?.weftHome ?? null,
      developerInstructions: o.developerInstructions ?? null,
      projectDocMaxBytes: o.context?.projectDocMaxBytes ?? 32_768,
      projectDocFallbackFilenames: o.context?.projectDocFallbackFilenames ?? [],
      projectRootMarkers: o.context?.projectRootMarkers ?? ['.git'],
      env: o.env ?? process.env,
      now: o.now?.() ?? new Date(),
    });
    for (const message of warnings) this.host.emit({ method: 'warning', params: { threadId: o.threadId, message } });
    if (items.length > 0) this.host.appendHistory(...items);
    this.host.contextRef = contextReference(this.settings);
  }

  /** Appends what waits for the next request to the history (and the rollout); returns what it appended. */
  private async drainPending(): Promise<ResponseItem[]> {
    const appended = this.pendingItems.splice(0);
    if (appended.length > 0) this.host.appendHistory(...appended);
    while (this.pending.length > 0) {
      const input = this.pending.shift();
      if (!input) continue;
      const message = await userInputToMessage(input, this.settings.cwd);
      appended.push(message);
      this.host.appendHistory(message);
      const item = { type: 'userMessage' as const, id: newItemId(), content: input };
      const { threadId } = this.host.options;
      this.host.emit({ method: 'item/started', params: { threadId, turnId: this.id, item } });
      this.host.emit({ method: 'item/completed', params: { threadId, turnId: this.id, item } });
    }
    return appended;
  }

  private overLimit(): boolean {
    const limit = this.host.options.autoCompactTokenLimit ?? null;
    const used = this.host.tokenUsage?.last.totalTokens ?? 0;
    return limit !== null && used >= limit;
  }

  /**
   * Replaces the history with the user's recent messages, a handoff summary written by the model and
   * the thread's working memory; the context is sent again at the next request.
   */
  private async compact(newest = 0): Promise<void> {
    const o = this.host.options;
    // `newest`: items just appended that the compaction leaves out (they go back after it).
    const before = newest === 0 ? this.host.history : this.host.history.slice(0, this.host.history.length - newest);
    const { threadId } = o;
    const item = { type: 'contextCompaction' as const, id: newItemId() };
    this.host.emit({ method: 'item/started', params: { threadId, turnId: this.id, item } });
    const request = this.buildRequest();
    const answer = await summarize(
      o.modelClient,
      {
        model: request.model,
        instructions: request.instructions,
        parallelToolCalls: false,
        reasoning: request.reasoning,
        promptCacheKey: request.promptCacheKey,
      },
      before,
      this.signal,
      (e) => e instanceof ModelError && e.info === 'ContextWindowExceeded',
    );
    if (answer.trim() === '')
      throw new ModelError('the model returned an empty summary, so the thread was not compacted', 'Other', {
        retryable: false,
        phase: 'stream',
      });
    const { summary, memory } = parseCompactionAnswer(answer);
    this.host.workingMemory = mergeMemory(this.host.workingMemory, memory);
    const replacement = replacementHistory(before, summary, this.host.workingMemory);
    this.host.replaceHistory(replacement);
    o.recorder?.compacted({ message: summary, replacementHistory: replacement });
    this.host.contextRef = null;
    if (this.host.tokenUsage) {
      const zero = { totalTokens: 0, inputTokens: 0, cachedInputTokens: 0, outputTokens: 0, reasoningOutputTokens: 0 };
      this.host.tokenUsage = { ...this.host.tokenUsage, last: zero };
    }
    this.host.emit({ method: 'item/completed', params: { threadId, turnId: this.id, item } });
    this.host.emit({
      method: 'warning',
      params: {
        threadId,
        message:
          'Heads up: this thread was compacted. Long threads and repeated compactions can make the model less accurate; start a new thread when the task allows.',
      },
    });
  }

  private buildRequest(): ModelRequest {
    const o = this.host.options;
    return {
      model: this.settings.model,
      instructions: o.baseInstructions,
      input: [...this.host.history],
      tools: o.tools.specs(),
      parallelToolCalls: true,
      reasoning: o.supportsReasoning
        ? { effort: this.settings.effort, summary: this.settings.summary ?? 'auto' }
        : null,
      promptCacheKey: o.threadId,
      outputSchema: this.turnOptions.outputSchema ?? null,
    };
  }

  /**
   * A review: the reviewer gets its own instructions and one message holding the diff, no tools and
   * none of the thread's history; its answer becomes an `exitedReviewMode` item (its messages are not
   * shown as the agent's), and the thread's history keeps the result for later turns.
   */
  private async runReview(review: ReviewTurnInput): Promise<void> {
    const o = this.host.options;
    const { threadId } = o;
    const entered = { type: 'enteredReviewMode' as const, id: newItemId(), review: review.description };
    this.host.emit({ method: 'item/started', params: { threadId, turnId: this.id, item: entered } });
    this.host.emit({ method: 'item/completed', params: { threadId, turnId: this.id, item: entered } });
    const request: ModelRequest = {
      model: this.settings.model,
      instructions: review.instructions,
      input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: review.prompt }] }],
      tools: [],
      parallelToolCalls: false,
      reasoning: o.supportsReasoning
        ? { effort: this.settings.effort, summary: this.settings.summary ?? 'auto' }
        : null,
      promptCacheKey: `${threadId}:review`,
      outputSchema: review.outputSchema,
    };
    const outcome = await this.sample(request, true);
    if (outcome.usage) this.recordUsage(outcome.usage);
    const answer = outcome.items
      .map((item) =>
        isKnownResponseItem(item) && item.type === 'message' && item.role === 'assistant'
          ? item.content.map((c) => ('text' in c && typeof c.text === 'string' ? c.text : '')).join('')
          : '',
      )
      .join('');
    const { text, output } = review.parse(answer);
    const exited = {
      type: 'exitedReviewMode' as const,
      id: newItemId(),
      review: text,
      ...(output === null ? {} : { weftReview: output }),
    };
    this.host.emit({ method: 'item/started', params: { threadId, turnId: this.id, item: exited } });
    this.host.emit({ method: 'item/completed', params: { threadId, turnId: this.id, item: exited } });
    this.host.appendHistory({
      type: 'message',
      role: 'user',
      content: [{ type: 'input_text', text: reviewHistoryText(review.description, text) }],
    });
  }

  /**
   * One model response, retried on drops and 5xx/429 within the provider's budgets. `quiet`: its items
   * are collected but not shown (a review's raw answer).
   */
  private sample(request?: ModelRequest, quiet = false): Promise<SampleOutcome> {
    return sampleWithRetries(this.host, {
      turnId: this.id,
      request: () => request ?? this.buildRequest(),
      signal: this.signal,
      quiet,
    });
  }

  private recordUsage(usage: ModelUsage): void {
    const last = {
      totalTokens: usage.totalTokens,
      inputTokens: usage.inputTokens,
      cachedInputTokens: usage.cachedInputTokens,
      outputTokens: usage.outputTokens,
      reasoningOutputTokens: usage.reasoningOutputTokens,
    };
    const prev = this.host.tokenUsage?.total;
    const total = prev
      ? {
          totalTokens: prev.totalTokens + last.totalTokens,
          inputTokens: prev.inputTokens + last.inputTokens,
          cachedInputTokens: prev.cachedInputTokens + last.cachedInputTokens,
          outputTokens: prev.outputTokens + last.outputTokens,
          reasoningOutputTokens: prev.reasoningOutputTokens + last.reasoningOutputTokens,
        }
      : { ...last };
    this.host.tokenUsage = { total, last, modelContextWindow: this.host.options.modelContextWindow };
    this.host.emit({
      method: 'thread/tokenUsage/updated',
      params: { threadId: this.host.options.threadId, turnId: this.id, tokenUsage: this.host.tokenUsage },
    });
  }

  private toolContext(): ToolContext {
    const o = this.host.options;
    const ctx: ToolContext = {
      threadId: o.threadId,
      turnId: this.id,
      cwd: this.settings.cwd,
      signal: this.signal,
      emit: (n) => this.host.emit(n),
      sendRequest: this.host.sendRequest,
      addPendingInput: (items) => this.toolAttachments.push(...items),
      turnDiff: this.turnDiff,
      policy: { approvalPolicy: this.settings.approvalPolicy, sandboxPolicy: this.settings.sandboxPolicy },
      orchestrator: this.orchestrator,
      env: o.env ?? process.env,
      cancelTurn: () => this.interrupt(),
    };
    return ctx;
  }
}

function toolOutputItem(call: ToolCall, result: ToolResult): ResponseItem {
  const output = result.output;
  return call.kind === 'custom'
    ? { type: 'custom_tool_call_output', call_id: call.callId, output }
    : { type: 'function_call_output', call_id: call.callId, output };
}
