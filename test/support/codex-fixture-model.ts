// A scripted model for making fixtures with the real Codex CLI: every request is answered from the words
// of the newest user message, so a prompt decides what the model does. After a tool output it answers
// `DONE: <output>`.
//   RUN <command>                an exec_command call
//   RUNESC <command>             an exec_command call asking to run outside the sandbox (an approval)
//   PATCH <file> <text>          an apply_patch (freeform) call adding <file> holding <text>
//   THINK <text>                 a reasoning item (summary <text>), then `ACK: …`
//   FAIL <text>                  HTTP 400 with <text> as the error message (the turn fails)
//   MCP <server> <tool> <json>   a call of the MCP tool <tool> of <server> (namespace `mcp__<server>`)
//   anything else                `ACK: <message>`
// A request that asks for a compaction summary is answered `SUMMARY: …`. Every answer reports
// `usageTokens` input tokens, so a small `model_auto_compact_token_limit` makes Codex compact.
import {
  startMockResponsesServer,
  type MockResponsesServer,
  type MockStep,
  type RecordedRequest,
} from './mock-responses-server';
import {
  evAssistantMessage,
  evCompleted,
  evCreated,
  evCustomToolCall,
  evFunctionCall,
  evNamespacedCall,
  evOutputTextDelta,
  evReasoning,
  evReasoningSummaryDelta,
  evReasoningSummaryPartAdded,
  type SseEvent,
} from './sse';

interface InputItem {
  type?: string;
  role?: string;
  content?: unknown;
  output?: unknown;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((c: unknown) =>
      typeof c === 'object' && c !== null && 'text' in c && typeof c.text === 'string' ? c.text : '',
    )
    .join('');
}

function inputOf(request: RecordedRequest): InputItem[] {
  const body = request.body;
  if (typeof body !== 'object' || body === null || !('input' in body) || !Array.isArray(body.input)) return [];
  return body.input.filter((i): i is InputItem => typeof i === 'object' && i !== null);
}

function toolNames(request: RecordedRequest): string[] {
  const body = request.body;
  if (typeof body !== 'object' || body === null || !('tools' in body) || !Array.isArray(body.tools)) return [];
  return body.tools.map((t: unknown) =>
    typeof t === 'object' && t !== null && 'name' in t && typeof t.name === 'string' ? t.name : '?',
  );
}

export interface FixtureModel {
  server: MockResponsesServer;
  /** Input tokens every later answer reports. */
  setUsageTokens(tokens: number): void;
  close(): Promise<void>;
}

export async function startFixtureModel(options: { usageTokens?: number } = {}): Promise<FixtureModel> {
  const server = await startMockResponsesServer();
  let n = 0;
  const usage = { input_tokens: options.usageTokens ?? 100, output_tokens: 10 };
  const answer = (request: RecordedRequest): MockStep => {
    n += 1;
    const id = `resp_fx_${n}`;
    const input = inputOf(request);
    const last = input[input.length - 1];
    const reply = (events: (SseEvent | readonly SseEvent[])[]): MockStep => ({
      kind: 'sse',
      events: [evCreated(id), ...events, evCompleted(id, usage)],
    });
    const message = (text: string): (SseEvent | readonly SseEvent[])[] => [
      evOutputTextDelta(text, `msg_fx_${n}`),
      evAssistantMessage(text, `msg_fx_${n}`),
    ];
    if (last && (last.type === 'function_call_output' || last.type === 'custom_tool_call_output')) {
      const out = typeof last.output === 'string' ? last.output : JSON.stringify(last.output);
      const tail =
        out
          .split('\n')
          .filter((l) => l.trim() !== '')
          .slice(-1)[0] ?? '';
      return reply(message(`DONE: ${tail}`));
    }
    const users = input.filter((i) => i.type === 'message' && i.role === 'user').map((i) => textOf(i.content));
    const words = users[users.length - 1] ?? '';
    if (/summary/i.test(words) && /(CONTEXT CHECKPOINT|handoff)/i.test(words)) {
      return reply(
        message(
          `SUMMARY: the user asked ${users.length} things; last one before this: ${users[users.length - 2]?.slice(0, 80) ?? ''}`,
        ),
      );
    }
    const [verb, ...rest] = words.trim().split(/\s+/);
    if (verb === 'RUNESC')
      return reply([
        evFunctionCall(`call_fx_${n}`, 'exec_command', {
          cmd: rest.join(' '),
          sandbox_permissions: 'require_escalated',
          justification: 'the fixture asks',
        }),
      ]);
    if (verb === 'RUN') return reply([evFunctionCall(`call_fx_${n}`, 'exec_command', { cmd: rest.join(' ') })]);
    if (verb === 'PATCH') {
      const [file, ...text] = rest;
      const patch = `*** Begin Patch\n*** Add File: ${file ?? 'out.txt'}\n+${text.join(' ')}\n*** End Patch\n`;
      if (toolNames(request).includes('apply_patch'))
        return reply([evCustomToolCall(`call_fx_${n}`, 'apply_patch', patch)]);
      return reply([evFunctionCall(`call_fx_${n}`, 'exec_command', { cmd: `apply_patch <<'EOF'\n${patch}EOF\n` })]);
    }
    if (verb === 'MCP') {
      const [server, tool, ...args] = rest;
      const json: unknown = JSON.parse(args.join(' ') || '{}');
      const params = typeof json === 'object' && json !== null ? json : {};
      return reply([evNamespacedCall(`call_fx_${n}`, `mcp__${server ?? ''}`, tool ?? '', params)]);
    }
    if (verb === 'FAIL')
      return { kind: 'http-error', status: 400, body: { error: { message: rest.join(' '), type: 'invalid_request' } } };
    if (verb === 'THINK') {
      const thought = rest.join(' ');
      return reply([
        evReasoningSummaryPartAdded(0, `rs_fx_${n}`),
        evReasoningSummaryDelta(thought, 0, `rs_fx_${n}`),
        evReasoning([thought], `rs_fx_${n}`),
        ...message(`ACK: ${thought}`),
      ]);
    }
    return reply(message(`ACK: ${words.slice(0, 200)}`));
  };
  const refill = (): void => {
    for (let i = 0; i < 50; i++)
      server.enqueue((r) => {
        if (server.remainingSteps < 5) refill();
        return answer(r);
      });
  };
  refill();
  return {
    server,
    setUsageTokens: (tokens) => {
      usage.input_tokens = tokens;
    },
    close: () => server.close(),
  };
}
