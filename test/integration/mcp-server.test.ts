// `weft mcp-server` driven by clients others wrote: the MCP SDK's own Client (stdio and streamable
// HTTP) and @modelcontextprotocol/inspector-cli, against the mock model.
import { spawn, execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  assertAllToolOutputsAnswered,
  startMockResponsesServer,
  type MockResponsesServer,
} from '../support/mock-responses-server';
import { answerText, callOutputs, reply, scriptAgents } from '../support/agents-model';
import { StdioRpcClient } from '../support/rpc-client';
import { evAssistantMessage, evCompleted, evCreated, evFunctionCall, evOutputTextDelta } from '../support/sse';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../support/workspace';

const WEFT = resolve(__dirname, '../../bin/weft.js');
const INSPECTOR = resolve(__dirname, '../../node_modules/@modelcontextprotocol/inspector-cli/build/index.js');
const run = promisify(execFile);

let server: MockResponsesServer;
let ws: TempWorkspace;
let home: WeftHome;
const cleanups: (() => Promise<void>)[] = [];

beforeEach(async () => {
  server = await startMockResponsesServer();
  ws = await makeTempWorkspace({ 'notes.txt': 'one\ntwo\n' });
  home = await makeWeftHome(
    `model = "mock-model"\nmodel_provider = "mock"\n[model_providers.mock]\nname = "Mock"\nbase_url = "${server.url}"\nenv_key = "MOCK_API_KEY"\nwire_api = "responses"\nrequest_max_retries = 0\n`,
  );
});

afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  await server.close();
  await ws.cleanup();
  await home.cleanup();
});

const env = (): Record<string, string> => ({
  PATH: process.env['PATH'] ?? '',
  HOME: process.env['HOME'] ?? '',
  SHELL: '/bin/bash',
  WEFT_HOME: home.dir,
  MOCK_API_KEY: 'x',
});
const answer = (text: string) => ({
  kind: 'sse' as const,
  events: [
    evCreated(),
    evOutputTextDelta(text.slice(0, 5)),
    evOutputTextDelta(text.slice(5)),
    evAssistantMessage(text),
    evCompleted(),
  ],
});
const calls = (...c: ReturnType<typeof evFunctionCall>[]) => ({
  kind: 'sse' as const,
  events: [evCreated(), ...c, evCompleted()],
});

type Elicitor = (request: ElicitRequest) => ElicitResult;

function mcpClient(elicit?: Elicitor): Client {
  const client = new Client(
    { name: 'test-host', version: '1.0.0' },
    { capabilities: elicit ? { elicitation: {} } : {} },
  );
  if (elicit) client.setRequestHandler(ElicitRequestSchema, async (request) => elicit(request));
  return client;
}

async function connectStdio(elicit?: Elicitor): Promise<Client> {
  const client = mcpClient(elicit);
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [WEFT, 'mcp-server'],
      env: env(),
      cwd: ws.dir,
      stderr: 'pipe',
    }),
  );
  cleanups.push(() => client.close());
  return client;
}

/** `weft mcp-server --port 0`; resolves once it printed where it listens. */
async function startHttpServer(): Promise<{ url: string; token: string }> {
  const child = spawn(process.execPath, [WEFT, 'mcp-server', '--port', '0', '--token', 'test-token'], {
    cwd: ws.dir,
    env: env(),
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((r) => child.on('exit', () => r()));
  cleanups.push(async () => {
    child.kill('SIGTERM');
    await exited;
  });
  const url = await new Promise<string>((resolveUrl, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      const m = /^Weft MCP server at (\S+)$/.exec(line);
      if (m?.[1]) resolveUrl(m[1]);
    });
    child.on('exit', () => reject(new Error(`weft mcp-server exited: ${stderr}`)));
  });
  return { url, token: 'test-token' };
}

interface ToolAnswer {
  content: { type: string; text?: string }[];
  structuredContent?: { threadId: string; content: string };
  isError?: boolean;
}

async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  progress: string[] = [],
): Promise<ToolAnswer> {
  const result = await client.callTool({ name, arguments: args }, undefined, {
    onprogress: (p) => {
      if (p.message !== undefined) progress.push(p.message);
    },
    resetTimeoutOnProgress: true,
  });
  return result as ToolAnswer;
}

async function readThreads(): Promise<
  { id: string; preview: string; turns: { status: string; items: { type: string }[] }[] }[]
> {
  const app = StdioRpcClient.start(env(), ws.dir);
  try {
    await app.initialize();
    const list = await app.request<{ data: { id: string }[] }>('thread/list', { cwd: ws.dir });
    const threads = [];
    for (const t of list.data) {
      threads.push(
        (
          await app.request<{
            thread: { id: string; preview: string; turns: { status: string; items: { type: string }[] }[] };
          }>('thread/read', { threadId: t.id, includeTurns: true })
        ).thread,
      );
    }
    return threads;
  } finally {
    await app.close();
  }
}

describe('weft mcp-server with the MCP SDK client over stdio', { timeout: 60_000 }, () => {
  it('lists the two tools with Codex argument names', async () => {
    const client = await connectStdio();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['weft', 'weft-reply']);
    const weft = tools[0];
    expect(Object.keys(weft?.inputSchema.properties ?? {})).toEqual([
      'prompt',
      'cwd',
      'approval-policy',
      'sandbox',
      'model',
      'profile',
      'base-instructions',
      'developer-instructions',
      'config',
    ]);
    expect(weft?.inputSchema.required).toEqual(['prompt']);
    expect(tools[1]?.inputSchema.required).toEqual(['threadId', 'prompt']);
    for (const tool of tools) {
      expect(tool.outputSchema?.required).toEqual(['threadId', 'content']);
    }
  });

  it('runs a prompt in a new thread, streams progress, and continues it with weft-reply', async () => {
    server.enqueueMany([answer('The notes have two lines.'), answer('The second line is two.')]);
    const client = await connectStdio();
    const progress: string[] = [];
    const first = await callTool(client, 'weft', { prompt: 'How many lines in notes.txt?', cwd: ws.dir }, progress);
    const threadId = first.structuredContent?.threadId ?? '';
    expect(first).toEqual({
      content: [{ type: 'text', text: 'The notes have two lines.' }],
      structuredContent: { threadId, content: 'The notes have two lines.' },
    });
    expect(progress).toEqual(['The n', 'otes have two lines.']);

    const second = await callTool(client, 'weft-reply', { threadId, prompt: 'And the second line?' });
    expect(second.structuredContent).toEqual({ threadId, content: 'The second line is two.' });
    const input = (server.requests[1]?.body as { input: { content?: { text?: string }[] }[] }).input;
    const texts = input.map((i) => i.content?.[0]?.text);
    expect(texts).toContain('How many lines in notes.txt?');
    expect(texts).toContain('The notes have two lines.');
    expect(texts.at(-1)).toBe('And the second line?');
    await client.close();

    // A normal thread: listed and readable by the app server, with both turns.
    const threads = await readThreads();
    expect(threads.map((t) => ({ id: t.id, preview: t.preview, turns: t.turns.map((turn) => turn.status) }))).toEqual([
      { id: threadId, preview: 'How many lines in notes.txt?', turns: ['completed', 'completed'] },
    ]);
  });

  it('asks for command and patch approvals as elicitations and does what the host answered', async () => {
    const patch = '*** Begin Patch\n*** Add File: added.txt\n+hello\n*** End Patch';
    server.enqueueMany([
      calls(evFunctionCall('a', 'exec_command', { cmd: 'touch allowed.txt' })),
      calls(evFunctionCall('b', 'exec_command', { cmd: 'touch refused.txt' })),
      calls(evFunctionCall('p', 'apply_patch', { input: patch })),
      answer('All done.'),
    ]);
    const asked: string[] = [];
    const answers: ElicitResult[] = [
      { action: 'accept', content: { decision: 'accept' } },
      { action: 'decline' },
      { action: 'accept' },
    ];
    const client = await connectStdio((request) => {
      asked.push(request.params.message);
      return answers.shift() ?? { action: 'cancel' };
    });
    const result = await callTool(client, 'weft', {
      prompt: 'make files',
      cwd: ws.dir,
      'approval-policy': 'untrusted',
      sandbox: 'workspace-write',
    });
    expect(result.structuredContent?.content).toBe('All done.');
    expect(asked).toHaveLength(3);
    expect(asked[0]).toContain('touch allowed.txt');
    expect(asked[1]).toContain('touch refused.txt');
    expect(asked[2]).toContain('add ');
    expect(asked[2]).toContain('+hello');
    expect(existsSync(ws.path('allowed.txt'))).toBe(true);
    expect(existsSync(ws.path('refused.txt'))).toBe(false);
    expect(await ws.read('added.txt')).toBe('hello\n');
    const outputs = assertAllToolOutputsAnswered(server.requests[3]?.body).map((o) => String(o.output));
    expect(outputs[1]).toBe('exec command rejected by user');
  });

  it("asks a sub-agent's approvals through the parent's tool call, labelled with the sub-agent", async () => {
    const patch = '*** Begin Patch\n*** Add File: child-added.txt\n+hello\n*** End Patch';
    scriptAgents(server, {
      parent: [
        () => ({ calls: [{ id: 'call_spawn', name: 'spawn_agent', args: { message: 'make files' } }] }),
        (ctx) => ({
          calls: [{ id: 'call_wait', name: 'wait_agent', args: { targets: ctx.agents, timeout_ms: 60_000 } }],
        }),
        () => ({ answer: 'The child is done.' }),
      ],
      child: (_task, request) => {
        const done = callOutputs(request).length;
        if (done === 0) return reply([evFunctionCall('call_touch', 'exec_command', { cmd: 'touch child.txt' })]);
        if (done === 1) return reply([evFunctionCall('call_patch', 'apply_patch', { input: patch })]);
        return answerText('made them');
      },
    });
    const asked: string[] = [];
    const client = await connectStdio((request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { decision: 'accept' } };
    });
    const result = await callTool(client, 'weft', {
      prompt: 'delegate',
      cwd: ws.dir,
      'approval-policy': 'untrusted',
      sandbox: 'workspace-write',
    });
    expect(result.structuredContent?.content).toBe('The child is done.');
    expect(asked).toHaveLength(2);
    expect(asked[0]?.split('\n').slice(0, 3)).toEqual([
      expect.stringMatching(/^Sub-agent [A-Z][a-z]+ \(a sub-agent of this Weft thread\) wants to run a command in /),
      '',
      '    touch child.txt',
    ]);
    expect(asked[1]?.split('\n').slice(0, 2)).toEqual([
      expect.stringMatching(/^Sub-agent [A-Z][a-z]+ \(a sub-agent of this Weft thread\) wants to change a file:$/),
      `  add ${ws.path('child-added.txt')}`,
    ]);
    expect(asked[1]).toContain('+hello');
    expect(existsSync(ws.path('child.txt'))).toBe(true);
    expect(await ws.read('child-added.txt')).toBe('hello\n');
  });

  it("asks the agent's questions as an elicitation form", async () => {
    server.enqueueMany([
      calls(
        evFunctionCall('q', 'request_user_input', {
          questions: [
            {
              id: 'color',
              header: 'Colour',
              question: 'Which colour?',
              options: [
                { label: 'Red', description: 'warm' },
                { label: 'Blue', description: 'cool' },
              ],
            },
          ],
        }),
      ),
      answer('Blue it is.'),
    ]);
    const forms: ElicitRequest['params'][] = [];
    const client = await connectStdio((request) => {
      forms.push(request.params);
      return { action: 'accept', content: { color: 'Blue' } };
    });
    const result = await callTool(client, 'weft', { prompt: 'ask me', cwd: ws.dir });
    expect(result.structuredContent?.content).toBe('Blue it is.');
    expect(forms).toEqual([
      // The agent's questions allow an answer of one's own, so the options are described, not enforced.
      {
        mode: 'form',
        message: 'Which colour?',
        requestedSchema: {
          type: 'object',
          properties: {
            color: { type: 'string', title: 'Colour', description: 'Which colour? (Red: warm; Blue: cool)' },
          },
        },
      },
    ]);
    expect(assertAllToolOutputsAnswered(server.requests[1]?.body)[0]?.output).toBe(
      '{"answers":{"color":{"answers":["Blue"]}}}',
    );
  });

  it('interrupts the turn when the host cancels the call', async () => {
    server.enqueueMany([
      { kind: 'sse-hang', events: [evCreated(), evOutputTextDelta('Thinking')] },
      answer('Back again.'),
    ]);
    const client = await connectStdio();
    const controller = new AbortController();
    const progress: string[] = [];
    const call = client.callTool({ name: 'weft', arguments: { prompt: 'take your time', cwd: ws.dir } }, undefined, {
      signal: controller.signal,
      onprogress: (p) => {
        if (p.message !== undefined) progress.push(p.message);
        controller.abort();
      },
    });
    await expect(call).rejects.toThrow(/abort/i);
    const [thread] = await readThreads();
    const threadId = thread?.id ?? '';
    // The reply waits for the interrupted turn to end, then runs.
    const reply = await callTool(client, 'weft-reply', { threadId, prompt: 'go on' });
    expect(reply.structuredContent).toEqual({ threadId, content: 'Back again.' });
    expect(progress).toEqual(['Thinking']);
    await client.close();
    expect((await readThreads()).map((t) => t.turns.map((turn) => turn.status))).toEqual([
      ['interrupted', 'completed'],
    ]);
  });
});

describe('weft mcp-server over streamable HTTP', { timeout: 60_000 }, () => {
  it('requires the token, then serves tools, progress and elicitation', async () => {
    server.enqueueMany([
      calls(evFunctionCall('a', 'exec_command', { cmd: 'touch over-http.txt' })),
      answer('Made it over HTTP.'),
    ]);
    const { url, token } = await startHttpServer();
    const refused = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(refused.status).toBe(401);
    const wrong = mcpClient();
    await expect(
      wrong.connect(
        new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: 'Bearer nope' } } }),
      ),
    ).rejects.toThrow();

    const asked: string[] = [];
    const client = mcpClient((request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { decision: 'accept' } };
    });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    cleanups.push(() => client.close());
    const progress: string[] = [];
    const result = await callTool(
      client,
      'weft',
      { prompt: 'touch a file', cwd: ws.dir, 'approval-policy': 'untrusted' },
      progress,
    );
    expect(result.structuredContent?.content).toBe('Made it over HTTP.');
    expect(progress.join('')).toBe('Made it over HTTP.');
    expect(asked).toEqual([expect.stringContaining('touch over-http.txt')]);
    expect(existsSync(ws.path('over-http.txt'))).toBe(true);
  });
});

describe('weft mcp-server with @modelcontextprotocol/inspector-cli', () => {
  it('lists and calls the tools over stdio and over HTTP', async () => {
    server.enqueueMany([answer('Inspected over stdio.'), answer('Inspected over HTTP.')]);
    // The inspector reads its own package.json through a path relative to the working directory, so it
    // runs from its build folder; the threads still work in ws.dir (the `cwd` tool argument).
    const inspector = (args: string[]) =>
      run(process.execPath, [INSPECTOR, ...args], { cwd: dirname(INSPECTOR), env: env() }).then(
        (r) => JSON.parse(r.stdout) as Record<string, unknown>,
      );
    const listed = await inspector([process.execPath, WEFT, 'mcp-server', '--method', 'tools/list']);
    expect((listed['tools'] as { name: string }[]).map((t) => t.name)).toEqual(['weft', 'weft-reply']);
    const called = await inspector([
      process.execPath,
      WEFT,
      'mcp-server',
      '--method',
      'tools/call',
      '--tool-name',
      'weft',
      '--tool-arg',
      'prompt=hello',
      `cwd=${ws.dir}`,
    ]);
    expect(called['structuredContent']).toEqual({ threadId: expect.any(String), content: 'Inspected over stdio.' });

    const { url, token } = await startHttpServer();
    const overHttp = await inspector([
      url,
      '--transport',
      'http',
      '--header',
      `Authorization: Bearer ${token}`,
      '--method',
      'tools/call',
      '--tool-name',
      'weft',
      '--tool-arg',
      'prompt=hello again',
      `cwd=${ws.dir}`,
    ]);
    expect(overHttp['structuredContent']).toEqual({ threadId: expect.any(String), content: 'Inspected over HTTP.' });
  }, 120_000); // five processes (three inspectors, each starting or reaching a weft) on a busy machine
});
