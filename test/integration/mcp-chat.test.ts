// MCP tools for a Chat Completions provider: flat `mcp__<server>__<tool>` functions.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { weftConfigSchema } from '../../src-main/config/schema';
import { createSession } from '../../src-main/core/create-session';
import type { Session } from '../../src-main/core/session';
import { RuleStore } from '../../src-main/safety/approvals/rules';
import type { ServerNotification } from '../../src-preload/protocol';
import { mockProvider, paramsOf } from '../support/agent';
import {
  chatFinish,
  chatRole,
  chatText,
  chatToolCall,
  startMockChatServer,
  type MockChatServer,
} from '../support/mock-chat-server';
import { collectUntil } from '../support/wait';
import { makeTempWorkspace, type TempWorkspace } from '../support/workspace';

const require = createRequire(import.meta.url);
const EVERYTHING = join(
  require.resolve('@modelcontextprotocol/server-everything/package.json'),
  '..',
  'dist',
  'index.js',
);

let server: MockChatServer;
let ws: TempWorkspace;
let session: Session | undefined;

beforeEach(async () => {
  server = await startMockChatServer();
  ws = await makeTempWorkspace({});
});

afterEach(async () => {
  await session?.shutdown();
  session = undefined;
  await server.close();
  await ws.cleanup();
});

describe('MCP tools with a Chat Completions provider', () => {
  it('offers flat mcp__server__tool functions and sends the result back as the tool message', async () => {
    server.enqueue({
      kind: 'sse',
      chunks: [
        chatRole(),
        chatToolCall(0, { id: 'call_1', name: 'mcp__everything__echo', args: '{"message":"flat"}' }),
        chatFinish('tool_calls'),
      ],
    });
    server.enqueue({ kind: 'sse', chunks: [chatRole(), chatText('echoed'), chatFinish('stop')] });
    const config = weftConfigSchema.parse({
      model: 'local-model',
      model_provider: 'local',
      approval_policy: 'never',
      sandbox_mode: 'danger-full-access',
      mcp_servers: {
        everything: { command: process.execPath, args: [EVERYTHING, 'stdio'], enabled_tools: ['echo', 'get-sum'] },
      },
    });
    const s = createSession({
      config,
      provider: mockProvider(server.url, { id: 'local', wireApi: 'chat' }),
      cwd: ws.dir,
      sendRequest: async () => ({ decision: 'decline' }),
      rules: new RuleStore(ws.path('.rules')),
      env: { PATH: process.env['PATH'] ?? '' },
    });
    session = s;
    const events: ServerNotification[] = [];
    s.subscribe((n) => events.push(n));
    const done = collectUntil(s.subscribe.bind(s), (n) => n.method === 'turn/completed', { label: 'turn/completed' });
    await s.startTurn([{ type: 'text', text: 'echo' }]);
    await done;

    const tools = (server.requests[0]?.body as { tools: { type: string; function: { name: string } }[] }).tools.map(
      (t) => t.function.name,
    );
    // enabled_tools keeps only these two; no namespace reaches a chat provider.
    expect(tools.filter((n) => n.startsWith('mcp__')).sort()).toEqual([
      'mcp__everything__echo',
      'mcp__everything__get_sum',
    ]);
    const messages = (
      server.requests[1]?.body as { messages: { role: string; tool_call_id?: string; content: unknown }[] }
    ).messages;
    const toolMessage = messages.find((m) => m.role === 'tool');
    expect(toolMessage?.tool_call_id).toBe('call_1');
    expect(JSON.stringify(toolMessage?.content)).toContain('Echo: flat');
    const item = paramsOf(events, 'item/completed')
      .map((p) => p.item)
      .find((i) => i.type === 'mcpToolCall');
    expect(item).toMatchObject({
      server: 'everything',
      tool: 'echo',
      status: 'completed',
      arguments: { message: 'flat' },
    });
  });
});
