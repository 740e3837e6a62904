// The browser tools with a Chat Completions provider: flat `browser__<name>` functions, and a screenshot
// sent as an image in the user message that follows the tool message.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { weftConfigSchema } from '../../src-main/config/schema';
import { createSession } from '../../src-main/core/create-session';
import type { Session } from '../../src-main/core/session';
import { RuleStore } from '../../src-main/safety/approvals/rules';
import { mockProvider } from '../support/agent';
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
import { startLocalSite, type LocalSite } from '../support/local-site';

let server: MockChatServer;
let site: LocalSite;
let siteUrl: string;
let ws: TempWorkspace;
let session: Session | undefined;

beforeEach(async () => {
  server = await startMockChatServer();
  ws = await makeTempWorkspace({});
  site = await startLocalSite((req, res) => {
    if (req.url === '/') res.writeHead(200, { 'content-type': 'text/html' }).end('<title>Chat</title><h1>Hello</h1>');
    else res.writeHead(204).end();
  });
  siteUrl = site.url;
});

afterEach(async () => {
  await session?.shutdown();
  session = undefined;
  await server.close();
  await site.close();
  await ws.cleanup();
});

describe('browser tools with a Chat Completions provider', () => {
  it('offers flat browser__ functions and sends the screenshot as an image after the tool message', async () => {
    server.enqueue({
      kind: 'sse',
      chunks: [
        chatRole(),
        chatToolCall(0, { id: 'call_1', name: 'browser__open', args: JSON.stringify({ url: `${siteUrl}/` }) }),
        chatToolCall(1, { id: 'call_2', name: 'browser__screenshot', args: '{}' }),
        chatFinish('tool_calls'),
      ],
    });
    server.enqueue({ kind: 'sse', chunks: [chatRole(), chatText('seen'), chatFinish('stop')] });
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
      env: { PATH: process.env['PATH'] ?? '' },
    });
    session = s;
    const done = collectUntil(s.subscribe.bind(s), (n) => n.method === 'turn/completed', { label: 'turn/completed' });
    await s.startTurn([{ type: 'text', text: 'look' }]);
    await done;

    const tools = (server.requests[0]?.body as { tools: { function: { name: string } }[] }).tools.map(
      (t) => t.function.name,
    );
    expect(tools.filter((n) => n.startsWith('browser'))).toEqual([
      'browser__open',
      'browser__screenshot',
      'browser__click',
      'browser__type',
      'browser__read',
      'browser__console',
      'browser__evaluate',
      'browser__close',
    ]);
    const messages = (
      server.requests[1]?.body as { messages: { role: string; tool_call_id?: string; content: unknown }[] }
    ).messages;
    const afterCalls = messages.slice(messages.findIndex((m) => m.role === 'tool'));
    expect(afterCalls.map((m) => [m.role, m.tool_call_id ?? null])).toEqual([
      ['tool', 'call_1'],
      ['tool', 'call_2'],
      ['user', null],
    ]);
    expect(afterCalls[1]?.content).toBe(
      `Screenshot of ${siteUrl}/ — "Chat": 1229×768 px.\n(1 image in the next message)`,
    );
    expect(JSON.stringify(afterCalls[2]?.content)).toMatch(/"url":"data:image\/png;base64,iVBORw0KGgo/);
  });
});
