import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { weftConfigSchema } from '../../src-main/config/schema';
import { createSession } from '../../src-main/core/create-session';
import type { Session } from '../../src-main/core/session';
import { RuleStore } from '../../src-main/safety/approvals/rules';
import type { ServerNotification } from '../../src-preload/protocol';
import { mockProvider, paramsOf } from '../support/agent';
import {
  chatChunk,
  chatFinish,
  chatRole,
  chatText,
  chatToolCall,
  chatUsage,
  startMockChatServer,
  type MockChatServer,
} from '../support/mock-chat-server';
import { collectUntil } from '../support/wait';
import { makeTempWorkspace, type TempWorkspace } from '../support/workspace';

let server: MockChatServer;
let ws: TempWorkspace;
let session: Session | undefined;

beforeEach(async () => {
  server = await startMockChatServer();
  ws = await makeTempWorkspace({ 'a.txt': 'alpha\n' });
});

afterEach(async () => {
  await session?.shutdown();
  session = undefined;
  await server.close();
  await ws.cleanup();
});

function start(): { session: Session; events: ServerNotification[] } {
  const config = weftConfigSchema.parse({
    model: 'local-model',
    model_provider: 'local',
    approval_policy: 'never',
    sandbox_mode: 'danger-full-access',
  });
  const s = createSession({
    config,
    provider: mockProvider(server.url, { id: 'local', wireApi: 'chat' }),
    cwd: ws.dir,
    sendRequest: async () => ({ decision: 'decline' }),
    rules: new RuleStore(ws.path('.rules')),
    env: { SHELL: '/bin/bash', PATH: process.env['PATH'] ?? '' },
  });
  const events: ServerNotification[] = [];
  s.subscribe((n) => events.push(n));
  session = s;
  return { session: s, events };
}

describe('a Chat Completions provider through the agent loop', () => {
  it('runs parallel tool calls streamed in pieces, shows reasoning, and answers', async () => {
    server.enqueue({
      kind: 'sse',
      chunks: [
        chatRole(),
        chatChunk({ reasoning_content: 'Need to read ' }),
        chatChunk({ reasoning_content: 'the file.' }),
        chatToolCall(0, { id: 'call_a', name: 'exec_command', args: '{"cmd":' }),
        chatToolCall(1, { id: 'call_b', name: 'exec_command', args: '{"cmd": "echo b"}' }),
        chatToolCall(0, { args: ' "cat a.txt"}' }),
        chatFinish('tool_calls'),
        chatUsage({ prompt_tokens: 50, completion_tokens: 10 }),
      ],
    });
    server.enqueue({
      kind: 'sse',
      chunks: [chatRole(), chatText('The file says '), chatText('alpha.'), chatFinish('stop')],
    });
    const { session: s, events } = start();
    const done = collectUntil<ServerNotification>(
      (l) => s.subscribe(l),
      (n) => n.method === 'turn/completed',
    );
    await s.startTurn([{ type: 'text', text: 'read a.txt' }]);
    await done;

    expect(paramsOf(events, 'turn/completed')[0]?.turn.status).toBe('completed');
    const reasoning = paramsOf(events, 'item/completed')
      .map((p) => p.item)
      .find((i) => i.type === 'reasoning');
    expect(reasoning?.type === 'reasoning' && reasoning.summary.join('')).toBe('Need to read the file.');
    const messages = server.requests[1]?.body as {
      messages: { role: string; tool_call_id?: string; content?: unknown; tool_calls?: { id: string }[] }[];
      tools: { function: { name: string } }[];
    };
    const toolMessages = messages.messages.filter((m) => m.role === 'tool');
    expect(toolMessages.map((m) => m.tool_call_id)).toEqual(['call_a', 'call_b']);
    expect(String(toolMessages[0]?.content)).toContain('alpha');
    expect(String(toolMessages[1]?.content)).toContain('b');
    // Local models get apply_patch as a JSON function, like every other tool.
    expect(messages.tools.map((t) => t.function.name)).toContain('apply_patch');
    const final = paramsOf(events, 'item/completed')
      .map((p) => p.item)
      .filter((i) => i.type === 'agentMessage')
      .at(-1);
    expect(final?.type === 'agentMessage' && final.text).toBe('The file says alpha.');
    expect(paramsOf(events, 'thread/tokenUsage/updated')[0]?.tokenUsage.last).toMatchObject({
      inputTokens: 50,
      outputTokens: 10,
    });
  });
});
