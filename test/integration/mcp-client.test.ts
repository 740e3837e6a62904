// Weft's MCP client against real servers: @modelcontextprotocol/server-everything over stdio and
// streamable HTTP, and tiny SDK servers that fail to start, never answer, or crash mid-call. The mock
// model calls the tools by name; what they returned is in the next request.
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { McpToolCallItem, ServerNotification, ThreadItem } from '../../src-preload/protocol';
import { RuleStore } from '../../src-main/safety/approvals/rules';
import { paramsOf, startAgent, type AgentHarness, type AgentOptions } from '../support/agent';
import {
  assertAllToolOutputsAnswered,
  startMockResponsesServer,
  type MockResponsesServer,
} from '../support/mock-responses-server';
import {
  evCompleted,
  evCreated,
  evFunctionCall,
  evIncomplete,
  evNamespacedCall,
  evOutputTextDelta,
  answerTurn,
} from '../support/sse';
import { waitFor } from '../support/wait';
import { makeTempWorkspace, type TempWorkspace } from '../support/workspace';

const require = createRequire(import.meta.url);
const EVERYTHING = join(
  require.resolve('@modelcontextprotocol/server-everything/package.json'),
  '..',
  'dist',
  'index.js',
);
const FIXTURES = resolve(__dirname, '..', 'fixtures', 'mcp');

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

const calls = (...c: ReturnType<typeof evNamespacedCall>[]) => ({
  kind: 'sse' as const,
  events: [evCreated(), ...c, evCompleted()],
});

const everythingStdio = { command: process.execPath, args: [EVERYTHING, 'stdio'] };

function start(servers: Record<string, unknown>, extra: Partial<AgentOptions> = {}): AgentHarness {
  agent = startAgent({ baseUrl: model.url, cwd: ws.dir, ...extra, config: { mcp_servers: servers, ...extra.config } });
  return agent;
}

function mcpItems(events: ServerNotification[]): McpToolCallItem[] {
  return paramsOf(events, 'item/completed')
    .map((p) => p.item)
    .filter((i: ThreadItem): i is McpToolCallItem => i.type === 'mcpToolCall');
}

interface ToolJson {
  type: string;
  name: string;
  description?: string;
  tools?: { type: string; name: string; description: string; parameters: Record<string, unknown> }[];
}

function toolsOf(n: number): ToolJson[] {
  return (model.requests[n]?.body as { tools: ToolJson[] }).tools;
}

describe('MCP client over stdio (server-everything)', () => {
  it('offers the tools as a namespace and returns text, image and structured results to the model', async () => {
    model.enqueueMany([
      calls(
        evNamespacedCall('c1', 'mcp__everything', 'echo', { message: 'hello' }),
        evNamespacedCall('c2', 'mcp__everything', 'get_tiny_image', {}),
        evNamespacedCall('c3', 'mcp__everything', 'get_structured_content', { location: 'New York' }),
      ),
      answerTurn('done'),
    ]);
    const a = start({ everything: everythingStdio });
    const events = await a.runTurn('use the tools');

    const ns = toolsOf(0).find((t) => t.type === 'namespace' && t.name === 'mcp__everything');
    expect(ns?.description).toBe('Tools in the mcp__everything namespace.');
    const echo = ns?.tools?.find((t) => t.name === 'echo');
    expect(echo).toMatchObject({ type: 'function', description: 'Echoes back the input string', strict: false });
    expect(echo?.parameters).toMatchObject({
      type: 'object',
      properties: { message: { type: 'string' } },
      required: ['message'],
    });
    expect(echo?.parameters).not.toHaveProperty('$schema');
    // Hyphens are not allowed in function names: the model sees underscores.
    expect(ns?.tools?.map((t) => t.name)).toContain('get_tiny_image');

    const outputs = assertAllToolOutputsAnswered(model.requests[1]?.body);
    const [echoOut, imageOut, structuredOut] = outputs.map(
      (o) => o.output as { type: string; text?: string; image_url?: string }[],
    );
    expect(echoOut?.[0]?.text).toMatch(/^Wall time: \d+\.\d{4} seconds\nOutput:$/);
    expect(echoOut?.[1]).toEqual({ type: 'input_text', text: 'Echo: hello' });
    expect(imageOut?.some((p) => p.type === 'input_image' && p.image_url?.startsWith('data:image/png;base64,'))).toBe(
      true,
    );
    expect(
      structuredOut
        ?.slice(1)
        .map((p) => p.text)
        .join(''),
    ).toContain('temperature');

    const items = mcpItems(events);
    expect(items.map((i) => [i.server, i.tool, i.status])).toEqual([
      ['everything', 'echo', 'completed'],
      ['everything', 'get-tiny-image', 'completed'],
      ['everything', 'get-structured-content', 'completed'],
    ]);
    expect(items[0]).toMatchObject({
      arguments: { message: 'hello' },
      result: { content: [{ type: 'text', text: 'Echo: hello' }] },
      error: null,
    });
    expect(items[0]?.durationMs).toBeGreaterThanOrEqual(0);
    expect(items[2]?.result?.structuredContent).toMatchObject({
      temperature: expect.any(Number),
      conditions: expect.any(String),
    });
    const status = paramsOf(events, 'mcpServer/startupStatus/updated').filter((s) => s.name === 'everything');
    expect(status.map((s) => s.status)).toEqual(['starting', 'ready']);
  });

  it('streams progress and cancels a long-running call when the turn is interrupted', async () => {
    model.enqueueMany([
      calls(evNamespacedCall('c1', 'mcp__everything', 'trigger_long_running_operation', { duration: 60, steps: 120 })),
    ]);
    const a = start({ everything: everythingStdio });
    const progress = a.next('item/mcpToolCall/progress');
    const completed = a.next('turn/completed');
    await a.session.startTurn([{ type: 'text', text: 'run it' }]);
    const first = await progress;
    expect(first.params).toMatchObject({ message: '1/120', weftProgress: 1, weftTotal: 120 });
    await a.session.interrupt();
    const turn = await completed;
    expect(turn.params.turn.status).toBe('interrupted');
    const item = mcpItems(a.events)[0];
    expect(item).toMatchObject({
      server: 'everything',
      tool: 'trigger-long-running-operation',
      status: 'failed',
      error: { message: 'the turn was interrupted' },
    });
    expect(item?.durationMs).toBeLessThan(30_000);
  });

  it('turns an elicitation into a question and sends the answers back to the server', async () => {
    model.enqueueMany([
      calls(evNamespacedCall('c1', 'mcp__everything', 'trigger_elicitation_request', {})),
      answerTurn('thanks'),
    ]);
    const asked: unknown[] = [];
    const a = start(
      { everything: { ...everythingStdio, approval: 'never' } },
      {
        sendRequest: async (request) => {
          asked.push(request.params);
          if (request.method !== 'item/tool/requestUserInput') return { decision: 'decline' };
          return {
            answers: {
              name: { answers: ['Ada Lovelace'] },
              check: { answers: ['Yes'] },
              integer: { answers: ['7'] },
              titledSingleSelectEnum: { answers: ['Wonder Woman'] },
            },
          };
        },
      },
    );
    await a.runTurn('ask me');
    expect(asked).toHaveLength(1);
    const questions = (asked[0] as { questions: { id: string; options: { label: string }[] | null }[] }).questions;
    expect(questions.find((q) => q.id === 'name')?.options).toBeNull();
    expect(questions.find((q) => q.id === 'check')?.options?.map((o) => o.label)).toEqual(['Yes', 'No']);
    expect(questions.find((q) => q.id === 'titledSingleSelectEnum')?.options?.map((o) => o.label)).toEqual([
      'Superman',
      'Green Lantern',
      'Wonder Woman',
    ]);
    const text = JSON.stringify(assertAllToolOutputsAnswered(model.requests[1]?.body)[0]?.output);
    expect(text).toContain('- Name: Ada Lovelace');
    expect(text).toContain('- Agreed to terms: true');
    expect(text).toContain('- Favorite Integer: 7');
    expect(text).toContain('hero-3');
  });

  it('asks before a tool that is not read-only, and remembers "Always allow this tool" as a rule', async () => {
    const rules = new RuleStore(join(tmpdir(), `weft-test-rules-${randomUUID()}`));
    model.enqueueMany([
      calls(evNamespacedCall('c1', 'mcp__everything', 'toggle_simulated_logging', {})),
      calls(evNamespacedCall('c2', 'mcp__everything', 'toggle_simulated_logging', {})),
      calls(evNamespacedCall('c3', 'mcp__everything', 'echo', { message: 'no need to ask' })),
      answerTurn('ok'),
    ]);
    const questions: string[] = [];
    const a = start(
      { everything: everythingStdio },
      {
        rules,
        config: { approval_policy: 'on-request' },
        sendRequest: async (request) => {
          if (request.method !== 'item/tool/requestUserInput') return { decision: 'decline' };
          questions.push(request.params.questions[0]?.question ?? '');
          return { answers: { approval: { answers: ['Always allow this tool'] } } };
        },
      },
    );
    const events = await a.runTurn('toggle logging twice');
    expect(questions).toHaveLength(1);
    expect(questions[0]).toContain('"everything"');
    expect(questions[0]).toContain('"toggle-simulated-logging"');
    expect(rules.list().map((r) => [r.pattern, r.decision])).toEqual([
      [['@mcp', 'everything', 'toggle-simulated-logging'], 'allow'],
    ]);
    expect(mcpItems(events).map((i) => i.status)).toEqual(['completed', 'completed', 'completed']);
  });

  it('tells the model when the user declines', async () => {
    model.enqueueMany([
      calls(evNamespacedCall('c1', 'mcp__everything', 'toggle_simulated_logging', {})),
      answerTurn('ok'),
    ]);
    const a = start(
      { everything: everythingStdio },
      {
        config: { approval_policy: 'on-request' },
        sendRequest: async () => ({ answers: { approval: { answers: ['Decline'] } } }),
      },
    );
    const events = await a.runTurn('toggle');
    expect(assertAllToolOutputsAnswered(model.requests[1]?.body)[0]?.output).toBe(
      'the user declined the call to everything/toggle-simulated-logging',
    );
    expect(mcpItems(events)[0]).toMatchObject({
      status: 'failed',
      error: { message: 'the user declined the call to everything/toggle-simulated-logging' },
    });
  });
});

describe('MCP resources (server-everything)', () => {
  it('offers list_mcp_resources, list_mcp_resource_templates and read_mcp_resource, and answers them', async () => {
    const uri = 'demo://resource/static/document/architecture.md';
    model.enqueueMany([
      {
        kind: 'sse',
        events: [
          evCreated(),
          evFunctionCall('c1', 'list_mcp_resources', { server: 'everything' }),
          evFunctionCall('c2', 'list_mcp_resource_templates', {}),
          evFunctionCall('c3', 'read_mcp_resource', { server: 'everything', uri }),
          evFunctionCall('c4', 'read_mcp_resource', { server: 'nope', uri }),
          evCompleted(),
        ],
      },
      answerTurn('read it'),
    ]);
    start({ everything: everythingStdio });
    await agent?.runTurn('what resources are there?');
    const names = toolsOf(0).map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(['list_mcp_resources', 'list_mcp_resource_templates', 'read_mcp_resource']),
    );
    const outputs = assertAllToolOutputsAnswered(model.requests[1]?.body).map((o) => JSON.stringify(o.output));
    expect(outputs[0]).toContain(uri);
    expect(outputs[1]).toContain('demo://resource/dynamic/text/{resourceId}');
    // The resource's own text, as the server has it.
    expect(outputs[2]).toContain(`Resource ${uri} (text/markdown):\\n# Everything Server – Architecture`);
    expect(outputs[3]).toBe(JSON.stringify('no running MCP server named "nope" has resources'));
  });
});

describe('MCP client with @modelcontextprotocol/server-filesystem', () => {
  it('reads and lists files of the directory the server is given', async () => {
    const FILESYSTEM = join(
      require.resolve('@modelcontextprotocol/server-filesystem/package.json'),
      '..',
      'dist',
      'index.js',
    );
    await writeFile(join(ws.dir, 'notes.txt'), 'remember the milk\n');
    model.enqueueMany([
      calls(
        evNamespacedCall('c1', 'mcp__fs', 'read_text_file', { path: join(ws.dir, 'notes.txt') }),
        evNamespacedCall('c2', 'mcp__fs', 'list_directory', { path: ws.dir }),
      ),
      answerTurn('read'),
    ]);
    const a = start({ fs: { command: process.execPath, args: [FILESYSTEM, ws.dir], approval: 'never' } });
    const events = await a.runTurn('read my notes');
    const outputs = assertAllToolOutputsAnswered(model.requests[1]?.body).map((o) => JSON.stringify(o.output));
    expect(outputs[0]).toContain('remember the milk');
    expect(outputs[1]).toContain('[FILE] notes.txt');
    expect(mcpItems(events).map((i) => [i.tool, i.status])).toEqual([
      ['read_text_file', 'completed'],
      ['list_directory', 'completed'],
    ]);
  });
});

describe('MCP sampling', () => {
  const asker = { command: process.execPath, args: [join(FIXTURES, 'sampling-server.mjs')] };

  it("answers a server's sampling request with the thread's model once the user allows it", async () => {
    model.enqueueMany([
      calls(evNamespacedCall('c1', 'mcp__everything', 'trigger_sampling_request', { prompt: 'say hi', maxTokens: 20 })),
      answerTurn('Hi from the model'),
      answerTurn('done'),
    ]);
    const questions: string[] = [];
    const a = start(
      { everything: { ...everythingStdio, sampling: true, approval: 'never' } },
      {
        config: { approval_policy: 'on-request' },
        sendRequest: async (request) => {
          if (request.method !== 'item/tool/requestUserInput') return { decision: 'decline' };
          questions.push(request.params.questions[0]?.question ?? '');
          return { answers: { sampling: { answers: ['Allow'] } } };
        },
      },
    );
    const events = await a.runTurn('sample');
    expect(questions).toHaveLength(1);
    expect(questions[0]).toContain('MCP server "everything" asks the model');
    expect(questions[0]).toContain('say hi');
    // The sampling request went to the same provider: the server's system prompt and message, no tools.
    const sampled = model.requests[1]?.body as {
      instructions: string;
      input: unknown[];
      tools?: unknown[];
      max_output_tokens?: number;
    };
    expect(sampled.instructions).toBe('You are a helpful test server.');
    // The server's maxTokens bounds the answer.
    expect(sampled.max_output_tokens).toBe(20);
    expect(JSON.stringify(sampled.input)).toContain('Resource trigger-sampling-request context: say hi');
    expect(sampled.tools ?? []).toEqual([]);
    // The server got the model's answer and returned it in the tool result.
    const out = JSON.stringify(assertAllToolOutputsAnswered(model.requests[2]?.body)[0]?.output);
    expect(out).toContain('Hi from the model');
    expect(out).toContain('mock-model');
    expect(mcpItems(events)[0]).toMatchObject({ tool: 'trigger-sampling-request', status: 'completed' });
  });

  it("honours the server's maxTokens: the answer cut at the limit is returned with stopReason maxTokens", async () => {
    model.enqueueMany([
      calls(evNamespacedCall('c1', 'mcp__asker', 'ask', { question: 'what is 2+2?' })),
      { kind: 'sse', events: [evCreated(), evOutputTextDelta('Four, because two'), evIncomplete('max_output_tokens')] },
      answerTurn('ok'),
    ]);
    const a = start(
      { asker: { ...asker, sampling: true } },
      {
        config: { approval_policy: 'on-request' },
        sendRequest: async () => ({ answers: { sampling: { answers: ['Allow'] } } }),
      },
    );
    await a.runTurn('ask');
    expect((model.requests[1]?.body as { max_output_tokens?: number }).max_output_tokens).toBe(50);
    const out = JSON.stringify(assertAllToolOutputsAnswered(model.requests[2]?.body)[0]?.output);
    expect(out).toContain('answered: ');
    expect(out).toContain('Four, because two');
    expect(out).toContain('\\"stopReason\\":\\"maxTokens\\"');
  });

  it('declines sampling with an error naming the setting when it is not enabled', async () => {
    model.enqueueMany([
      calls(evNamespacedCall('c1', 'mcp__asker', 'ask', { question: 'what is 2+2?' })),
      answerTurn('ok'),
    ]);
    const a = start({ asker });
    await a.runTurn('ask');
    const out = JSON.stringify(assertAllToolOutputsAnswered(model.requests[1]?.body)[0]?.output);
    expect(out).toContain(
      'refused: MCP error -32600: sampling is not enabled for MCP server \\"asker\\" (set sampling = true under [mcp_servers.asker] in config.toml)',
    );
    // No model request was made for it.
    expect(model.requests).toHaveLength(2);
  });

  it('tells the server when the user declines the sampling request', async () => {
    model.enqueueMany([
      calls(evNamespacedCall('c1', 'mcp__asker', 'ask', { question: 'what is 2+2?' })),
      answerTurn('ok'),
    ]);
    const a = start(
      { asker: { ...asker, sampling: true } },
      {
        config: { approval_policy: 'on-request' },
        sendRequest: async () => ({ answers: { sampling: { answers: ['Decline'] } } }),
      },
    );
    await a.runTurn('ask');
    const out = JSON.stringify(assertAllToolOutputsAnswered(model.requests[1]?.body)[0]?.output);
    expect(out).toContain('refused: MCP error -1: the user declined the sampling request of MCP server \\"asker\\"');
    expect(model.requests).toHaveLength(2);
  });
});

async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      s.close(() => resolvePort(port));
    });
  });
}

describe('MCP client over streamable HTTP and SSE (server-everything)', () => {
  let child: ChildProcess | undefined;
  afterEach(() => {
    child?.kill();
    child = undefined;
  });

  async function serve(transport: 'streamableHttp' | 'sse', readyLine: string): Promise<number> {
    const port = await freePort();
    const proc = spawn(process.execPath, [EVERYTHING, transport], {
      env: { ...process.env, PORT: String(port) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child = proc;
    await new Promise<void>((ready, fail) => {
      let text = '';
      proc.stderr?.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
        if (text.includes(readyLine)) ready();
      });
      proc.once('exit', (code) => fail(new Error(`server-everything exited (${String(code)}): ${text}`)));
    });
    return port;
  }

  it('falls back to SSE for a server that only speaks SSE', async () => {
    const port = await serve('sse', 'Server is running on port');
    model.enqueueMany([calls(evNamespacedCall('c1', 'mcp__old', 'echo', { message: 'over sse' })), answerTurn('ok')]);
    const a = start({ old: { url: `http://127.0.0.1:${port}/sse` } });
    const events = await a.runTurn('echo');
    expect(mcpItems(events)[0]).toMatchObject({
      server: 'old',
      tool: 'echo',
      status: 'completed',
      result: { content: [{ type: 'text', text: 'Echo: over sse' }] },
    });
    expect(a.session.options.mcp?.statuses()[0]?.weftLog?.join('\n')).toContain('trying SSE');
  });

  it('calls a tool of a server reached by URL', async () => {
    const port = await serve('streamableHttp', 'listening on port');
    model.enqueueMany([calls(evNamespacedCall('c1', 'mcp__web', 'get_sum', { a: 2, b: 40 })), answerTurn('42')]);
    const a = start({ web: { url: `http://127.0.0.1:${port}/mcp` } });
    const events = await a.runTurn('add');
    expect(
      toolsOf(0)
        .find((t) => t.name === 'mcp__web')
        ?.tools?.some((t) => t.name === 'get_sum'),
    ).toBe(true);
    const out = assertAllToolOutputsAnswered(model.requests[1]?.body)[0]?.output as { text?: string }[];
    expect(out.map((p) => p.text ?? '').join('\n')).toContain('42');
    expect(mcpItems(events)[0]).toMatchObject({ server: 'web', tool: 'get-sum', status: 'completed' });
  });
});

describe('MCP servers that fail', () => {
  it('reports a server that cannot start, leaves its tools out, and goes on with the turn', async () => {
    model.enqueueMany([answerTurn('fine without it')]);
    const a = start({ broken: { command: process.execPath, args: [join(FIXTURES, 'failing-server.mjs')] } });
    const events = await a.runTurn('hello');
    const failed = paramsOf(events, 'mcpServer/startupStatus/updated').find((s) => s.status === 'failed');
    expect(failed).toEqual({
      name: 'broken',
      threadId: a.session.threadId,
      status: 'failed',
      error: 'the server exited while starting: failing-server: cannot open the database at /nonexistent/db.sqlite',
      failureReason: null,
    });
    expect(toolsOf(0).some((t) => t.name.startsWith('mcp__'))).toBe(false);
    expect(paramsOf(events, 'turn/completed')[0]?.turn.status).toBe('completed');
    const status = a.session.options.mcp?.statuses()[0];
    expect(status?.runtimeStatus).toBe('failed');
    expect(status?.weftLog?.join('\n')).toContain('cannot open the database at /nonexistent/db.sqlite');
  });

  it('gives up on a server that does not answer within startup_timeout_sec', async () => {
    model.enqueueMany([answerTurn('went on')]);
    const a = start({
      silent: { command: process.execPath, args: [join(FIXTURES, 'silent-server.mjs')], startup_timeout_sec: 0.5 },
    });
    const events = await a.runTurn('hello');
    const failed = paramsOf(events, 'mcpServer/startupStatus/updated').find((s) => s.status === 'failed');
    expect(failed?.error).toBe('did not start within 0.5 s (startup_timeout_sec)');
    expect(paramsOf(events, 'turn/completed')[0]?.turn.status).toBe('completed');
  });

  it('fails the turn when a required server cannot start', async () => {
    const a = start({
      broken: { command: process.execPath, args: [join(FIXTURES, 'failing-server.mjs')], required: true },
    });
    const events = await a.runTurn('hello');
    const turn = paramsOf(events, 'turn/completed')[0]?.turn;
    expect(turn?.status).toBe('failed');
    expect(turn?.error?.message).toContain('MCP server "broken" is required but is not running');
    expect(model.requests).toHaveLength(0);
  });

  it('reports a server that crashes mid-call as a failed call and a failed server', async () => {
    model.enqueueMany([calls(evNamespacedCall('c1', 'mcp__crashy', 'crash', {})), answerTurn('it crashed')]);
    const a = start({ crashy: { command: process.execPath, args: [join(FIXTURES, 'crashing-server.mjs')] } });
    const exited = waitFor(
      a.subscribe,
      (n) => n.method === 'mcpServer/startupStatus/updated' && n.params.status === 'failed',
      { label: 'server failed' },
    );
    const events = await a.runTurn('crash it');
    const failed = await exited;
    expect(failed.method === 'mcpServer/startupStatus/updated' && failed.params.error).toBe(
      'the server exited: crashing on purpose',
    );
    const item = mcpItems(events)[0];
    expect(item).toMatchObject({ server: 'crashy', tool: 'crash', status: 'failed', result: null });
    expect(item?.error?.message).toBeTruthy();
    expect(String(assertAllToolOutputsAnswered(model.requests[1]?.body)[0]?.output)).toMatch(/^tool call error: /);
    // The crashed server's tools are gone from the next request.
    expect(toolsOf(1).some((t) => t.name === 'mcp__crashy')).toBe(false);
  });
});
