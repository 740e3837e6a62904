/**
 * `weft exec --experimental-json`: the session's notifications translated into the JSONL events Codex's
 * `codex exec --experimental-json` prints (and `@openai/codex-sdk` reads): `thread.started` first, then
 * `turn.started`, `item.started` / `item.updated` / `item.completed` with snake_case items,
 * `turn.completed {usage}` or `error` + `turn.failed {error}`.
 *
 * As Codex does, agent messages and reasoning appear only when completed, commands, patches and
 * sub-agent calls (`collab_tool_call`) also when they start, the plan is one `todo_list` item that starts with the first plan, is updated with
 * each change and completes with the turn, and warnings and retries are `error` items (not fatal).
 * Item ids are `item_0`, `item_1`, … in order of first appearance. Usage is the thread's running total.
 */
import type {
  CollabAgentTool,
  CommandExecutionStatus,
  ServerNotification,
  ThreadItem,
  ThreadTokenUsage,
  TurnPlanStep,
} from '../../src-preload/protocol';

export type CodexExecItem =
  | { id: string; type: 'agent_message'; text: string }
  | { id: string; type: 'reasoning'; text: string }
  | {
      id: string;
      type: 'command_execution';
      command: string;
      aggregated_output: string;
      exit_code: number | null;
      status: 'in_progress' | 'completed' | 'failed';
    }
  | {
      id: string;
      type: 'file_change';
      changes: { path: string; kind: 'add' | 'delete' | 'update' }[];
      status: 'in_progress' | 'completed' | 'failed';
    }
  | {
      id: string;
      type: 'mcp_tool_call';
      server: string;
      tool: string;
      arguments: unknown;
      result?: { content: unknown[]; structured_content: unknown };
      error?: { message: string };
      status: 'in_progress' | 'completed' | 'failed';
    }
  | {
      id: string;
      type: 'collab_tool_call';
      tool: 'spawn_agent' | 'send_input' | 'resume_agent' | 'wait' | 'close_agent';
      sender_thread_id: string;
      receiver_thread_ids: string[];
      prompt: string | null;
      agents_states: Record<string, { status: string; message: string | null }>;
      status: 'in_progress' | 'completed' | 'failed';
    }
  | { id: string; type: 'web_search'; query: string }
  | { id: string; type: 'todo_list'; items: { text: string; completed: boolean }[] }
  | { id: string; type: 'error'; message: string };

export interface CodexUsage {
  input_tokens: number;
  cached_input_tokens: number;
  cache_write_input_tokens: number;
  output_tokens: number;
  reasoning_output_tokens: number;
}

export type CodexExecEvent =
  | { type: 'thread.started'; thread_id: string }
  | { type: 'turn.started' }
  | { type: 'turn.completed'; usage: CodexUsage }
  | { type: 'turn.failed'; error: { message: string } }
  | { type: 'item.started' | 'item.updated' | 'item.completed'; item: CodexExecItem }
  | { type: 'error'; message: string };

export class CodexExecEvents {
  private readonly ids = new Map<string, string>();
  private nextId = 0;
  private usage: ThreadTokenUsage | null = null;
  private todo: { id: string; items: { text: string; completed: boolean }[] } | null = null;

  constructor(initialUsage: ThreadTokenUsage | null = null) {
    this.usage = initialUsage;
  }

  threadStarted(threadId: string): CodexExecEvent[] {
    return [{ type: 'thread.started', thread_id: threadId }];
  }

  /** The events one notification becomes (often none). */
  handle(n: ServerNotification): CodexExecEvent[] {
    switch (n.method) {
      case 'turn/started':
        this.todo = null;
        return [{ type: 'turn.started' }];
      case 'item/started': {
        const item = this.startedItem(n.params.item);
        return item ? [{ type: 'item.started', item }] : [];
      }
      case 'item/completed': {
        const item = this.completedItem(n.params.item);
        return item ? [{ type: 'item.completed', item }] : [];
      }
      case 'turn/plan/updated':
        return this.planUpdated(n.params.plan);
      case 'thread/tokenUsage/updated':
        this.usage = n.params.tokenUsage;
        return [];
      case 'warning':
        return [{ type: 'item.completed', item: { id: this.newId(), type: 'error', message: n.params.message } }];
      case 'error': {
        if (!n.params.willRetry) return [];
        const details = n.params.error.additionalDetails ? ` (${n.params.error.additionalDetails})` : '';
        return [
          {
            type: 'item.completed',
            item: { id: this.newId(), type: 'error', message: `${n.params.error.message}${details}` },
          },
        ];
      }
      case 'turn/completed': {
        const events: CodexExecEvent[] = [];
        if (this.todo)
          events.push({
            type: 'item.completed',
            item: { id: this.todo.id, type: 'todo_list', items: this.todo.items },
          });
        this.todo = null;
        const { turn } = n.params;
        if (turn.status === 'completed') {
          events.push({ type: 'turn.completed', usage: this.codexUsage() });
        } else {
          const message =
            turn.status === 'interrupted' ? 'the turn was interrupted' : (turn.error?.message ?? 'the turn failed');
          events.push({ type: 'error', message }, { type: 'turn.failed', error: { message } });
        }
        return events;
      }
      default:
        return [];
    }
  }

  private newId(): string {
    return `item_${this.nextId++}`;
  }

  private idOf(weftId: string): string {
    let id = this.ids.get(weftId);
    if (id === undefined) {
      id = this.newId();
      this.ids.set(weftId, id);
    }
    return id;
  }

  /** Codex announces only commands, patches, MCP calls and searches before they finish. */
  private startedItem(item: ThreadItem): CodexExecItem | null {
    switch (item.type) {
      case 'commandExecution':
      case 'fileChange':
      case 'mcpToolCall':
      case 'collabAgentToolCall':
      case 'webSearch':
        return this.toCodexItem(item);
      case 'userMessage':
      case 'hookPrompt':
      case 'agentMessage':
      case 'reasoning':
      case 'plan':
      case 'imageView':
      case 'contextCompaction':
      case 'enteredReviewMode':
      case 'exitedReviewMode':
      case 'browserAction':
        return null;
    }
  }

  private completedItem(item: ThreadItem): CodexExecItem | null {
    return this.toCodexItem(item);
  }

  private toCodexItem(item: ThreadItem): CodexExecItem | null {
    switch (item.type) {
      case 'agentMessage':
        return { id: this.idOf(item.id), type: 'agent_message', text: item.text };
      case 'reasoning': {
        const parts = item.summary.length > 0 ? item.summary : item.content;
        const text = parts.join('\n\n');
        return text.trim() === '' ? null : { id: this.idOf(item.id), type: 'reasoning', text };
      }
      case 'commandExecution':
        return {
          id: this.idOf(item.id),
          type: 'command_execution',
          command: item.command,
          aggregated_output: item.aggregatedOutput ?? '',
          exit_code: item.exitCode,
          status: commandStatus(item.status, item.exitCode),
        };
      case 'fileChange':
        return {
          id: this.idOf(item.id),
          type: 'file_change',
          changes: item.changes.map((c) => ({ path: c.path, kind: c.kind.type })),
          status: item.status === 'inProgress' ? 'in_progress' : item.status === 'completed' ? 'completed' : 'failed',
        };
      case 'mcpToolCall':
        return {
          id: this.idOf(item.id),
          type: 'mcp_tool_call',
          server: item.server,
          tool: item.tool,
          arguments: item.arguments,
          ...(item.result
            ? { result: { content: item.result.content, structured_content: item.result.structuredContent ?? null } }
            : {}),
          ...(item.error ? { error: { message: item.error.message } } : {}),
          status: item.status === 'inProgress' ? 'in_progress' : item.status,
        };
      case 'collabAgentToolCall':
        return {
          id: this.idOf(item.id),
          type: 'collab_tool_call',
          tool: COLLAB_TOOL_NAMES[item.tool],
          sender_thread_id: item.senderThreadId,
          receiver_thread_ids: item.receiverThreadIds,
          prompt: item.prompt,
          // Codex's exec events spell the states as its model outputs do ("pending_init"), with the message.
          agents_states: Object.fromEntries(
            Object.entries(item.agentsStates).map(([id, state]) => [
              id,
              { status: snakeCase(state.status), message: state.message },
            ]),
          ),
          status: item.status === 'inProgress' ? 'in_progress' : item.status === 'completed' ? 'completed' : 'failed',
        };
      case 'webSearch':
        return { id: this.idOf(item.id), type: 'web_search', query: item.query };
      case 'exitedReviewMode':
        return { id: this.idOf(item.id), type: 'agent_message', text: item.review };
      case 'userMessage':
      case 'hookPrompt':
      case 'plan':
      case 'imageView':
      case 'contextCompaction':
      case 'enteredReviewMode':
      case 'browserAction':
        return null;
    }
  }

  private planUpdated(plan: readonly TurnPlanStep[]): CodexExecEvent[] {
    const items = plan.map((step) => ({ text: step.step, completed: step.status === 'completed' }));
    if (this.todo === null) {
      this.todo = { id: this.newId(), items };
      return [{ type: 'item.started', item: { id: this.todo.id, type: 'todo_list', items } }];
    }
    this.todo.items = items;
    return [{ type: 'item.updated', item: { id: this.todo.id, type: 'todo_list', items } }];
  }

  private codexUsage(): CodexUsage {
    const total = this.usage?.total;
    return {
      input_tokens: total?.inputTokens ?? 0,
      cached_input_tokens: total?.cachedInputTokens ?? 0,
      cache_write_input_tokens: 0,
      output_tokens: total?.outputTokens ?? 0,
      reasoning_output_tokens: total?.reasoningOutputTokens ?? 0,
    };
  }
}

/** The sub-agent tools by the wire's names (`collabAgentToolCall.tool`). */
const COLLAB_TOOL_NAMES = {
  spawnAgent: 'spawn_agent',
  sendInput: 'send_input',
  resumeAgent: 'resume_agent',
  wait: 'wait',
  closeAgent: 'close_agent',
} as const satisfies Record<CollabAgentTool, string>;

function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** Codex reports a command that exited non-zero as `failed`; its exec events know no `declined`. */
function commandStatus(
  status: CommandExecutionStatus,
  exitCode: number | null,
): 'in_progress' | 'completed' | 'failed' {
  switch (status) {
    case 'inProgress':
      return 'in_progress';
    case 'completed':
      return exitCode !== null && exitCode !== 0 ? 'failed' : 'completed';
    case 'failed':
    case 'declined':
      return 'failed';
  }
}
