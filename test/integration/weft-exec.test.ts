import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  assertAllToolOutputsAnswered,
  startMockResponsesServer,
  type MockResponsesServer,
} from '../support/mock-responses-server';
import { evAssistantMessage, evCompleted, evCreated, evFunctionCall, evOutputTextDelta } from '../support/sse';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../support/workspace';

const WEFT = resolve(__dirname, '../../bin/weft.js');

let server: MockResponsesServer;
let ws: TempWorkspace;
let home: WeftHome;

function mockConfig(url: string, extra = ''): string {
  return `model = "mock-model"\nmodel_provider = "mock"\n${extra}\n[model_providers.mock]\nname = "Mock"\nbase_url = "${url}"\nenv_key = "MOCK_API_KEY"\nwire_api = "responses"\n`;
}

beforeEach(async () => {
  server = await startMockResponsesServer();
  ws = await makeTempWorkspace({ 'notes.txt': 'alpha\nbeta\n' });
  home = await makeWeftHome(mockConfig(server.url));
});

afterEach(async () => {
  await server.close();
  await ws.cleanup();
  await home.cleanup();
});

interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runWeft(
  args: string[],
  opts: { env?: Record<string, string | undefined>; stdin?: string; cwd?: string } = {},
): Promise<RunResult> {
  return new Promise((resolveRun, reject) => {
    const env: Record<string, string | undefined> = {
      PATH: process.env['PATH'],
      HOME: process.env['HOME'],
      SHELL: '/bin/bash',
      WEFT_HOME: home.dir,
      MOCK_API_KEY: 'sk-test',
      ...opts.env,
    };
    const child = spawn(process.execPath, [WEFT, ...args], {
      cwd: opts.cwd ?? ws.dir,
      env: Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined)),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolveRun({ code, stdout, stderr }));
    child.stdin.end(opts.stdin ?? '');
  });
}

function answer(text: string) {
  return {
    kind: 'sse' as const,
    events: [evCreated(), evOutputTextDelta(text), evAssistantMessage(text), evCompleted()],
  };
}

describe('weft exec', () => {
  it('runs a multi-step tool-using turn and prints the answer on stdout', async () => {
    server.enqueueMany([
      {
        kind: 'sse',
        events: [evCreated(), evFunctionCall('c1', 'exec_command', { cmd: 'cat notes.txt' }), evCompleted()],
      },
      {
        kind: 'sse',
        events: [evCreated(), evFunctionCall('c2', 'exec_command', { cmd: 'wc -l notes.txt' }), evCompleted()],
      },
      answer('notes.txt has 2 lines: alpha and beta.'),
    ]);
    const result = await runWeft(['exec', 'how many lines are in notes.txt?']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('notes.txt has 2 lines: alpha and beta.\n');
    expect(result.stderr).toContain('$ cat notes.txt');
    expect(result.stderr).toContain('$ wc -l notes.txt');
    expect(result.stderr).toMatch(/exit 0/);
    expect(server.requests).toHaveLength(3);
    const outputs = assertAllToolOutputsAnswered(server.requests[2]?.body);
    expect(outputs.map((o) => o.call_id)).toEqual(['c1', 'c2']);
    expect(String(outputs[0]?.output)).toContain('alpha\nbeta');
    expect(String(outputs[1]?.output)).toMatch(/2 notes\.txt/);
    expect(server.requests[0]?.headers['authorization']).toBe('Bearer sk-test');
  });

  it('prints one JSON event per line with --json', async () => {
    server.enqueue(answer('json answer'));
    const result = await runWeft(['exec', '--json', 'hi']);
    expect(result.code).toBe(0);
    const events = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { method: string; params: Record<string, unknown> });
    expect(events[0]?.method).toBe('thread/status/changed');
    expect(events.map((e) => e.method)).toContain('item/agentMessage/delta');
    expect(events.slice(-2).map((e) => e.method)).toEqual(['turn/completed', 'thread/status/changed']);
    const completedMessage = events.find(
      (e) => e.method === 'item/completed' && (e.params['item'] as { type: string }).type === 'agentMessage',
    );
    expect(completedMessage?.params['item']).toMatchObject({ text: 'json answer' });
  });

  it('reads the prompt from stdin with -', async () => {
    server.enqueue(answer('from stdin'));
    const result = await runWeft(['exec', '-'], { stdin: 'a prompt\nover two lines\n' });
    expect(result.code).toBe(0);
    const input = (server.requests[0]?.body as { input: { content: { text: string }[] }[] }).input;
    expect(input.at(-1)?.content[0]?.text).toBe('a prompt\nover two lines');
  });

  it('applies --model, -c overrides and --cd', async () => {
    server.enqueue(answer('ok'));
    const other = await makeTempWorkspace();
    try {
      const result = await runWeft([
        'exec',
        '--model',
        'gpt-5.1-codex',
        '-c',
        'model_reasoning_effort="high"',
        '--cd',
        other.dir,
        'hi',
      ]);
      expect(result.code).toBe(0);
      const body = server.requests[0]?.body as {
        model: string;
        reasoning: unknown;
        input: { content: { text: string }[] }[];
      };
      expect(body.model).toBe('gpt-5.1-codex');
      expect(body.reasoning).toEqual({ effort: 'high', summary: 'auto' });
      expect(JSON.stringify(body.input[1])).toContain(`<cwd>${other.dir}</cwd>`);
    } finally {
      await other.cleanup();
    }
  });

  it('fails with a one-line reason when the API key is missing', async () => {
    const result = await runWeft(['exec', 'hi'], { env: { MOCK_API_KEY: undefined } });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/^weft: MOCK_API_KEY is not set/);
    expect(server.requests).toHaveLength(0);
  });

  it('reports a config syntax error with file, line and column', async () => {
    await writeFile(join(home.dir, 'config.toml'), 'model = "x"\nmodel_provider = \n');
    const result = await runWeft(['exec', 'hi']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      new RegExp(`^weft: ${join(home.dir, 'config.toml').replace(/[.]/g, '\\.')}:2:\\d+: TOML syntax error`),
    );
  });

  it('fails clearly when the model endpoint is unreachable', async () => {
    const port = await startMockResponsesServer().then(async (s) => {
      const u = new URL(s.url);
      await s.close();
      return u.port;
    });
    await writeFile(
      join(home.dir, 'config.toml'),
      mockConfig(`http://127.0.0.1:${port}/v1`).replace(
        'wire_api = "responses"',
        'wire_api = "responses"\nrequest_max_retries = 0',
      ),
    );
    const result = await runWeft(['exec', 'hi']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/weft: could not reach the model endpoint/);
  });

  it('fails with the server message on 401, without retrying', async () => {
    server.enqueue({
      kind: 'http-error',
      status: 401,
      body: { error: { message: 'bad key', type: 'invalid_request_error', code: 'invalid_api_key' } },
    });
    const result = await runWeft(['exec', 'hi']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('weft: the model endpoint refused the credentials (HTTP 401): bad key');
    expect(server.requests).toHaveLength(1);
  });

  it('saves the run as a thread that --resume continues and `weft threads list` shows', async () => {
    server.enqueueMany([answer('The number is 42.'), answer('It was 42.'), answer('hello')]);
    const first = await runWeft(['exec', 'remember 42']);
    expect(first.code).toBe(0);
    const id = /weft: thread (\S+)/.exec(first.stderr)?.[1] ?? '';
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const second = await runWeft(['exec', '--resume', id, 'what was the number?']);
    expect(second.code).toBe(0);
    expect(second.stdout).toBe('It was 42.\n');
    const texts = JSON.stringify((server.requests[1]?.body as { input: unknown[] }).input);
    expect(texts).toContain('remember 42');
    expect(texts).toContain('The number is 42.');
    const list = await runWeft(['threads', 'list', '--json']);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain(id);
    const ephemeral = await runWeft(['exec', '--ephemeral', 'hi']);
    expect(ephemeral.stderr).not.toContain('weft: thread');
  });

  it('continues a thread with `resume ID prompt` and `resume --last`, never taking them for the prompt', async () => {
    server.enqueueMany([answer('The number is 42.'), answer('It was 42.'), answer('Still 42.')]);
    const first = await runWeft(['exec', 'remember 42']);
    const id = /weft: thread (\S+)/.exec(first.stderr)?.[1] ?? '';
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const byId = await runWeft(['exec', 'resume', id, 'what was the number?']);
    expect([byId.code, byId.stdout]).toEqual([0, 'It was 42.\n']);
    expect(byId.stderr).toContain(`weft: thread ${id} (resumed)`);
    const last = await runWeft(['exec', '--model', 'mock-model', 'resume', '--last'], { stdin: 'and now?' });
    expect([last.code, last.stdout]).toEqual([0, 'Still 42.\n']);
    expect(last.stderr).toContain(`weft: thread ${id} (resumed)`);
    const lastInput = JSON.stringify((server.requests[2]?.body as { input: unknown[] }).input);
    for (const text of ['remember 42', 'what was the number?', 'It was 42.', 'and now?'])
      expect(lastInput).toContain(text);
    const userTexts = (server.requests[1]?.body as { input: { role?: string; content?: { text?: string }[] }[] }).input
      .filter((i) => i.role === 'user')
      .map((i) => i.content?.[0]?.text);
    expect(userTexts).not.toContain(`resume ${id} what was the number?`);
  });

  it('says when resume --last finds no thread for this directory', async () => {
    const result = await runWeft(['exec', 'resume', '--last', 'hi']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `weft: no saved thread was started in ${ws.dir}; use resume --last --all to pick from every directory\n`,
    );
    expect(server.requests).toHaveLength(0);
  });

  it('rejects unknown flags and misplaced ones with exit status 2, before calling the model', async () => {
    for (const args of [
      ['exec', '--frobnicate', 'hi'],
      ['exec', 'resume'],
      ['exec', '--last', 'hi'],
      ['exec', '--json', '--experimental-json', 'hi'],
    ]) {
      const result = await runWeft(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toMatch(/^weft exec: .+\n\nUsage: weft exec/);
    }
    expect((await runWeft(['exec', '--frobnicate', 'hi'])).stderr).toContain("Unknown option '--frobnicate'");
    expect(server.requests).toHaveLength(0);
  });

  it('reads the prompt from stdin when none is given, records --thread-source and writes -o', async () => {
    server.enqueue(answer('piped'));
    const result = await runWeft(['exec', '--thread-source', 'ci-bot', '-o', 'last.txt'], {
      stdin: 'prompt from a pipe\n',
    });
    expect(result.code).toBe(0);
    const input = (server.requests[0]?.body as { input: { content: { text: string }[] }[] }).input;
    expect(input.at(-1)?.content[0]?.text).toBe('prompt from a pipe');
    expect(await ws.read('last.txt')).toBe('piped');
    const list = await runWeft(['threads', 'list', '--json']);
    expect(list.stdout).toContain('"source":"ci-bot"');
  });

  it('lets --add-dir directories be written under workspace-write', async () => {
    const extra = await makeTempWorkspace();
    try {
      const write = {
        kind: 'sse' as const,
        events: [
          evCreated(),
          evFunctionCall('c1', 'exec_command', { cmd: `echo added > ${extra.path('out.txt')}` }),
          evCompleted(),
        ],
      };
      server.enqueueMany([write, answer('refused'), write, answer('written')]);
      // The extra folder is under the temp folder, which workspace-write allows unless told not to.
      const noTmp = [
        '-c',
        'sandbox_workspace_write.exclude_slash_tmp=true',
        '-c',
        'sandbox_workspace_write.exclude_tmpdir_env_var=true',
      ];
      const without = await runWeft(['exec', '--sandbox', 'workspace-write', ...noTmp, 'write it']);
      expect(without.code).toBe(0);
      await expect(extra.read('out.txt')).rejects.toThrow(/ENOENT/);
      const result = await runWeft([
        'exec',
        '--sandbox',
        'workspace-write',
        ...noTmp,
        '--add-dir',
        extra.dir,
        'write it',
      ]);
      expect(result.code).toBe(0);
      expect(await extra.read('out.txt')).toBe('added\n');
    } finally {
      await extra.cleanup();
    }
  });

  it('fails clearly on a bad --output-schema or --image', async () => {
    await writeFile(ws.path('schema.json'), '[1, 2]');
    const schema = await runWeft(['exec', '--output-schema', 'schema.json', 'hi']);
    expect([schema.code, schema.stderr]).toEqual([
      1,
      `weft: the output schema ${ws.path('schema.json')} must be a JSON object (a JSON Schema)\n`,
    ]);
    const image = await runWeft(['exec', '--image', 'missing.png', 'hi']);
    expect([image.code, image.stderr]).toEqual([1, `weft: --image: image not found: ${ws.path('missing.png')}\n`]);
    expect(server.requests).toHaveLength(0);
  });

  it('prints help and rejects a missing prompt', async () => {
    const help = await runWeft(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: weft <command>');
    const missing = await runWeft(['exec']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no prompt given');
  });
});

describe('weft exec checkpoints', () => {
  it('records what its commands changed, so `weft threads revert --files` puts the files back', async () => {
    server.enqueueMany([
      {
        kind: 'sse',
        events: [
          evCreated(),
          evFunctionCall('c1', 'exec_command', {
            cmd: 'printf "gamma\\n" >> notes.txt && mkdir -p made/deep && echo x > made/deep/x.txt',
          }),
          evCompleted(),
        ],
      },
      answer('done'),
    ]);
    const run = await runWeft(['exec', 'change things']);
    expect(run.code).toBe(0);
    const id = /weft: thread (\S+)/.exec(run.stderr)?.[1] ?? '';
    expect(await readFile(join(ws.dir, 'notes.txt'), 'utf8')).toBe('alpha\nbeta\ngamma\n');
    const read = await runWeft(['threads', 'read', id, '--json']);
    const turnId = (JSON.parse(read.stdout) as { thread: { turns: { id: string }[] } }).thread.turns[0]?.id ?? '';
    const reverted = await runWeft(['threads', 'revert', id, '--before', turnId, '--files']);
    expect({ code: reverted.code, stderr: reverted.stderr }).toEqual({ code: 0, stderr: '' });
    expect(await readFile(join(ws.dir, 'notes.txt'), 'utf8')).toBe('alpha\nbeta\n');
    expect(existsSync(join(ws.dir, 'made'))).toBe(false);
  });

  it('records nothing with --ephemeral or [checkpoints] enabled = false', async () => {
    const call = {
      kind: 'sse' as const,
      events: [evCreated(), evFunctionCall('c1', 'exec_command', { cmd: 'echo x >> x.txt' }), evCompleted()],
    };
    server.enqueueMany([call, answer('done'), call, answer('done')]);
    expect((await runWeft(['exec', '--ephemeral', 'change things'])).code).toBe(0);
    await writeFile(join(home.dir, 'config.toml'), mockConfig(server.url, '[checkpoints]\nenabled = false\n'));
    expect((await runWeft(['exec', 'change things'])).code).toBe(0);
    expect(await readFile(join(ws.dir, 'x.txt'), 'utf8')).toBe('x\nx\n');
    expect(existsSync(join(home.dir, 'checkpoints'))).toBe(false);
  });
});
