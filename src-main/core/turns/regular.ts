import type { ContentItem, ResponseItem, Turn, TurnError, UserInput } from '../../../src-preload/protocol';
import { contextItems, contextReference } from '../../context/initial-context';
import { ModelError } from '../../model/errors';
import type { ModelRequest } from '../../model/types';
import { ToolOrchestrator } from '../../tools/orchestrator';
import { findRepoRoot, TurnDiffTracker } from '../../tools/turn-diff';
import type { ToolCall, ToolContext, ToolResult } from '../../tools/types';
import { newItemId, uuidv7 } from '../../util/ids';
import type { SampleOutcome } from '../sample-collector';
import type { TurnOptions, TurnSettings } from '../types';
import { userInputToMessage } from '../user-input';
import { TurnTask, type TurnEnd, type TurnHost } from './base';
import { compactHistory } from './compact';
import { toolHooksOf } from '../hooks/tool-hooks';
import { REQUEST_USER_INPUT } from '../../tools/user-input-tool';

/**
 * Continuations by Stop hooks one turn allows: a hook that blocks every time (one that ignores
 * `stop_hook_active`) would otherwise hold the turn, and spend the model, forever.
 */
const MAX_STOP_CONTINUATIONS = 8;

/** `"` and `&` in a `<hook_prompt>` attribute (a hook's source path may hold them). */
function escapeAttribute(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
}

/** What the hooks before a prompt added for the model. */
interface PromptHookContext {
  sessionContext: string[];
  promptContext: string[];
}

/**
 * One turn of the ReAct loop (`turn/start`): sample, run the tool calls, feed their outputs back, repeat
 * until the model answers without a tool call and no input is pending. Input that arrives meanwhile
 * (`steer`) joins it at its next model request.
 */
export class RegularTurn extends TurnTask {
  private readonly pending: UserInput[][] = [];
  /** Content tools produced for the model (e.g. an image from view_image), sent with the next request. */
  private readonly toolAttachments: ContentItem[] = [];
  private readonly turnDiff: TurnDiffTracker;
  private readonly orchestrator: ToolOrchestrator;
  private pendingCompaction = false;
  /** How many times Stop hooks have continued this turn. */
  private stopContinuations = 0;

  constructor(
    host: TurnHost,
    settings: TurnSettings,
    input: UserInput[],
    private readonly turnOptions: TurnOptions = {},
  ) {
    super(host, settings);
    this.turnDiff = new TurnDiffTracker(findRepoRoot(settings.cwd));
    this.orchestrator = new ToolOrchestrator(
      host.options.safety,
      host.options.checkpoints ?? null,
      host.options.background ?? null,
    );
    this.acceptingInput = true;
    this.pending.push(input);
  }

  override steer(input: UserInput[]): boolean {
    if (!this.acceptingInput) return false;
    this.pending.push(input);
    return true;
  }

  protected async run(): Promise<TurnEnd> {
    let status: Turn['status'] = 'completed';
    let error: TurnError | null = null;
    const unanswered = new Map<string, ToolCall>();
    // The workspace's first look (seconds in a big project) runs while the model thinks, not in front of
    // the turn's first command.
    void this.host.options.checkpoints?.prepare(this.settings.cwd);
    try {
      const hooked = await this.promptHooks();
      if (hooked === null) return { status, error };
      // The user's message is recorded first thing (after the context it follows), so that it is on disk
      // when `turn/start` is answered. A history over the limit is then compacted without it, and the
      // message follows the summary and the context again (the model sees it last, as it would have).
      // What SessionStart hooks added goes after the context, what UserPromptSubmit hooks added after the
      // message (as Codex places them).
      const overLimit = this.overLimit();
      if (!overLimit) {
        await this.recordContext();
        this.appendHookContext(hooked.sessionContext);
      }
      const input = await this.drainPending();
      if (!overLimit) this.appendHookContext(hooked.promptContext);
      this.markInputRecorded();
      if (overLimit) {
        await compactHistory(this, input.length);
        await this.recordContext();
        this.appendHookContext(hooked.sessionContext);
        this.host.appendHistory(...input);
        this.appendHookContext(hooked.promptContext);
      }
      // Tools that are still being discovered (MCP servers starting) are waited for, within their timeouts.
      await this.host.options.tools.prepare(this.signal);
      let compactedForLength = false;
      for (;;) {
        await this.drainPending();
        let outcome: SampleOutcome;
        try {
          outcome = await this.sample(() => this.buildRequest(), false);
        } catch (e) {
          // Too long for the model: compact once and try again; a second refusal ends the turn.
          if (!(e instanceof ModelError) || e.info !== 'ContextWindowExceeded' || compactedForLength) throw e;
          compactedForLength = true;
          await compactHistory(this);
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
          if (this.pending.length === 0 && !(await this.stopContinues())) {
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
          // What the call's hooks added goes between the call and its output (as Codex places it).
          this.appendHookContext(result.hookContext ?? []);
          this.host.appendHistory(toolOutputItem(call, result));
          unanswered.delete(call.callId);
        });
        if (this.toolAttachments.length > 0) {
          this.host.appendHistory({ type: 'message', role: 'user', content: this.toolAttachments.splice(0) });
        }
        if (this.pendingCompaction) {
          this.pendingCompaction = false;
          await compactHistory(this);
          await this.recordContext();
        }
      }
    } catch (e) {
      ({ status, error } = this.failure(e));
    }
    // Every call the model made must have an output, or the next request is invalid.
    for (const call of unanswered.values()) {
      this.host.appendHistory(toolOutputItem(call, { output: 'aborted', success: false }));
    }
    return { status, error };
  }

  /**
   * SessionStart (the thread's first turn in this process) and UserPromptSubmit, before the prompt is
   * recorded or sent, with the context each added. Null when a hook blocked the prompt: it is dropped, never
   * sent, and the turn ends.
   */
  private async promptHooks(): Promise<PromptHookContext | null> {
    const hooks = this.host.options.hooks;
    const out: PromptHookContext = { sessionContext: [], promptContext: [] };
    if (hooks === undefined) return out;
    const { threadId } = this.host.options;
    if (hooks.takeSessionStart()) {
      for (const message of hooks.skippedWarnings())
        this.host.emit({ method: 'warning', params: { threadId, message } });
      const source = this.host.contextRef === null ? 'startup' : 'resume';
      const started = await hooks.run({ event: 'SessionStart', turnId: this.id, target: source, fields: { source } });
      out.sessionContext = started.context;
    }
    if (!hooks.has('UserPromptSubmit')) return out;
    const prompt = (this.pending[0] ?? []).flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
    const result = await hooks.run({ event: 'UserPromptSubmit', turnId: this.id, fields: { prompt } });
    out.promptContext = result.context;
    if (result.blockReason === null) return out;
    this.pending.splice(0);
    this.acceptingInput = false;
    this.host.emit({
      method: 'warning',
      params: {
        threadId,
        message: `The prompt was not sent: a UserPromptSubmit hook blocked it (${result.blockReason})`,
      },
    });
    return null;
  }

  /** Context hooks added, for the model: one developer message each (Codex's form). */
  private appendHookContext(texts: readonly string[]): void {
    if (texts.length === 0) return;
    this.host.appendHistory(
      ...texts.map((text): ResponseItem => ({
        type: 'message',
        role: 'developer',
        content: [{ type: 'input_text', text }],
      })),
    );
  }

  /**
   * Stop, when the model has answered and nothing is pending: `last_assistant_message` is its last answer of
   * the turn. True when a hook blocked the end (and none said `continue: false`): its reason goes to the
   * model as Codex words it (a user message of `<hook_prompt>`s) and the turn goes on, the next Stop runs
   * with `stop_hook_active`. Codex sets no bound; here a turn ends after `MAX_STOP_CONTINUATIONS`, told.
   */
  private async stopContinues(): Promise<boolean> {
    const hooks = this.host.options.hooks;
    if (hooks === undefined || !hooks.has('Stop')) return false;
    const result = await hooks.run({
      event: 'Stop',
      turnId: this.id,
      fields: { stop_hook_active: this.stopContinuations > 0, last_assistant_message: this.lastAnswer() },
    });
    if (result.stopped || result.blocks.length === 0) return false;
    if (this.stopContinuations >= MAX_STOP_CONTINUATIONS) {
      const message = `Stop hooks blocked the end of this turn ${MAX_STOP_CONTINUATIONS} times in a row; the turn ends here (their last reason: ${result.blocks.map((b) => b.reason).join('; ')})`;
      this.host.emit({ method: 'warning', params: { threadId: this.host.options.threadId, message } });
      return false;
    }
    this.stopContinuations += 1;
    const text = result.blocks
      .map((b) => `<hook_prompt hook_run_id="${escapeAttribute(b.runId)}">${b.reason}</hook_prompt>`)
      .join('\n');
    this.host.appendHistory({ type: 'message', role: 'user', content: [{ type: 'input_text', text }] });
    // Told as Codex's `hookPrompt` item (test/fixtures/codex-hooks-0.169/stop-outcomes.json).
    const item = {
      type: 'hookPrompt' as const,
      id: `msg_${uuidv7()}`,
      fragments: result.blocks.map((b) => ({ text: b.reason, hookRunId: b.runId })),
    };
    const { threadId } = this.host.options;
    this.host.emit({ method: 'item/started', params: { threadId, turnId: this.id, item } });
    this.host.emit({ method: 'item/completed', params: { threadId, turnId: this.id, item } });
    return true;
  }

  /** The model's last answer in the history (the turn's, when it answered). */
  private lastAnswer(): string | null {
    let last: string | null = null;
    for (const item of this.host.history) {
      if (item.type !== 'message' || item.role !== 'assistant' || !Array.isArray(item.content)) continue;
      last = item.content
        .map((c: unknown) =>
          typeof c === 'object' && c !== null && 'text' in c && typeof c.text === 'string' ? c.text : '',
        )
        .join('');
    }
    return last;
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

  private buildRequest(): ModelRequest {
    const o = this.host.options;
    return {
      model: this.settings.model,
      instructions: o.baseInstructions,
      input: [...this.host.history],
      // A turn that may ask nobody is not offered the tool to ask (TurnSettings.questions).
      tools: this.settings.questions
        ? o.tools.specs()
        : o.tools.specs().filter((s) => s.type === 'web_search' || s.name !== REQUEST_USER_INPUT),
      parallelToolCalls: true,
      reasoning: this.reasoning(),
      promptCacheKey: o.threadId,
      outputSchema: this.turnOptions.outputSchema ?? null,
    };
  }

  private toolContext(): ToolContext {
    const o = this.host.options;
    return {
      threadId: o.threadId,
      turnId: this.id,
      cwd: this.settings.cwd,
      signal: this.signal,
      emit: (n) => this.host.emit(n),
      sendRequest: this.host.sendRequest,
      addPendingInput: (items) => this.toolAttachments.push(...items),
      turnDiff: this.turnDiff,
      policy: { approvalPolicy: this.settings.approvalPolicy, sandboxPolicy: this.settings.sandboxPolicy },
      questions: this.settings.questions,
      orchestrator: this.orchestrator,
      env: o.env ?? process.env,
      cancelTurn: () => this.interrupt(),
      ...(o.hooks === undefined ? {} : { hooks: toolHooksOf(o.hooks) }),
    };
  }
}

function toolOutputItem(call: ToolCall, result: ToolResult): ResponseItem {
  const output = result.output;
  return call.kind === 'custom'
    ? { type: 'custom_tool_call_output', call_id: call.callId, output }
    : { type: 'function_call_output', call_id: call.callId, output };
}
