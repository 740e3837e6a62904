// Codex 0.169's completed items: `event_msg {type: "item_completed", thread_id, turn_id, item, started_at_ms,
// completed_at_ms}` whose `item` is tagged by a PascalCase `type`. Codex rebuilds a thread's turns from them,
// and so does Weft; Weft also writes its own items in this form so Codex can read Weft's threads.
//
// The forms (as Codex 0.169 writes them):
//   UserMessage       {id, content: [{type: "text", text, text_elements} | {type: "image", image_url} |
//                      {type: "local_image", path} | {type: "mention" | "skill", name, path}]}
//   AgentMessage      {id, content: [{type: "Text", text}], phase?}
//   Reasoning         {id, summary_text: string[], raw_content: string[]}
//   CommandExecution  {id, process_id, command: argv, cwd: "file://…", parsed_cmd, source, status,
//                      aggregated_output, exit_code, duration: {secs, nanos}}
//   FileChange        {id, changes: {<path>: {type: "add", content} | {type: "delete", content} |
//                      {type: "update", unified_diff, move_path}}, status, stdout, stderr}
//   ContextCompaction {id}
//   Plan              {id, text}
//   WebSearch         {id, query}
//   ImageView         {id, path}
//   CollabAgentToolCall {id, tool: "spawn_agent" | "send_input" | "resume_agent" | "wait" | "close_agent",
//                      status, sender_thread_id, receiver_thread_ids, receiver_agents: [{thread_id,
//                      agent_nickname}], prompt?, model?, reasoning_effort?, agents_states: {<id>: status
//                      as the model reads it (agent-status.ts)}}
//   HookPrompt        {id, fragments: [{text, hookRunId}]} (a Stop hook's continuation; the model's user
//                      message of `<hook_prompt>`s is its own response_item line)
// Other kinds (review mode, MCP and dynamic tool calls, image generation) are not shown.
import { fileURLToPath, pathToFileURL } from 'node:url';
import { z } from 'zod';
import {
  AgentStatusForm,
  agentStateOf,
  agentStatusFormOf,
  CollabAgentTool,
  CollabAgentToolCallStatus,
  MessagePhase,
  type CommandAction,
  type ThreadItem,
  type UserInput,
} from '../../src-preload/protocol';
import { jsonEqual } from '../util/json-equal';
import { commandActions, fileChange, shellJoin } from './codex-item-parts';
import { CodexDuration, durationMs } from './events';

const str = z.string().nullish();
const strings = z.array(z.string()).nullish().catch(null);

const Content = z
  .array(z.looseObject({ type: z.string(), text: str, image_url: str, url: str, path: str, name: str }))
  .catch([]);

const CodexItem = z.looseObject({
  type: z.string(),
  id: str,
  content: Content.nullish(),
  phase: z.unknown().optional(),
  summary_text: strings,
  raw_content: strings,
  text: str,
  query: str,
  path: str,
  command: z
    .union([z.array(z.string()), z.string()])
    .nullish()
    .catch(null),
  cwd: str,
  process_id: z.union([z.string(), z.number()]).nullish().catch(null),
  parsed_cmd: z.unknown().optional(),
  status: str,
  aggregated_output: str,
  exit_code: z.number().int().nullish().catch(null),
  duration: CodexDuration.catch(null),
  changes: z.record(z.string(), z.unknown()).nullish().catch(null),
  tool: str,
  sender_thread_id: str,
  receiver_thread_ids: strings,
  prompt: str,
  model: str,
  reasoning_effort: str,
  agents_states: z.record(z.string(), AgentStatusForm).nullish().catch(null),
  fragments: z
    .array(z.object({ text: z.string(), hookRunId: z.string() }))
    .nullish()
    .catch(null),
});

/** Codex's rollout names of the sub-agent tools, by the wire's. */
const COLLAB_TOOLS = {
  spawnAgent: 'spawn_agent',
  sendInput: 'send_input',
  resumeAgent: 'resume_agent',
  wait: 'wait',
  closeAgent: 'close_agent',
} as const satisfies Record<CollabAgentTool, string>;

function collabTool(name: string | null | undefined): CollabAgentTool | null {
  const found = Object.entries(COLLAB_TOOLS).find(([, codex]) => codex === name)?.[0];
  const parsed = CollabAgentTool.safeParse(found);
  return parsed.success ? parsed.data : null;
}

/** Codex writes the cwd of a command as a file URL. */
function pathOf(value: string): string {
  if (!value.startsWith('file://')) return value;
  try {
    return fileURLToPath(value);
  } catch {
    return value;
  }
}

function userInputs(content: z.infer<typeof Content>): UserInput[] {
  return content.flatMap((c): UserInput[] => {
    switch (c.type) {
      case 'text':
        return [{ type: 'text', text: c.text ?? '' }];
      case 'image': {
        const url = c.image_url ?? c.url;
        return url ? [{ type: 'image', url }] : [];
      }
      case 'local_image':
      case 'localImage':
        return c.path ? [{ type: 'localImage', path: c.path }] : [];
      case 'mention':
      case 'skill':
        return c.path && typeof c.name === 'string' ? [{ type: c.type, name: c.name, path: c.path }] : [];
      default:
        return [];
    }
  });
}

const doneStatus = (s: string | null | undefined): 'completed' | 'failed' | 'declined' | null =>
  s === 'completed' || s === 'failed' || s === 'declined' ? s : null;

/** The ThreadItem of a Codex 0.169 item, or null for kinds Weft does not show (or unreadable ones). */
export function codexThreadItem(value: unknown, fallbackId: string): ThreadItem | null {
  const parsed = CodexItem.safeParse(value);
  if (!parsed.success) return null;
  const c = parsed.data;
  const id = c.id ?? fallbackId;
  switch (c.type) {
    case 'UserMessage':
      return { type: 'userMessage', id, content: userInputs(c.content ?? []) };
    case 'AgentMessage': {
      const phase = MessagePhase.safeParse(c.phase);
      const text = (c.content ?? []).map((p) => p.text ?? '').join('');
      return { type: 'agentMessage', id, text, phase: phase.success ? phase.data : null };
    }
    case 'Reasoning':
      return { type: 'reasoning', id, summary: c.summary_text ?? [], content: c.raw_content ?? [] };
    case 'CommandExecution': {
      const command = typeof c.command === 'string' ? c.command : shellJoin(c.command ?? []);
      const exitCode = c.exit_code ?? null;
      return {
        type: 'commandExecution',
        id,
        command,
        cwd: pathOf(c.cwd ?? ''),
        processId: c.process_id === null || c.process_id === undefined ? null : String(c.process_id),
        status: doneStatus(c.status) ?? (exitCode === 0 ? 'completed' : 'failed'),
        commandActions: commandActions(c.parsed_cmd, command),
        aggregatedOutput: c.aggregated_output ?? null,
        exitCode,
        durationMs: durationMs(c.duration),
      };
    }
    case 'FileChange': {
      const changes = Object.entries(c.changes ?? {}).flatMap(([path, v]) => {
        const change = fileChange(path, v);
        return change ? [change] : [];
      });
      return { type: 'fileChange', id, changes, status: doneStatus(c.status) ?? 'completed' };
    }
    case 'ContextCompaction':
      return { type: 'contextCompaction', id };
    case 'Plan':
      return { type: 'plan', id, text: c.text ?? '' };
    case 'WebSearch':
      return { type: 'webSearch', id, query: c.query ?? '' };
    case 'ImageView':
      return c.path ? { type: 'imageView', id, path: c.path } : null;
    case 'CollabAgentToolCall': {
      const tool = collabTool(c.tool);
      const status = CollabAgentToolCallStatus.safeParse(c.status);
      if (tool === null || !status.success) return null;
      return {
        type: 'collabAgentToolCall',
        id,
        tool,
        status: status.data,
        senderThreadId: c.sender_thread_id ?? '',
        receiverThreadIds: c.receiver_thread_ids ?? [],
        prompt: c.prompt ?? null,
        model: c.model ?? null,
        reasoningEffort: c.reasoning_effort ?? null,
        agentsStates: Object.fromEntries(
          Object.entries(c.agents_states ?? {}).map(([agent, form]) => [agent, agentStateOf(form)]),
        ),
      };
    }
    case 'HookPrompt':
      return { type: 'hookPrompt', id, fragments: c.fragments ?? [] };
    default:
      return null;
  }
}

const ItemEvent = z.looseObject({ item: z.looseObject({ type: z.string(), content: Content.nullish() }) });

/** An item in Codex's form: its `type` ("UserMessage", "AgentMessage", …) and fields. */
export type CodexItemForm = { type: string } & Record<string, unknown>;

/** The `item.type` of an item_completed payload, or null. */
export function codexItemType(payload: unknown): string | null {
  const e = ItemEvent.safeParse(payload);
  return e.success ? e.data.item.type : null;
}

/** The text of a UserMessage / AgentMessage item_completed payload (its text parts joined), or null. */
export function codexMessageText(payload: unknown): string | null {
  const e = ItemEvent.safeParse(payload);
  if (!e.success) return null;
  const parts = (e.data.item.content ?? []).filter((c) => c.type === 'text' || c.type === 'Text');
  return parts.map((c) => c.text ?? '').join('\n');
}

/** The text of a UserMessage item_completed payload, or null for other items. */
export function userMessageText(payload: unknown): string | null {
  return codexItemType(payload) === 'UserMessage' ? codexMessageText(payload) : null;
}

function parsedCommand(a: CommandAction): Record<string, unknown> {
  switch (a.type) {
    case 'read':
      return { type: 'read', cmd: a.command, name: a.name, path: a.path };
    case 'listFiles':
      return { type: 'list_files', cmd: a.command, path: a.path };
    case 'search':
      return { type: 'search', cmd: a.command, query: a.query, path: a.path };
    case 'unknown':
      return { type: 'unknown', cmd: a.command };
  }
}

function duration(ms: number | null): { secs: number; nanos: number } | null {
  if (ms === null) return null;
  const secs = Math.floor(ms / 1000);
  return { secs, nanos: Math.round((ms - secs * 1000) * 1e6) };
}

/**
 * The content Codex records for an added (or deleted) file, from Weft's unified diff of it: the `+` (or
 * `-`) lines. A diff that is not a unified one is taken as the content.
 */
export function contentOfDiff(diff: string, sign: '+' | '-'): string {
  if (!/^@@ /m.test(diff)) return diff;
  const out: string[] = [];
  let body = false;
  let lastNoNewline = false;
  for (const line of diff.split('\n')) {
    if (line.startsWith('@@')) {
      body = true;
      continue;
    }
    if (!body) continue;
    if (line.startsWith('\\')) {
      lastNoNewline = out.length > 0;
      continue;
    }
    if (line.startsWith(sign)) out.push(line.slice(1));
  }
  return out.join('\n') + (out.length > 0 && !lastNoNewline ? '\n' : '');
}

/** A file URL for a cwd; an empty or relative cwd stays as it is. */
function fileUrl(path: string): string {
  return path.startsWith('/') ? pathToFileURL(path).href : path;
}

/**
 * The Codex 0.169 form of a completed Weft item, or null when Codex has no form for it (Weft then records
 * the item in a Weft-only line). Statuses other than completed / failed / declined have no Codex form
 * either: only finished items are recorded.
 */
export function toCodexItem(item: ThreadItem): CodexItemForm | null {
  switch (item.type) {
    case 'userMessage':
      return {
        type: 'UserMessage',
        id: item.id,
        content: item.content.map((c) => {
          switch (c.type) {
            case 'text':
              return { type: 'text', text: c.text, text_elements: [] };
            case 'image':
              return { type: 'image', image_url: c.url };
            case 'localImage':
              return { type: 'local_image', path: c.path };
            case 'mention':
              return { type: 'mention', name: c.name, path: c.path };
            case 'skill':
              return { type: 'skill', name: c.name, path: c.path };
          }
        }),
      };
    case 'agentMessage':
      return {
        type: 'AgentMessage',
        id: item.id,
        content: [{ type: 'Text', text: item.text }],
        ...(item.phase === null ? {} : { phase: item.phase }),
      };
    case 'reasoning':
      return { type: 'Reasoning', id: item.id, summary_text: item.summary, raw_content: item.content };
    case 'commandExecution': {
      if (item.status === 'inProgress') return null;
      return {
        type: 'CommandExecution',
        id: item.id,
        process_id: item.processId,
        command: ['/bin/bash', '-lc', item.command],
        cwd: fileUrl(item.cwd),
        parsed_cmd: item.commandActions.map(parsedCommand),
        source: 'agent',
        status: item.status,
        aggregated_output: item.aggregatedOutput ?? '',
        exit_code: item.exitCode,
        duration: duration(item.durationMs),
      };
    }
    case 'fileChange': {
      if (item.status === 'inProgress') return null;
      const changes: Record<string, unknown> = {};
      for (const c of item.changes) {
        changes[c.path] =
          c.kind.type === 'update'
            ? { type: 'update', unified_diff: c.diff, move_path: c.kind.move_path }
            : { type: c.kind.type, content: contentOfDiff(c.diff, c.kind.type === 'add' ? '+' : '-') };
      }
      return { type: 'FileChange', id: item.id, changes, status: item.status, stdout: '', stderr: '' };
    }
    case 'contextCompaction':
      return { type: 'ContextCompaction', id: item.id };
    case 'plan':
      return { type: 'Plan', id: item.id, text: item.text };
    case 'webSearch':
      return { type: 'WebSearch', id: item.id, query: item.query };
    case 'imageView':
      return { type: 'ImageView', id: item.id, path: item.path };
    case 'collabAgentToolCall':
      if (item.status === 'inProgress') return null;
      return {
        type: 'CollabAgentToolCall',
        id: item.id,
        tool: COLLAB_TOOLS[item.tool],
        status: item.status,
        sender_thread_id: item.senderThreadId,
        receiver_thread_ids: item.receiverThreadIds,
        receiver_agents: item.receiverThreadIds.map((id) => ({ thread_id: id })),
        ...(item.prompt === null ? {} : { prompt: item.prompt }),
        ...(item.model === null ? {} : { model: item.model }),
        ...(item.reasoningEffort === null ? {} : { reasoning_effort: item.reasoningEffort }),
        agents_states: Object.fromEntries(
          Object.entries(item.agentsStates).map(([agent, state]) => [agent, agentStatusFormOf(state)]),
        ),
      };
    case 'hookPrompt':
      return {
        type: 'HookPrompt',
        id: item.id,
        fragments: item.fragments.map((f) => ({ text: f.text, hookRunId: f.hookRunId })),
      };
    case 'mcpToolCall':
    case 'enteredReviewMode':
    case 'exitedReviewMode':
    case 'browserAction':
      return null;
  }
}

/**
 * What `item` has that its Codex form does not carry (fields whose values differ after a round trip), or
 * null when the Codex form says it all. Written next to the Codex form in a `weft_item_fields` line.
 */
export function weftOnlyFields(item: ThreadItem, codex: Record<string, unknown>): Record<string, unknown> | null {
  const back = codexThreadItem(codex, item.id);
  const fields: Record<string, unknown> = {};
  const backFields: Record<string, unknown> = back ? { ...back } : {};
  for (const [key, value] of Object.entries(item)) {
    if (!jsonEqual(backFields[key], value)) fields[key] = value;
  }
  return Object.keys(fields).length === 0 ? null : fields;
}
