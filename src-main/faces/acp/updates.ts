/**
 * Weft's turn notifications as ACP `session/update`s: the agent's text and reasoning as chunks,
 * commands, patches and other tools as `tool_call` / `tool_call_update` (patches with their diffs
 * and the files they touch, commands with their output), the turn's checklist as a `plan`. The
 * same mapping replays a saved thread for `session/load`.
 */
import { readFile } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
import type {
  SessionUpdate,
  ToolCallContent,
  ToolCallLocation,
  ToolCallStatus,
  ToolKind,
} from '@agentclientprotocol/sdk';
import type { ServerNotification, ThreadItem, Turn, UserInput } from '../../../src-preload/protocol';
import { subAgentLabel, type SubAgentAsking } from '../sub-agents';
import { fileChangeDiffs } from './diffs';

type Item<T extends ThreadItem['type']> = Extract<ThreadItem, { type: T }>;

type ItemNotification = Extract<
  ServerNotification,
  { method: 'item/started' | 'item/completed' | 'item/commandExecution/outputDelta' }
>;

/** The notifications of a sub-agent's thread that its parent's session shows: its commands and patches. */
export function isSubAgentCall(n: ServerNotification): n is ItemNotification {
  if (n.method === 'item/commandExecution/outputDelta') return true;
  if (n.method !== 'item/started' && n.method !== 'item/completed') return false;
  return n.params.item.type === 'commandExecution' || n.params.item.type === 'fileChange';
}

/**
 * A sub-agent's updates as its parent's session shows them: a new tool call's title says whose it is and
 * its raw input names the sub-agent (as its approvals do); updates of a tool call shown already are as they are.
 */
export function subAgentUpdates(updates: readonly SessionUpdate[], from: SubAgentAsking): SessionUpdate[] {
  return updates.map((u) =>
    u.sessionUpdate === 'tool_call'
      ? {
          ...u,
          title: `${subAgentLabel(from)}: ${u.title}`,
          rawInput: {
            ...(typeof u.rawInput === 'object' && u.rawInput !== null ? u.rawInput : {}),
            subAgent: { threadId: from.threadId, nickname: from.nickname },
          },
        }
      : u,
  );
}

/** Most command output kept in one update; longer output keeps its tail. */
const MAX_OUTPUT_CHARS = 64 * 1024;

export class UpdateMapper {
  /** Output seen so far of running commands, by item id. */
  private readonly output = new Map<string, string>();

  constructor(
    /** The thread's folder: relative paths in items are resolved against it. */
    private readonly cwd: string,
    private readonly readText: (path: string) => Promise<string | null> = readTextFile,
  ) {}

  /** The updates one live notification stands for (often none). */
  async map(n: ServerNotification): Promise<SessionUpdate[]> {
    switch (n.method) {
      case 'item/agentMessage/delta':
        return [{ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: n.params.delta } }];
      case 'item/reasoning/summaryTextDelta':
      case 'item/reasoning/textDelta':
        return [{ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: n.params.delta } }];
      case 'item/reasoning/summaryPartAdded':
        // Parts after the first start a new paragraph of the thought.
        return n.params.summaryIndex > 0
          ? [{ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: '\n\n' } }]
          : [];
      case 'turn/plan/updated':
        return [
          {
            sessionUpdate: 'plan',
            entries: n.params.plan.map((step) => ({
              content: step.step,
              priority: 'medium',
              status: step.status === 'inProgress' ? 'in_progress' : step.status,
            })),
          },
        ];
      case 'item/commandExecution/outputDelta': {
        const text = (this.output.get(n.params.itemId) ?? '') + n.params.delta;
        this.output.set(n.params.itemId, text);
        return [
          {
            sessionUpdate: 'tool_call_update',
            toolCallId: n.params.itemId,
            status: 'in_progress',
            content: [outputContent(text)],
          },
        ];
      }
      case 'item/started':
        return this.started(n.params.item);
      case 'item/completed':
        this.output.delete(n.params.item.id);
        return this.completed(n.params.item);
      default:
        return [];
    }
  }

  /** A saved turn as the updates that show it again, oldest first. */
  async replay(turn: Turn): Promise<SessionUpdate[]> {
    const updates: SessionUpdate[] = [];
    for (const item of turn.items) {
      switch (item.type) {
        case 'userMessage':
          for (const input of item.content)
            updates.push({ sessionUpdate: 'user_message_chunk', content: userContent(input) });
          break;
        case 'agentMessage':
          updates.push({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: item.text } });
          break;
        case 'reasoning': {
          const text = (item.summary.length > 0 ? item.summary : item.content).join('\n\n');
          if (text !== '') updates.push({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text } });
          break;
        }
        default: {
          const [call] = await this.started(item, { replay: true });
          if (call?.sessionUpdate === 'tool_call') updates.push({ ...call, ...toolCallOf(await this.completed(item)) });
        }
      }
    }
    return updates;
  }

  private async started(item: ThreadItem, options: { replay?: boolean } = {}): Promise<SessionUpdate[]> {
    switch (item.type) {
      case 'commandExecution':
        return [
          {
            sessionUpdate: 'tool_call',
            toolCallId: item.id,
            title: item.command,
            kind: commandKind(item),
            status: 'pending',
            locations: this.commandLocations(item),
            rawInput: { command: item.command, cwd: item.cwd },
          },
        ];
      case 'fileChange': {
        const diffs = await fileChangeDiffs(item.changes, this.cwd, this.readText, { live: !options.replay });
        return [
          {
            sessionUpdate: 'tool_call',
            toolCallId: item.id,
            title: patchTitle(item, (p) => this.shown(p)),
            kind: patchKind(item),
            status: 'pending',
            content: diffs.map((d) => ({ type: 'diff', ...d })),
            locations: diffs.map((d) => ({ path: d.path })),
            rawInput: { changes: item.changes },
          },
        ];
      }
      case 'mcpToolCall':
        return [
          {
            sessionUpdate: 'tool_call',
            toolCallId: item.id,
            title: `${item.server}: ${item.tool}`,
            kind: 'other',
            status: 'in_progress',
            rawInput: item.arguments,
          },
        ];
      case 'webSearch':
        return [
          {
            sessionUpdate: 'tool_call',
            toolCallId: item.id,
            title: `Search the web: ${item.query}`,
            kind: 'fetch',
            status: 'in_progress',
            rawInput: { query: item.query },
          },
        ];
      case 'imageView':
        return [
          {
            sessionUpdate: 'tool_call',
            toolCallId: item.id,
            title: `View ${item.path}`,
            kind: 'read',
            status: 'in_progress',
            locations: [{ path: this.absolute(item.path) }],
          },
        ];
      default:
        return [];
    }
  }

  private async completed(item: ThreadItem): Promise<SessionUpdate[]> {
    switch (item.type) {
      case 'commandExecution': {
        const output = item.aggregatedOutput ?? '';
        const content: ToolCallContent[] = output === '' ? [] : [outputContent(output)];
        if (item.weftError) content.push({ type: 'content', content: { type: 'text', text: item.weftError } });
        return [
          {
            sessionUpdate: 'tool_call_update',
            toolCallId: item.id,
            status: statusOf(item.status),
            content,
            rawOutput: { exitCode: item.exitCode, output, durationMs: item.durationMs },
          },
        ];
      }
      case 'fileChange':
        return [{ sessionUpdate: 'tool_call_update', toolCallId: item.id, status: statusOf(item.status) }];
      case 'mcpToolCall':
        return [
          {
            sessionUpdate: 'tool_call_update',
            toolCallId: item.id,
            status: statusOf(item.status),
            rawOutput: item.result ?? item.error,
          },
        ];
      case 'webSearch':
      case 'imageView':
        return [{ sessionUpdate: 'tool_call_update', toolCallId: item.id, status: 'completed' }];
      default:
        return [];
    }
  }

  /** A path as people read it: relative to the thread's folder when inside it. */
  private shown(path: string): string {
    const rel = relative(this.cwd, this.absolute(path));
    return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? path : rel;
  }

  private absolute(path: string): string {
    return isAbsolute(path) ? path : resolve(this.cwd, path);
  }

  private commandLocations(item: Item<'commandExecution'>): ToolCallLocation[] {
    const paths = item.commandActions.flatMap((a) =>
      a.type === 'read' ? [a.path] : a.type !== 'unknown' && a.path ? [a.path] : [],
    );
    return paths.map((p) => ({ path: isAbsolute(p) ? p : resolve(item.cwd, p) }));
  }
}

function toolCallOf(updates: SessionUpdate[]): Partial<Extract<SessionUpdate, { sessionUpdate: 'tool_call' }>> {
  const update = updates[0];
  if (update?.sessionUpdate !== 'tool_call_update') return {};
  return {
    ...(update.status ? { status: update.status } : {}),
    ...(update.content ? { content: update.content } : {}),
    ...(update.rawOutput !== undefined ? { rawOutput: update.rawOutput } : {}),
  };
}

function outputContent(text: string): ToolCallContent {
  const shown = text.length > MAX_OUTPUT_CHARS ? `…${text.slice(-MAX_OUTPUT_CHARS)}` : text;
  const fence = shown.includes('```') ? '````' : '```';
  return { type: 'content', content: { type: 'text', text: `${fence}\n${shown.replace(/\n$/, '')}\n${fence}` } };
}

function statusOf(status: 'inProgress' | 'completed' | 'failed' | 'declined'): ToolCallStatus {
  return status === 'inProgress' ? 'in_progress' : status === 'completed' ? 'completed' : 'failed';
}

function commandKind(item: Item<'commandExecution'>): ToolKind {
  const kinds = new Set(item.commandActions.map((a) => a.type));
  if (kinds.size === 0 || kinds.has('unknown')) return 'execute';
  if (kinds.size === 1 && kinds.has('read')) return 'read';
  return 'search';
}

function patchKind(item: Item<'fileChange'>): ToolKind {
  const [only] = item.changes;
  if (item.changes.length !== 1 || !only) return 'edit';
  if (only.kind.type === 'delete') return 'delete';
  if (only.kind.type === 'update' && only.kind.move_path) return 'move';
  return 'edit';
}

function patchTitle(item: Item<'fileChange'>, shown: (path: string) => string): string {
  const [only] = item.changes;
  if (item.changes.length !== 1 || !only) return `Edit ${item.changes.length} files`;
  switch (only.kind.type) {
    case 'add':
      return `Create ${shown(only.path)}`;
    case 'delete':
      return `Delete ${shown(only.path)}`;
    case 'update':
      return only.kind.move_path
        ? `Move ${shown(only.path)} to ${shown(only.kind.move_path)}`
        : `Edit ${shown(only.path)}`;
  }
}

function userContent(input: UserInput): Extract<SessionUpdate, { sessionUpdate: 'user_message_chunk' }>['content'] {
  switch (input.type) {
    case 'text':
      return { type: 'text', text: input.text };
    case 'image': {
      const data = /^data:([^;,]+);base64,(.*)$/s.exec(input.url);
      return data?.[1] && data[2] !== undefined
        ? { type: 'image', mimeType: data[1], data: data[2] }
        : { type: 'resource_link', name: input.url, uri: input.url };
    }
    case 'localImage':
      return { type: 'resource_link', name: input.path, uri: `file://${input.path}` };
    case 'mention':
    case 'skill':
      return { type: 'resource_link', name: input.name, uri: `file://${input.path}` };
  }
}

async function readTextFile(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return null;
  }
}
