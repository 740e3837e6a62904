// The user's side of the app server, through the real `weft app-server`: `command/exec` (buffered,
// streamed, in a PTY with write / resize / terminate, killed with its connection), `thread/shellCommand`
// (the user's `!cmd`, seen by the model next turn), `fuzzyFileSearch` and `mention` inputs.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startMockResponsesServer, type MockResponsesServer } from '../support/mock-responses-server';
import { StdioRpcClient, type RpcMessage } from '../support/rpc-client';
import { evAssistantMessage, evCompleted, evCreated } from '../support/sse';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../support/workspace';

let server: MockResponsesServer;
let ws: TempWorkspace;
let home: WeftHome;
let client: StdioRpcClient;

beforeEach(async () => {
  server = await startMockResponsesServer();
  ws = await makeTempWorkspace({
    'notes.txt': 'one\ntwo\nthree\n',
    'src/parser.ts': 'export const PARSER = 1;\n',
    'src/printer.ts': 'x\n',
    'build/out.js': 'ignored\n',
    '.gitignore': 'build/\n',
  });
  home = await makeWeftHome(
    `model = "mock-model"\nmodel_provider = "mock"\napproval_policy = "never"\nsandbox_mode = "danger-full-access"\n[model_providers.mock]\nname = "Mock"\nbase_url = "${server.url}"\nenv_key = "MOCK_API_KEY"\nwire_api = "responses"\nrequest_max_retries = 0\n`,
  );
  client = StdioRpcClient.start({ WEFT_HOME: home.dir, MOCK_API_KEY: 'x' }, ws.dir);
  await client.initialize();
});

afterEach(async () => {
  await client.close();
  await server.close();
  await ws.cleanup();
  await home.cleanup();
});

const answer = (text: string) => ({
  kind: 'sse' as const,
  events: [evCreated(), evAssistantMessage(text), evCompleted()],
});
const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

/** Everything streamed for `processId` so far, decoded. */
function streamed(processId: string, stream: 'stdout' | 'stderr' = 'stdout'): string {
  return client
    .notifications('command/exec/outputDelta')
    .filter((p) => p['processId'] === processId && p['stream'] === stream)
    .map((p) => Buffer.from(String(p['deltaBase64']), 'base64').toString('utf8'))
    .join('');
}

async function waitForOutput(processId: string, text: string): Promise<void> {
  await client.waitFor(() => streamed(processId).includes(text), `"${text}" from ${processId}`);
}

/** Sends a request without waiting; returns the id to wait on. */
function start(method: string, params: unknown, id: string): void {
  client.send({ id, method, params });
}

const response = (id: string): Promise<RpcMessage> =>
  client.waitFor((m) => m.id === id && m.method === undefined, `response ${id}`);

describe('command/exec', () => {
  it('runs a buffered command and answers with its exit code and both streams', async () => {
    const result = await client.request('command/exec', {
      command: ['bash', '-c', 'echo out; echo err >&2; pwd; exit 3'],
      sandboxPolicy: { type: 'dangerFullAccess' },
    });
    expect(result).toEqual({ exitCode: 3, stdout: `out\n${ws.dir}\n`, stderr: 'err\n' });
  });

  it('streams stdout and stderr as outputDelta, not in the response, and takes stdin', async () => {
    start(
      'command/exec',
      {
        command: ['bash', '-c', 'read line; echo "got $line"; echo warn >&2'],
        processId: 'p1',
        streamStdin: true,
        streamStdoutStderr: true,
        sandboxPolicy: { type: 'dangerFullAccess' },
      },
      'exec-1',
    );
    expect(
      await client.request('command/exec/write', { processId: 'p1', deltaBase64: b64('hello\n'), closeStdin: true }),
    ).toEqual({});
    const done = await response('exec-1');
    expect(done.result).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    expect(streamed('p1')).toBe('got hello\n');
    expect(streamed('p1', 'stderr')).toBe('warn\n');
    expect(client.notifications('command/exec/outputDelta')[0]).toEqual({
      processId: 'p1',
      stream: 'stdout',
      deltaBase64: b64('got hello\n'),
      capReached: false,
    });
  });

  it('runs a shell in a PTY: typing, resizing and terminating it', async () => {
    start(
      'command/exec',
      {
        command: ['bash', '--norc', '--noprofile', '-i'],
        processId: 'term',
        tty: true,
        size: { rows: 30, cols: 100 },
        env: { PS1: 'PROMPT$ ' },
        sandboxPolicy: { type: 'dangerFullAccess' },
      },
      'tty-1',
    );
    await waitForOutput('term', 'PROMPT$ ');
    expect(
      await client.request('command/exec/write', { processId: 'term', deltaBase64: b64('echo $((6*7)); stty size\r') }),
    ).toEqual({});
    await waitForOutput('term', '42');
    await waitForOutput('term', '30 100');
    expect(await client.request('command/exec/resize', { processId: 'term', size: { rows: 40, cols: 120 } })).toEqual(
      {},
    );
    await client.request('command/exec/write', { processId: 'term', deltaBase64: b64('stty size\r') });
    await waitForOutput('term', '40 120');
    expect(await client.request('command/exec/terminate', { processId: 'term' })).toEqual({});
    const done = await response('tty-1');
    expect(done.result).toMatchObject({ stdout: '', stderr: '' });
    expect((done.result as { exitCode: number }).exitCode).not.toBe(0);
    // The id is free again, and a finished process cannot be written to.
    const gone = await client.call('command/exec/write', { processId: 'term', deltaBase64: b64('x') });
    expect(gone.error).toEqual({ code: -32600, message: 'processId: no running process term on this connection' });
  });

  it('refuses what Codex refuses, with errors naming the field', async () => {
    expect((await client.call('command/exec', { command: [] })).error).toEqual({
      code: -32602,
      message: 'command: give at least the program to run (an empty argv was sent)',
    });
    expect((await client.call('command/exec', { command: ['bash'], tty: true })).error).toEqual({
      code: -32602,
      message: 'processId: required with tty, streamStdin or streamStdoutStderr',
    });
    expect((await client.call('command/exec', { command: ['true'], size: { rows: 1, cols: 1 } })).error).toEqual({
      code: -32602,
      message: 'size: only valid with tty: true',
    });
    expect(
      (await client.call('command/exec/resize', { processId: 'nope', size: { rows: 1, cols: 1 } })).error?.message,
    ).toBe('processId: no running process nope on this connection');
    start(
      'command/exec',
      {
        command: ['sleep', '30'],
        processId: 'dup',
        streamStdoutStderr: true,
        sandboxPolicy: { type: 'dangerFullAccess' },
      },
      'dup-1',
    );
    const second = await client.call('command/exec', { command: ['true'], processId: 'dup', streamStdoutStderr: true });
    expect(second.error).toEqual({ code: -32600, message: 'processId: dup is already running on this connection' });
    await client.request('command/exec/terminate', { processId: 'dup' });
    await response('dup-1');
  });

  it('stops a buffered command at timeoutMs', async () => {
    const result = await client.request<{ exitCode: number }>('command/exec', {
      command: ['sleep', '30'],
      timeoutMs: 200,
      sandboxPolicy: { type: 'dangerFullAccess' },
    });
    expect(result.exitCode).toBe(128 + 15);
  });

  it('runs in the sandbox of the config when the request names none', async () => {
    await client.close();
    const ro = await makeWeftHome(`sandbox_mode = "read-only"\n`);
    client = StdioRpcClient.start({ WEFT_HOME: ro.dir }, ws.dir);
    await client.initialize();
    const result = await client.request<{ exitCode: number; stderr: string }>('command/exec', {
      command: ['bash', '-c', 'echo x > written.txt'],
    });
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toMatch(/Read-only file system/);
    await ro.cleanup();
  });

  it('kills the processes of a connection when it closes', async () => {
    const pidFile = join(ws.dir, 'pid');
    start(
      'command/exec',
      {
        command: ['bash', '-c', `echo $$ > ${pidFile}; echo started; sleep 60`],
        processId: 'long',
        streamStdoutStderr: true,
        sandboxPolicy: { type: 'dangerFullAccess' },
      },
      'long-1',
    );
    await waitForOutput('long', 'started');
    const pid = Number(execFileSync('cat', [pidFile]).toString().trim());
    expect(() => process.kill(pid, 0)).not.toThrow();
    await client.close();
    await expect
      .poll(
        () => {
          try {
            process.kill(pid, 0);
            return 'alive';
          } catch {
            return 'gone';
          }
        },
        { timeout: 10_000 },
      )
      .toBe('gone');
    client = StdioRpcClient.start({ WEFT_HOME: home.dir, MOCK_API_KEY: 'x' }, ws.dir);
    await client.initialize();
  });
});

describe('thread/shellCommand', () => {
  it("runs the user's command in the thread's cwd as a userShell item the model sees next turn", async () => {
    mkdirSync(join(ws.dir, 'sub'));
    const { thread } = await client.request<{ thread: { id: string } }>('thread/start', { cwd: join(ws.dir, 'sub') });
    expect(
      await client.request('thread/shellCommand', { threadId: thread.id, command: 'echo from-user; pwd; exit 2' }),
    ).toEqual({});
    const completed = await client.notification('turn/completed', (p) => p['threadId'] === thread.id);
    const items = client.notifications('item/completed').map((p) => p['item'] as Record<string, unknown>);
    const item = items.find((i) => i['type'] === 'commandExecution');
    expect(item).toMatchObject({
      type: 'commandExecution',
      command: 'echo from-user; pwd; exit 2',
      cwd: join(ws.dir, 'sub'),
      source: 'userShell',
      status: 'failed',
      exitCode: 2,
      aggregatedOutput: `from-user\n${join(ws.dir, 'sub')}\n`,
      weftOutcome: 'exited',
    });
    expect((completed['turn'] as { status: string }).status).toBe('completed');
    const deltas = client
      .notifications('item/commandExecution/outputDelta')
      .map((p) => p['delta'])
      .join('');
    expect(deltas).toBe(`from-user\n${join(ws.dir, 'sub')}\n`);
    expect(server.requests).toHaveLength(0);

    server.enqueue(answer('I see it.'));
    const { turn } = await client.request<{ turn: { id: string } }>('turn/start', {
      threadId: thread.id,
      input: [{ type: 'text', text: 'what did I run?' }],
    });
    await client.notification('turn/completed', (p) => (p['turn'] as { id: string }).id === turn.id);
    const sent = JSON.stringify(server.requests[0]?.body);
    expect(sent).toContain('<user_shell_command>');
    expect(sent).toContain('echo from-user; pwd; exit 2');
    expect(sent).toContain('Exit code: 2');
    expect(sent).toContain('from-user');
    // The thread read back shows the command as the user's.
    const read = await client.request<{ thread: { turns: { items: { type: string; source?: string }[] }[] } }>(
      'thread/read',
      { threadId: thread.id, includeTurns: true },
    );
    expect(read.thread.turns[0]?.items.find((i) => i.type === 'commandExecution')?.source).toBe('userShell');
  });

  it('refuses an unknown thread and an empty command', async () => {
    expect((await client.call('thread/shellCommand', { threadId: 'nope', command: 'ls' })).error?.code).toBe(-32602);
    const { thread } = await client.request<{ thread: { id: string } }>('thread/start', {});
    expect((await client.call('thread/shellCommand', { threadId: thread.id, command: '  ' })).error).toEqual({
      code: -32602,
      message: 'command: give the command to run',
    });
  });
});

describe('fuzzyFileSearch and mentions', () => {
  it('finds files fuzzily, best first, leaving out what .gitignore ignores', async () => {
    execFileSync('git', ['init', '-q'], { cwd: ws.dir });
    const { files } = await client.request<{
      files: { root: string; path: string; file_name: string; match_type: string; score: number; indices: number[] }[];
    }>('fuzzyFileSearch', { query: 'parser', roots: [ws.dir] });
    expect(files[0]).toMatchObject({ root: ws.dir, path: 'src/parser.ts', file_name: 'parser.ts', match_type: 'file' });
    expect(files[0]?.indices).toEqual([4, 5, 6, 7, 8, 9]);
    const all = await client.request<{ files: { path: string }[] }>('fuzzyFileSearch', {
      query: 'js',
      roots: [ws.dir],
    });
    expect(all.files.map((f) => f.path)).not.toContain('build/out.js');
    const scores = (
      await client.request<{ files: { score: number }[] }>('fuzzyFileSearch', { query: 'pr', roots: [ws.dir] })
    ).files.map((f) => f.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  it("sends a mentioned file's content to the model", async () => {
    writeFileSync(join(ws.dir, 'src', 'secret-plan.md'), 'Step 1: the mentioned content.\n');
    const { thread } = await client.request<{ thread: { id: string } }>('thread/start', { cwd: ws.dir });
    server.enqueue(answer('Read it.'));
    const { turn } = await client.request<{ turn: { id: string } }>('turn/start', {
      threadId: thread.id,
      input: [
        { type: 'text', text: 'summarize @secret-plan.md' },
        { type: 'mention', name: 'secret-plan.md', path: join(ws.dir, 'src', 'secret-plan.md') },
      ],
    });
    await client.notification('turn/completed', (p) => (p['turn'] as { id: string }).id === turn.id);
    const sent = JSON.stringify(server.requests[0]?.body);
    expect(sent).toContain('Step 1: the mentioned content.');
    expect(sent).toContain(`<file path=\\"${join(ws.dir, 'src', 'secret-plan.md')}\\">`);
  });
});
