// Sub-agents with a Chat Completions provider: the five tools are plain functions (no namespace), a call of
// `spawn_agent` by that name starts a child whose own turn runs against the same provider, without tools
// of its own to spawn more.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { weftConfigSchema } from '../../src-main/config/schema';
import type { AgentSession, SubAgentHost } from '../../src-main/core/agents/types';
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

let server: MockChatServer;
let ws: TempWorkspace;
const sessions: Session[] = [];

beforeEach(async () => {
  server = await startMockChatServer();
  ws = await makeTempWorkspace({ 'a.txt': 'alpha\n' });
});

afterEach(async () => {
  for (const s of sessions.splice(0).reverse()) await s.shutdown();
  await server.close();
  await ws.cleanup();
});

const config = weftConfigSchema.parse({
  model: 'local-model',
  model_provider: 'local',
  approval_policy: 'never',
  sandbox_mode: 'danger-full-access',
});

function session(input: { threadId?: string; subAgents?: SubAgentHost; overrides?: Session['currentSettings'] }) {
  const s = createSession({
    config,
    provider: mockProvider(server.url, { id: 'local', wireApi: 'chat' }),
    cwd: ws.dir,
    sendRequest: async () => ({ decision: 'decline' }),
    rules: new RuleStore(ws.path('.rules')),
    env: { SHELL: '/bin/bash', PATH: process.env['PATH'] ?? '' },
    ...input,
  });
  sessions.push(s);
  return s;
}

type ChatBody = {
  tools?: { type: string; function: { name: string } }[];
  messages: { role: string; content?: unknown }[];
};

describe('sub-agents on a Chat Completions provider', () => {
  it('offers the tools as plain functions and spawns a child by the plain name', async () => {
    const children: { session: Session; done: Promise<unknown> }[] = [];
    const host: SubAgentHost = {
      create: (spec): Promise<AgentSession> => {
        const child = session({ threadId: spec.threadId, overrides: spec.settings });
        const done = collectUntil<ServerNotification>(
          (l) => child.subscribe(l),
          (n) => n.method === 'turn/completed',
        );
        children.push({ session: child, done });
        return Promise.resolve(child);
      },
      reopen: () => Promise.resolve(null),
      release: () => Promise.resolve(),
    };
    server.enqueue({
      kind: 'sse',
      chunks: [
        chatRole(),
        chatToolCall(0, { id: 'call_spawn', name: 'spawn_agent', args: '{"message": "count the lines of a.txt"}' }),
        chatFinish('tool_calls'),
      ],
    });
    // The child's request and the parent's next one go out together: both get an answer that ends them.
    for (let i = 0; i < 2; i++)
      server.enqueue({ kind: 'sse', chunks: [chatRole(), chatText('ok'), chatFinish('stop')] });
    const parent = session({ subAgents: host });
    const events: ServerNotification[] = [];
    parent.subscribe((n) => events.push(n));
    const done = collectUntil<ServerNotification>(
      (l) => parent.subscribe(l),
      (n) => n.method === 'turn/completed',
    );
    await parent.startTurn([{ type: 'text', text: 'delegate' }]);
    await done;
    const spawnedChild = children[0];
    if (spawnedChild === undefined) throw new Error('no child was spawned');
    await spawnedChild.done;
    const child = spawnedChild.session;

    const first = server.requests[0]?.body as ChatBody;
    const names = (first.tools ?? []).map((t) => `${t.type}:${t.function.name}`);
    for (const name of ['close_agent', 'resume_agent', 'send_input', 'spawn_agent', 'wait_agent'])
      expect(names).toContain(`function:${name}`);
    const spawned = paramsOf(events, 'item/completed')
      .map((p) => p.item)
      .find((i) => i.type === 'collabAgentToolCall');
    expect(spawned).toMatchObject({ tool: 'spawnAgent', status: 'completed', receiverThreadIds: [child.threadId] });
    // The child asked the provider with its own task and no sub-agent tools.
    const childBody = server.requests
      .map((r) => r.body as ChatBody)
      .find((b) => b.messages.some((m) => m.role === 'user' && JSON.stringify(m.content).includes('count the lines')));
    expect(childBody?.tools?.some((t) => t.function.name === 'spawn_agent')).toBe(false);
    expect(child.turns.map((t) => t.turn.status)).toEqual(['completed']);
  });
});
