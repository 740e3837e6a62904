// ThreadItems from the events Codex persists (Weft reads them from Codex rollouts, and from the Codex part
// of threads continued in Weft). Ids: Codex's call ids where it has them, else `item-<byte offset>` —
// stable across reads of the same file.
import { z } from 'zod';
import { MessagePhase, type ThreadItem, type UserInput } from '../../src-preload/protocol';
import {
  AgentMessageEvent,
  CodexItemCompletedEvent,
  ExecCommandEndEvent,
  McpToolCallEndEvent,
  PatchApplyEndEvent,
  UserMessageEvent,
  ViewImageEvent,
  WebSearchEndEvent,
  durationMs,
} from './events';
import { codexThreadItem } from './codex-thread-items';
import { commandActions, fileChange, shellJoin } from './codex-item-parts';

const McpOk = z.object({
  Ok: z.looseObject({ content: z.array(z.json()).catch([]), structuredContent: z.json().optional() }),
});
const McpErr = z.object({ Err: z.unknown() });

/** The item a Codex event stands for, or null for events that are not items (or unreadable ones). */
export function codexItem(event: string, payload: unknown, id: string): ThreadItem | null {
  switch (event) {
    case 'user_message': {
      const e = UserMessageEvent.safeParse(payload);
      if (!e.success) return null;
      const content: UserInput[] = [];
      if (e.data.message !== '') content.push({ type: 'text', text: e.data.message });
      for (const url of e.data.images ?? []) content.push({ type: 'image', url });
      for (const path of e.data.local_images ?? []) content.push({ type: 'localImage', path });
      return { type: 'userMessage', id, content };
    }
    case 'agent_message': {
      const e = AgentMessageEvent.safeParse(payload);
      if (!e.success) return null;
      const phase = MessagePhase.safeParse(e.data.phase);
      return { type: 'agentMessage', id, text: e.data.message, phase: phase.success ? phase.data : null };
    }
    case 'exec_command_end': {
      const e = ExecCommandEndEvent.safeParse(payload);
      if (!e.success) return null;
      const d = e.data;
      const command = typeof d.command === 'string' ? d.command : shellJoin(d.command);
      const declared = z.enum(['completed', 'failed', 'declined']).safeParse(d.status);
      const exitCode = d.exit_code ?? null;
      return {
        type: 'commandExecution',
        id: d.call_id,
        command,
        cwd: d.cwd ?? '',
        processId: null,
        status: declared.success ? declared.data : exitCode === 0 ? 'completed' : 'failed',
        commandActions: commandActions(d['parsed_cmd'], command),
        aggregatedOutput: d.aggregated_output ?? d.formatted_output ?? (d.stdout ?? '') + (d.stderr ?? ''),
        exitCode,
        durationMs: durationMs(d.duration),
      };
    }
    case 'patch_apply_end': {
      const e = PatchApplyEndEvent.safeParse(payload);
      if (!e.success) return null;
      const changes = Object.entries(e.data.changes ?? {}).flatMap(([path, v]) => {
        const c = fileChange(path, v);
        return c ? [c] : [];
      });
      const declared = z.enum(['completed', 'failed', 'declined']).safeParse(e.data.status);
      const status = declared.success ? declared.data : e.data.success === false ? 'failed' : 'completed';
      return { type: 'fileChange', id: e.data.call_id, changes, status };
    }
    case 'item_completed': {
      const e = CodexItemCompletedEvent.safeParse(payload);
      if (!e.success) return null;
      const item = codexThreadItem(e.data.item, id);
      if (item) return item;
      if (e.data.item.type.toLowerCase() !== 'plan') return null;
      return { type: 'plan', id: e.data.item.id ?? id, text: e.data.item.text ?? '' };
    }
    case 'context_compacted':
      return { type: 'contextCompaction', id };
    case 'web_search_end': {
      const e = WebSearchEndEvent.safeParse(payload);
      return e.success ? { type: 'webSearch', id: e.data.call_id, query: e.data.query ?? '' } : null;
    }
    case 'view_image_tool_call': {
      const e = ViewImageEvent.safeParse(payload);
      return e.success ? { type: 'imageView', id: e.data.call_id, path: e.data.path } : null;
    }
    case 'mcp_tool_call_end': {
      const e = McpToolCallEndEvent.safeParse(payload);
      if (!e.success) return null;
      const okResult = McpOk.safeParse(e.data.result);
      const ok = okResult.success ? okResult.data.Ok : null;
      const errResult = McpErr.safeParse(e.data.result);
      const err = errResult.success ? errResult.data.Err : null;
      return {
        type: 'mcpToolCall',
        id: e.data.call_id,
        server: e.data.invocation.server,
        tool: e.data.invocation.tool,
        status: ok ? 'completed' : 'failed',
        arguments: e.data.invocation.arguments ?? null,
        result: ok
          ? {
              content: ok.content,
              ...(ok.structuredContent === undefined ? {} : { structuredContent: ok.structuredContent }),
            }
          : null,
        error: ok ? null : { message: typeof err === 'string' ? err : JSON.stringify(err ?? 'failed') },
        durationMs: durationMs(e.data.duration),
      };
    }
    default:
      return null;
  }
}
