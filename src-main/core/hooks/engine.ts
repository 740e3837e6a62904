/**
 * A thread's lifecycle hooks: which configured hooks may run (enabled, and trusted as they are, or every
 * enabled one with `--dangerously-bypass-hook-trust`), the JSON each event hands them (Codex 0.169's
 * payloads: test/fixtures/codex-hooks-0.169/payloads.json), and each run told as `hook/started` /
 * `hook/completed` in Codex's shape. All hooks matching an event start at once; the event waits for the
 * synchronous ones (each cut at its timeout) and merges what they decided: any block blocks. A hook that
 * fails is told (its run `failed`, with why) and never fails the thread.
 */
import { hookActionLabel, type ConfiguredHook } from '../../config/hooks/discover';
import { snakeEventName, wireEventName, type HookEvent } from '../../config/hooks/schema';
import type { CollabAgentState, HookRunSummary } from '../../../src-preload/protocol';
import type { CoreNotification } from '../../tools/types';
import { decide, type HookDecision } from './outcome';
import { noteLastRun } from './last-runs';
import { runHookCommand } from './run-command';
import { runHookMcpTool, type McpHookCaller } from './run-mcp-tool';

/** A sub-agent as its lifecycle hooks see it. */
export interface SubAgentLifecycle {
  agentId: string;
  nickname: string;
  role: string | null;
  /** The sub-agent's turn that started (SubagentStart) or ended (SubagentStop). */
  turnId: string;
  /** The sub-agent's rollout; null when it is not saved. */
  transcriptPath: string | null;
  /** Tells the sub-agent's thread (its clients and rollout) of a hook run. */
  emit: (n: CoreNotification) => void;
  /** After a turn: how it ended and its last answer; null at the start. */
  status: CollabAgentState['status'];
  lastMessage: string | null;
}

/** Events whose matcher is tested against the tool name; SessionStart's against its `source`. */
const TOOL_EVENTS: ReadonlySet<HookEvent> = new Set(['PreToolUse', 'PostToolUse', 'PermissionRequest']);
/** Events about the thread rather than one turn (Codex's `scope`). */
const THREAD_EVENTS: ReadonlySet<HookEvent> = new Set(['SessionStart', 'SessionEnd']);
/** Events whose payload has no `permission_mode` (Codex 0.169's: test/fixtures/codex-hooks-0.169/events.json). */
const NO_PERMISSION_MODE: ReadonlySet<HookEvent> = new Set(['PreCompact', 'PostCompact', 'SessionEnd']);
/** Events whose payload has no `model`. */
const NO_MODEL: ReadonlySet<HookEvent> = new Set(['SessionEnd']);
/** Tool calls remembered for PermissionRequest (a call is forgotten once it ran; a bound for calls that never end). */
const MAX_CALLS = 256;
/** Output kept in a run's `weftOutput`. */
const SHOWN_OUTPUT_CHARS = 4000;

export interface HookContext {
  cwd: string;
  model: string;
  /** Codex's `permission_mode`: `bypassPermissions` when nothing is asked (approval `never`), else `default`. */
  permissionMode: string;
  transcriptPath: string | null;
}

export interface HookEngineOptions {
  threadId: string;
  hooks: readonly ConfiguredHook[];
  /** `weft exec --dangerously-bypass-hook-trust`: enabled hooks run without recorded trust. */
  bypassTrust: boolean;
  /** The environment hooks start with (already filtered like commands'). */
  env: () => Record<string, string>;
  context: () => HookContext;
  emit: (n: CoreNotification) => void;
  /** Calls a tool of the thread's MCP servers (`mcp_tool` hooks); absent: such hooks fail. */
  callMcpTool?: McpHookCaller;
  now?: () => Date;
}

export interface HookEventInput {
  event: HookEvent;
  /** null for thread-scoped runs outside a turn (SessionEnd). */
  turnId: string | null;
  /** What the matcher is tested against: the tool name, SessionStart's source; null: no matcher applies. */
  target?: string | null;
  /** The tool call of tool events (part of each run's id). */
  toolUseId?: string | null;
  /** The thread whose turn `turnId` is, told of the runs (a sub-agent's); absent: this thread. */
  thread?: { id: string; emit: (n: CoreNotification) => void };
  /** `transcript_path` when it is not the thread's rollout (a sub-agent's, for SubagentStart). */
  transcriptPath?: string | null;
  /** `agent_transcript_path`, after `transcript_path` (SubagentStop: the sub-agent's rollout); absent: none. */
  agentTranscriptPath?: string | null;
  /** The event's own fields, after the common ones (in the order Codex writes them). */
  fields: Record<string, unknown>;
}

export interface HookEventResult {
  /** The first block's reason (in display order); null when nothing blocked. */
  blockReason: string | null;
  /** Every block, in display order, with the id of the run that made it (Stop's continuation prompt). */
  blocks: { reason: string; runId: string }[];
  /** True when a hook said `"continue": false`: for Stop, the turn ends even if another hook blocked. */
  stopped: boolean;
  /** Context the hooks asked to give the model. */
  context: string[];
}

type RunDecision = HookDecision & { runId: string };

const NOTHING: HookEventResult = { blockReason: null, blocks: [], stopped: false, context: [] };

export class HookEngine {
  private readonly runnable: ConfiguredHook[];
  private readonly pending = new Set<Promise<unknown>>();
  private readonly abort = new AbortController();
  private sessionStarted = false;
  /** The tool calls running now, as hooks see them, by call id (PermissionRequest names the call it asks for). */
  private readonly calls = new Map<string, { toolName: string; toolInput: unknown }>();

  constructor(private readonly options: HookEngineOptions) {
    this.runnable = options.hooks.filter((h) => h.enabled && (h.trustStatus === 'trusted' || options.bypassTrust));
  }

  /** Hooks held back because nobody trusted them as they are: told once, at the thread's first turn. */
  skippedWarnings(): string[] {
    if (this.options.bypassTrust) return [];
    return this.options.hooks
      .filter((h) => h.enabled && h.trustStatus !== 'trusted')
      .map(
        (h) =>
          `hook ${h.event} "${hookActionLabel(h.action)}" (${h.sourcePath}) is ${h.trustStatus === 'modified' ? 'changed since it was trusted' : 'not trusted'} and does not run; review it, then trust it with \`weft hooks trust\` or in Settings → Hooks`,
      );
  }

  /** True once, for the first turn of the session: SessionStart fires then (as Codex). */
  takeSessionStart(): boolean {
    if (this.sessionStarted) return false;
    this.sessionStarted = true;
    return true;
  }

  /** A tool call starts: PermissionRequest hooks asked about it get its name and input as PreToolUse did. */
  rememberCall(callId: string, toolName: string, toolInput: unknown): void {
    this.calls.set(callId, { toolName, toolInput });
    if (this.calls.size > MAX_CALLS) {
      const oldest = this.calls.keys().next();
      if (!oldest.done) this.calls.delete(oldest.value);
    }
  }

  forgetCall(callId: string): void {
    this.calls.delete(callId);
  }

  /** The running tool call `callId` as hooks see it, if it is one. */
  callOf(callId: string): { toolName: string; toolInput: unknown } | null {
    return this.calls.get(callId) ?? null;
  }

  /** The newest running call of `toolName` (a patch's approval names its item, not its call). */
  latestCall(toolName: string): { callId: string; toolInput: unknown } | null {
    let found: { callId: string; toolInput: unknown } | null = null;
    for (const [callId, call] of this.calls)
      if (call.toolName === toolName) found = { callId, toolInput: call.toolInput };
    return found;
  }

  has(event: HookEvent): boolean {
    return this.runnable.some((h) => h.event === event);
  }

  async run(input: HookEventInput): Promise<HookEventResult> {
    const matching = this.runnable.filter((h) => h.event === input.event && matches(h, input));
    if (matching.length === 0) return NOTHING;
    const payload = JSON.stringify(this.payload(input));
    const runs = matching.map((hook) => this.runOne(hook, input, payload));
    const waited: Promise<RunDecision>[] = [];
    matching.forEach((hook, i) => {
      const run = runs[i];
      if (run === undefined) return;
      if (hook.async) this.track(run);
      else waited.push(run);
    });
    const decisions = await Promise.all(waited);
    const blocks = decisions.flatMap((d) =>
      d.blockReason === null ? [] : [{ reason: d.blockReason, runId: d.runId }],
    );
    return {
      blockReason: blocks[0]?.reason ?? null,
      blocks,
      stopped: decisions.some((d) => d.stopped),
      context: decisions.flatMap((d) => (d.context === null ? [] : [d.context])),
    };
  }

  /**
   * SubagentStart / SubagentStop for a sub-agent of this thread (not waited for: it runs beside the turn).
   * As Codex 0.169 gives them (test/fixtures/codex-hooks-0.169/subagent-payloads.json and subagent-turns.json):
   * `session_id` is this thread, `turn_id` the sub-agent's turn; SubagentStart's `transcript_path` is the
   * sub-agent's rollout, SubagentStop's is this thread's with the sub-agent's as `agent_transcript_path`.
   * The runs' `hook/started` / `hook/completed` are told in the sub-agent's thread and turn, as Codex's app
   * server tells them (subagent-hook-runs.json), and so recorded in its rollout.
   */
  subAgent(event: 'start' | 'stop', child: SubAgentLifecycle): void {
    const name = event === 'start' ? 'SubagentStart' : 'SubagentStop';
    if (!this.has(name)) return;
    const agent = { agent_id: child.agentId, agent_type: child.role ?? 'default' };
    const thread = { id: child.agentId, emit: child.emit };
    const base = { event: name, turnId: child.turnId, thread, target: child.role ?? 'default' } as const;
    if (event === 'start') {
      this.track(this.run({ ...base, transcriptPath: child.transcriptPath, fields: agent }));
      return;
    }
    const fields = { stop_hook_active: false, ...agent, last_assistant_message: child.lastMessage };
    this.track(this.run({ ...base, agentTranscriptPath: child.transcriptPath, fields }));
  }

  /** The thread ends: SessionEnd (when it started in this process), then the hooks still running are waited for. */
  async end(): Promise<void> {
    if (this.sessionStarted && this.has('SessionEnd'))
      await this.run({ event: 'SessionEnd', turnId: null, fields: { reason: 'other' } });
    await this.settled();
    this.stop();
  }

  /** Waits for async hooks still running (each ends at its timeout at the latest). */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  /** Kills the hooks still running (the thread is gone). */
  stop(): void {
    this.abort.abort();
  }

  private track(p: Promise<unknown>): void {
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p));
  }

  private payload(input: HookEventInput): Record<string, unknown> {
    const ctx = this.options.context();
    return {
      session_id: this.options.threadId,
      ...(input.turnId === null || input.event === 'SessionStart' ? {} : { turn_id: input.turnId }),
      transcript_path: input.transcriptPath === undefined ? ctx.transcriptPath : input.transcriptPath,
      ...(input.agentTranscriptPath === undefined ? {} : { agent_transcript_path: input.agentTranscriptPath }),
      cwd: ctx.cwd,
      hook_event_name: input.event,
      ...(NO_MODEL.has(input.event) ? {} : { model: ctx.model }),
      ...(NO_PERMISSION_MODE.has(input.event) ? {} : { permission_mode: ctx.permissionMode }),
      ...input.fields,
    };
  }

  private async runOne(hook: ConfiguredHook, input: HookEventInput, payload: string): Promise<RunDecision> {
    const now = (): number => (this.options.now?.() ?? new Date()).getTime();
    const startedMs = now();
    const kebab = snakeEventName(hook.event).replace(/_/g, '-');
    const base: HookRunSummary = {
      id: `${kebab}:${hook.displayOrder}:${hook.sourcePath}${input.toolUseId ? `:${input.toolUseId}` : ''}`,
      eventName: wireEventName(hook.event),
      handlerType: hook.action.type,
      executionMode: hook.async ? 'async' : 'sync',
      scope: THREAD_EVENTS.has(hook.event) ? 'thread' : 'turn',
      sourcePath: hook.sourcePath,
      source: hook.source,
      displayOrder: hook.displayOrder,
      status: 'running',
      statusMessage: hook.statusMessage,
      startedAt: Math.floor(startedMs / 1000),
      completedAt: null,
      durationMs: null,
      entries: [],
      weftCommand: hookActionLabel(hook.action),
      weftExitCode: null,
      weftOutput: null,
    };
    const threadId = input.thread?.id ?? this.options.threadId;
    const emit = input.thread?.emit ?? this.options.emit;
    emit({ method: 'hook/started', params: { threadId, turnId: input.turnId, run: base } });
    const { action } = hook;
    const result =
      action.type === 'command'
        ? await runHookCommand({
            command: action.command,
            cwd: this.options.context().cwd,
            env: this.options.env(),
            input: payload,
            timeoutMs: hook.timeoutSec * 1000,
            signal: this.abort.signal,
          })
        : await runHookMcpTool({
            call: this.options.callMcpTool ?? null,
            server: action.server,
            tool: action.tool,
            input: action.input,
            timeoutMs: hook.timeoutSec * 1000,
            signal: this.abort.signal,
          });
    const decision = decide(result, hook.timeoutSec, hook.event);
    const output = [result.stdout, result.stderr].filter((s) => s !== '').join('\n');
    const run: HookRunSummary = {
      ...base,
      status: decision.status,
      completedAt: Math.floor(now() / 1000),
      durationMs: result.durationMs,
      entries: decision.entries,
      weftExitCode: action.type === 'command' ? result.exitCode : null,
      weftOutput: output.length > SHOWN_OUTPUT_CHARS ? output.slice(-SHOWN_OUTPUT_CHARS) : output,
    };
    noteLastRun(hook.key, run);
    emit({ method: 'hook/completed', params: { threadId, turnId: input.turnId, run } });
    return { ...decision, runId: base.id };
  }
}

function matches(hook: ConfiguredHook, input: HookEventInput): boolean {
  const matcher = hook.matcher;
  if (matcher === null || matcher === '' || matcher === '*') return true;
  const target = input.target ?? null;
  if (target === null || !(TOOL_EVENTS.has(hook.event) || hook.event === 'SessionStart')) return true;
  try {
    return new RegExp(`^(?:${matcher})$`).test(target);
  } catch {
    return false;
  }
}
