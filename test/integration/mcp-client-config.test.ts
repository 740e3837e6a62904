// What an MCP server's config changes at run time, seen from a real server (test/support's probe server,
// over stdio and streamable HTTP) driven through the core and the mock model: when a call asks for
// approval (`approval`, per-tool `approval`, the tool's annotations); what reaches the server's process
// (`env`, `env_vars`, `cwd`) and its HTTP requests (`http_headers`, `env_http_headers`,
// `bearer_token_env_var`); and `tool_timeout_sec`.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { McpToolCallItem, ServerNotification, ThreadItem } from '../../src-preload/protocol';
import { paramsOf, startAgent, type AgentHarness, type AgentOptions } from '../support/agent';
import {
  assertAllToolOutputsAnswered,
  startMockResponsesServer,
  type MockResponsesServer,
} from '../support/mock-responses-server';
import { evAssistantMessage, evCompleted, evCreated, evNamespacedCall, evOutputTextDelta } from '../support/sse';
import { makeTempWorkspace, type TempWorkspace } from '../support/workspace';

const PROBE = join(__dirname, '..', 'support', 'mcp-probe-server.mjs');
const probeStdio = { command: process.execPath, args: [PROBE] };

let model: MockResponsesServer;
let ws: TempWorkspace;
let agent: AgentHarness | undefined;

beforeEach(async () => {
  model = await startMockResponsesServer();
  ws = await makeTempWorkspace({});
});

afterEach(async () => {
  await agent?.close();
  agent = undefined;
  await model.close();
  await ws.cleanup();
});

const answer = (text: string) => ({
  kind: 'sse' as const,
  events: [evCreated(), evOutputTextDelta(text), evAssistantMessage(text), evCompleted()],
});
const calls = (...c: ReturnType<typeof evNamespacedCall>[]) => ({
  kind: 'sse' as const,
  events: [evCreated(), ...c, evCompleted()],
});

function start(servers: Record<string, unknown>, extra: Partial<AgentOptions> = {}): AgentHarness {
  agent = startAgent({ baseUrl: model.url, cwd: ws.dir, ...extra, config: { mcp_servers: servers, ...extra.config } });
  return agent;
}

function mcpItems(events: ServerNotification[]): McpToolCallItem[] {
  return paramsOf(events, 'item/completed')
    .map((p) => p.item)
    .filter((i: ThreadItem): i is McpToolCallItem => i.type === 'mcpToolCall');
}

/** Starts an agent that answers every MCP approval question with "Allow" and keeps the questions. */
function startAsking(servers: Record<string, unknown>): { agent: AgentHarness; questions: string[] } {
  const questions: string[] = [];
  const a = start(servers, {
    config: { approval_policy: 'on-request' },
    sendRequest: async (request) => {
      if (request.method !== 'item/tool/requestUserInput') return { decision: 'decline' };
      questions.push(request.params.questions[0]?.question ?? '');
      return { answers: { approval: { answers: ['Allow'] } } };
    },
  });
  return { agent: a, questions };
}

/** What the probe's `whoami` tool saw, from the output the model was sent. */
function whoami(request: number, index = 0): { env: Record<string, string>; cwd: string; headers: unknown } {
  const output = assertAllToolOutputsAnswered(model.requests[request]?.body)[index]?.output as { text?: string }[];
  const text = output.map((p) => p.text ?? '').find((t) => t.startsWith('{'));
  expect(text, JSON.stringify(output)).toBeDefined();
  return JSON.parse(text ?? '{}') as { env: Record<string, string>; cwd: string; headers: unknown };
}

describe('MCP approvals', () => {
  it('asks for a tool that says it is destructive (even if also read-only) or says nothing, not for a read-only one', async () => {
    model.enqueueMany([
      calls(
        evNamespacedCall('c1', 'mcp__probe', 'readonly', {}),
        evNamespacedCall('c2', 'mcp__probe', 'destructive', {}),
        evNamespacedCall('c3', 'mcp__probe', 'plain', {}),
      ),
      answer('ok'),
    ]);
    const { agent: a, questions } = startAsking({ probe: probeStdio });
    const events = await a.runTurn('run them');
    expect(questions).toHaveLength(2);
    expect(questions[0]).toContain('"destructive"');
    expect(questions[0]).toContain('The server says this tool may change or delete things.');
    expect(questions[1]).toContain('"plain"');
    expect(questions[1]).not.toContain('may change or delete things');
    expect(mcpItems(events).map((i) => [i.tool, i.status])).toEqual([
      ['readonly', 'completed'],
      ['destructive', 'completed'],
      ['plain', 'completed'],
    ]);
  });

  it("asks as the server's `approval` says, and a tool's own `approval` wins over the server's", async () => {
    model.enqueueMany([
      calls(
        evNamespacedCall('c1', 'mcp__strict', 'readonly', {}),
        evNamespacedCall('c2', 'mcp__strict', 'plain', {}),
        evNamespacedCall('c3', 'mcp__lax', 'destructive', {}),
        evNamespacedCall('c4', 'mcp__lax', 'readonly', {}),
        evNamespacedCall('c5', 'mcp__default', 'readonly', {}),
      ),
      answer('ok'),
    ]);
    const { agent: a, questions } = startAsking({
      strict: { ...probeStdio, approval: 'always', tools: { plain: { approval: 'never' } } },
      lax: { ...probeStdio, approval: 'never', tools: { readonly: { approval: 'always' } } },
      default: { ...probeStdio, approval: 'on-request' },
    });
    const events = await a.runTurn('run them');
    // Calls to different servers may run side by side: compare the questions in a stable order.
    expect(
      questions.map((q) => /^Allow the MCP server "(\w+)" to run its tool "(\w+)"/.exec(q)?.slice(1).join('/')).sort(),
    ).toEqual(['lax/readonly', 'strict/readonly']);
    expect(mcpItems(events).every((i) => i.status === 'completed')).toBe(true);
    expect(mcpItems(events)).toHaveLength(5);
  });

  it('refuses a call that must ask when the approval policy is "never", and tells the model', async () => {
    model.enqueueMany([calls(evNamespacedCall('c1', 'mcp__probe', 'readonly', {})), answer('ok')]);
    const a = start({ probe: { ...probeStdio, approval: 'always' } });
    const events = await a.runTurn('run it');
    const message = 'probe/readonly needs approval, and the approval policy is "never"';
    expect(assertAllToolOutputsAnswered(model.requests[1]?.body)[0]?.output).toBe(message);
    expect(mcpItems(events)[0]).toMatchObject({ status: 'failed', error: { message } });
    expect(a.serverRequests).toHaveLength(0);
  });
});

describe('what reaches an MCP server', () => {
  it("gives a stdio server `env`, the `env_vars` it names, and `cwd`, and nothing else of Weft's environment", async () => {
    const dir = join(ws.dir, 'server-home');
    await mkdir(dir);
    model.enqueueMany([calls(evNamespacedCall('c1', 'mcp__probe', 'whoami', {})), answer('ok')]);
    const a = start(
      {
        probe: {
          ...probeStdio,
          env: { PROBE_SET: 'from config', PROBE_BOTH: 'config wins' },
          env_vars: ['PROBE_PASSED', 'PROBE_BOTH', 'PROBE_UNSET'],
          cwd: dir,
        },
      },
      { env: { PROBE_PASSED: 'from weft', PROBE_BOTH: 'from weft', PROBE_NOT_LISTED: 'private' } },
    );
    await a.runTurn('who are you?');
    const seen = whoami(1);
    expect(seen.env).toEqual({ PROBE_SET: 'from config', PROBE_PASSED: 'from weft', PROBE_BOTH: 'config wins' });
    expect(seen.cwd).toBe(await realpath(dir));
  });

  describe('over streamable HTTP', () => {
    let child: ChildProcess | undefined;
    afterEach(() => {
      child?.kill();
      child = undefined;
    });

    async function serve(): Promise<number> {
      const proc = spawn(process.execPath, [PROBE, 'http'], { stdio: ['ignore', 'ignore', 'pipe'] });
      child = proc;
      return new Promise<number>((ready, fail) => {
        let text = '';
        proc.stderr?.on('data', (chunk: Buffer) => {
          text += chunk.toString('utf8');
          const port = /listening on port (\d+)/.exec(text)?.[1];
          if (port !== undefined) ready(Number(port));
        });
        proc.once('exit', (code) => fail(new Error(`probe server exited (${String(code)}): ${text}`)));
      });
    }

    it('sends `http_headers`, `env_http_headers` whose variable is set, and the `bearer_token_env_var` token', async () => {
      const port = await serve();
      model.enqueueMany([calls(evNamespacedCall('c1', 'mcp__web', 'whoami', {})), answer('ok')]);
      const a = start(
        {
          web: {
            url: `http://127.0.0.1:${port}/mcp`,
            http_headers: { 'X-Static': 'static value' },
            env_http_headers: { 'X-From-Env': 'PROBE_HEADER', 'X-Unset': 'PROBE_UNSET' },
            bearer_token_env_var: 'PROBE_TOKEN',
          },
        },
        { env: { PROBE_HEADER: 'env value', PROBE_TOKEN: 's3cret' } },
      );
      const events = await a.runTurn('who are you?');
      expect(mcpItems(events)[0]?.status).toBe('completed');
      const headers = whoami(1).headers as Record<string, string>;
      expect(headers).toMatchObject({
        'x-static': 'static value',
        'x-from-env': 'env value',
        authorization: 'Bearer s3cret',
      });
      expect(headers).not.toHaveProperty('x-unset');
    });
  });
});

describe('tool_timeout_sec', () => {
  it('ends a call that takes longer, tells the model the timeout, and the turn goes on', async () => {
    model.enqueueMany([
      calls(evNamespacedCall('c1', 'mcp__probe', 'slow', { ms: 60_000 })),
      calls(evNamespacedCall('c2', 'mcp__probe', 'slow', { ms: 1 })),
      answer('went on'),
    ]);
    const a = start({ probe: { ...probeStdio, tool_timeout_sec: 0.5 } });
    const events = await a.runTurn('be slow');
    const message = 'MCP server "probe" did not answer the call to slow within 0.5 s (tool_timeout_sec)';
    expect(assertAllToolOutputsAnswered(model.requests[1]?.body)[0]?.output).toBe(`tool call error: ${message}`);
    const [timedOut, quick] = mcpItems(events);
    expect(timedOut).toMatchObject({ tool: 'slow', status: 'failed', result: null, error: { message } });
    expect(timedOut?.durationMs).toBeGreaterThanOrEqual(500);
    expect(timedOut?.durationMs).toBeLessThan(30_000);
    // The server is still there for the next call, and the turn ends normally.
    expect(quick).toMatchObject({ tool: 'slow', status: 'completed' });
    expect(JSON.stringify(assertAllToolOutputsAnswered(model.requests[2]?.body).at(-1)?.output)).toContain(
      'slept 1 ms',
    );
    expect(paramsOf(events, 'turn/completed')[0]?.turn.status).toBe('completed');
    expect(model.requests).toHaveLength(3);
  });
});
