// Lifecycle hooks through the real `weft` binary (`weft exec` and `weft app-server`) with real hook programs:
// a PreToolUse hook that exits 2 blocks the command and the model reads Codex's words; the payloads have
// the keys, order and types Codex 0.169 writes (test/fixtures/codex-hooks-0.169); a blocked prompt is never
// sent; hooks nobody trusted, or that changed since, do not run; a hook that hangs is cut at its timeout and
// one that fails is reported, while the turn goes on.
import { readFile } from 'node:fs/promises';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { shapeOf } from '../support/codex-exec-fixtures';
import type { HookRecorder } from '../support/hook-program';
import { useHooksHarness, type HookSpec } from '../support/hooks-harness';
import type { MockResponsesServer } from '../support/mock-responses-server';
import type { StdioRpcClient } from '../support/rpc-client';
import { answerTurn, evCompleted, evCreated, evFunctionCall } from '../support/sse';
import type { TempWorkspace, WeftHome } from '../support/workspace';
import type { WeftRun } from '../support/weft-cli';

const FIXTURES = resolve(__dirname, '../fixtures/codex-hooks-0.169');

const h = useHooksHarness();
let server: MockResponsesServer;
let ws: TempWorkspace;
let home: WeftHome;
let hooks: HookRecorder;

// The harness's own setup runs first (it was registered first).
beforeEach(() => {
  ({ server, ws, home, hooks } = h);
});

const writeHooks = (specs: HookSpec[]): Promise<void> => h.writeHooks(specs);
const weft = (args: string[]): Promise<WeftRun> => h.weft(args);

const commandTurn = (cmd: string) => ({
  kind: 'sse' as const,
  events: [evCreated(), evFunctionCall('call_1', 'exec_command', { cmd }), evCompleted()],
});

/** The output the model was sent for call `callId` (in the request after the call). */
function toolOutput(callId: string): unknown {
  for (const r of server.requests) {
    const input = (r.body as { input?: { type?: string; call_id?: string; output?: unknown }[] }).input ?? [];
    const found = input.find((i) => i.type === 'function_call_output' && i.call_id === callId);
    if (found) return found.output;
  }
  return undefined;
}

/** Whether `pid` is a live process (a zombie is dead: killed, not yet reaped). */
function running(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return false;
  }
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] !== 'Z';
}

/** The newest tool output the model was sent. */
function lastToolOutput(): string {
  const last = server.requests[server.requests.length - 1];
  const input = (last?.body as { input?: { type?: string; output?: unknown }[] } | undefined)?.input ?? [];
  return String(input.filter((i) => i.type === 'function_call_output').pop()?.output ?? '');
}

function hookLines(stderr: string): string[] {
  return stderr.split('\n').filter((l) => l.startsWith('hook: '));
}

async function codexFixture<T>(name: string): Promise<T> {
  return JSON.parse(await readFile(join(FIXTURES, name), 'utf8')) as T;
}

describe('hooks in weft exec', () => {
  it('a PreToolUse hook that exits 2 blocks the command, and the model reads the reason in Codex’s words', async () => {
    await writeHooks([{ event: 'PreToolUse', matcher: 'Bash', mode: 'block:BLOCKME' }]);
    server.enqueueMany([commandTurn('echo BLOCKME > made.txt'), answerTurn('DONE: blocked')]);
    const run = await weft(['exec', '--dangerously-bypass-hook-trust', 'RUN echo BLOCKME']);
    expect(run.code).toBe(0);
    expect(toolOutput('call_1')).toBe(
      'Command blocked by PreToolUse hook: commands that mention BLOCKME are not allowed. Command: echo BLOCKME > made.txt',
    );
    expect(existsSync(join(ws.dir, 'made.txt'))).toBe(false);
    const codex = await codexFixture<{ modelInput: [unknown, [{ output: string }]] }>('blocked-command.json');
    expect(codex.modelInput[1][0].output).toBe(
      'Command blocked by PreToolUse hook: commands that mention BLOCKME are not allowed. Command: echo BLOCKME',
    );
    expect(hookLines(run.stderr)).toEqual(['hook: PreToolUse', 'hook: PreToolUse Blocked']);
    expect(run.stderr).toContain(
      'weft: warning: `--dangerously-bypass-hook-trust` is enabled. Enabled hooks may run without review for this invocation.',
    );
  });

  it('hands each event the payload Codex 0.169 writes: the same keys, order and types', async () => {
    await writeHooks(
      ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop'].map((event) => ({
        event,
        ...(event.endsWith('ToolUse') ? { matcher: 'Bash' } : {}),
      })),
    );
    server.enqueueMany([commandTurn('echo hook-marker'), answerTurn('DONE: hook-marker')]);
    const run = await weft(['exec', '--json', '--dangerously-bypass-hook-trust', 'RUN echo hook-marker']);
    expect(run.code).toBe(0);
    const runs = await hooks.runs();
    expect(runs.map((r) => r.event)).toEqual(['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop']);
    const codex = await codexFixture<Record<string, Record<string, unknown>>>('payloads.json');
    const started = run.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { method: string; params: { threadId?: string; turn?: { id: string } } })
      .find((n) => n.method === 'turn/started');
    const threadId = started?.params.threadId ?? '';
    const turnId = started?.params.turn?.id ?? '';
    for (const { event, payload } of runs) {
      const theirs = codex[event] ?? {};
      expect(Object.keys(payload), event).toEqual(Object.keys(theirs));
      expect(shapeOf(payload), event).toEqual(shapeOf(theirs));
      // Values that differ by nature (ids, paths) are Weft's own; the rest are the same as Codex's.
      expect(payload['session_id']).toBe(threadId);
      if (event !== 'SessionStart') expect(payload['turn_id']).toBe(turnId);
      expect(payload['cwd']).toBe(ws.dir);
      expect(String(payload['transcript_path'])).toMatch(new RegExp(`^${home.dir}/sessions/.*${threadId}\\.jsonl$`));
      expect(payload['model']).toBe('mock-model');
      expect(payload['permission_mode']).toBe(theirs['permission_mode']);
    }
    const byEvent = Object.fromEntries(runs.map((r) => [r.event, r.payload]));
    expect(byEvent['SessionStart']?.['source']).toBe('startup');
    expect(byEvent['UserPromptSubmit']?.['prompt']).toBe('RUN echo hook-marker');
    expect(byEvent['PreToolUse']?.['tool_input']).toEqual({ command: 'echo hook-marker' });
    expect(byEvent['PostToolUse']?.['tool_response']).toBe('hook-marker\n');
    expect(byEvent['Stop']).toMatchObject({ stop_hook_active: false, last_assistant_message: 'DONE: hook-marker' });
    // The environment is filtered like commands': the provider's key does not reach the hook.
    expect(runs[0]?.envNames).not.toContain('MOCK_API_KEY');
  });

  it('a prompt a UserPromptSubmit hook blocks is never sent to the model', async () => {
    await writeHooks([{ event: 'UserPromptSubmit', mode: 'block:SECRETKEY' }]);
    const run = await weft(['exec', '--dangerously-bypass-hook-trust', 'tell me SECRETKEY sk-123']);
    expect(run.code).toBe(0);
    expect(server.requests).toHaveLength(0);
    expect(hookLines(run.stderr)).toEqual(['hook: UserPromptSubmit', 'hook: UserPromptSubmit Blocked']);
    expect(run.stderr).toContain('The prompt was not sent: a UserPromptSubmit hook blocked it');
    const codex = await codexFixture<{ modelRequests: number }>('blocked-prompt.json');
    expect(codex.modelRequests).toBe(0);
  });

  it('runs no hook nobody trusted, and says so', async () => {
    await writeHooks([{ event: 'UserPromptSubmit' }, { event: 'PreToolUse', matcher: 'Bash' }]);
    server.enqueueMany([commandTurn('echo untrusted'), answerTurn('DONE: untrusted')]);
    const run = await weft(['exec', 'RUN echo untrusted']);
    expect(run.code).toBe(0);
    expect(await hooks.runs()).toEqual([]);
    expect(hookLines(run.stderr)).toEqual([]);
    expect(run.stderr).toContain('is not trusted and does not run');
  });

  it('cuts a hook that hangs at its timeout, kills what it started, and runs the command', async () => {
    await writeHooks([{ event: 'PreToolUse', matcher: 'Bash', mode: 'hang', timeout: 1 }]);
    server.enqueueMany([commandTurn('echo after-hang'), answerTurn('DONE: after-hang')]);
    const started = Date.now();
    const run = await weft(['exec', '--json', '--dangerously-bypass-hook-trust', 'RUN echo after-hang']);
    expect(run.code).toBe(0);
    expect(Date.now() - started).toBeLessThan(20_000);
    const completed = run.stdout
      .trim()
      .split('\n')
      .map(
        (l) =>
          JSON.parse(l) as {
            method: string;
            params: { run?: { status: string; entries: unknown[]; durationMs: number } };
          },
      )
      .filter((n) => n.method === 'hook/completed');
    expect(completed.map((n) => ({ status: n.params.run?.status, entries: n.params.run?.entries }))).toEqual([
      { status: 'failed', entries: [{ kind: 'error', text: 'hook timed out after 1s' }] },
    ]);
    expect(toolOutput('call_1')).toContain('after-hang');
    const pids = await hooks.hungPids();
    expect(pids).toHaveLength(2);
    expect(pids.filter(running)).toEqual([]);
  });

  it('reports a hook that fails, and the turn goes on', async () => {
    await writeHooks([{ event: 'PreToolUse', matcher: 'Bash', mode: 'fail' }]);
    server.enqueueMany([commandTurn('echo still-ran'), answerTurn('DONE: still-ran')]);
    const run = await weft(['exec', '--dangerously-bypass-hook-trust', 'RUN echo still-ran']);
    expect(run.code).toBe(0);
    expect(hookLines(run.stderr)).toEqual(['hook: PreToolUse', 'hook: PreToolUse Failed']);
    expect(run.stderr).toContain('error: hook exited with code 1');
    expect(toolOutput('call_1')).toContain('still-ran');
    const codex = await codexFixture<{ failingHook: string[] }>('exec-progress.json');
    expect(codex.failingHook).toContain('hook: PreToolUse Failed');
  });
});

describe('weft hooks', () => {
  it('lists a hook as not trusted, trusts it as it is, and disables it; exec runs it only while trusted and enabled', async () => {
    await writeHooks([{ event: 'UserPromptSubmit' }]);
    const key = `${join(home.dir, 'hooks.json')}:user_prompt_submit:0:0`;
    const listed = await weft(['hooks', 'list']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(`UserPromptSubmit: untrusted\n  command: ${hooks.command('UserPromptSubmit')}`);
    expect(listed.stdout).toContain(`  key:     ${key}`);

    const trusted = await weft(['hooks', 'trust', '--all']);
    expect(trusted.code).toBe(0);
    expect(trusted.stdout).toContain('trusted UserPromptSubmit');
    expect((await weft(['hooks', 'list'])).stdout).toContain('UserPromptSubmit: trusted');
    server.enqueue(answerTurn('ACK: one'));
    const first = await weft(['exec', 'one']);
    expect(hookLines(first.stderr)).toEqual(['hook: UserPromptSubmit', 'hook: UserPromptSubmit Completed']);
    expect((await hooks.runs()).map((r) => r.payload['prompt'])).toEqual(['one']);

    const disabled = await weft(['hooks', 'disable', key]);
    expect(disabled.code).toBe(0);
    expect((await weft(['hooks', 'list'])).stdout).toContain('UserPromptSubmit: disabled');
    server.enqueue(answerTurn('ACK: two'));
    const second = await weft(['exec', 'two']);
    expect(second.code).toBe(0);
    expect(hookLines(second.stderr)).toEqual([]);
    expect((await hooks.runs()).map((r) => r.payload['prompt'])).toEqual(['one']);
  });
});

describe('hooks through the app server', () => {
  const client = (): Promise<StdioRpcClient> => h.client();

  type Listed = { data: { hooks: { key: string; currentHash: string; trustStatus: string; eventName: string }[] }[] };

  it('runs a hook once it is trusted by hash, tells each run as hook/started and hook/completed, and not once it changed', async () => {
    await writeHooks([{ event: 'PreToolUse', matcher: 'Bash', mode: 'block:BLOCKME' }]);
    const c = await client();
    const listed = await c.request<Listed>('hooks/list', { cwds: [ws.dir] });
    const hook = listed.data[0]?.hooks[0];
    expect(hook).toMatchObject({ eventName: 'preToolUse', trustStatus: 'untrusted' });
    expect(hook?.key).toBe(`${join(home.dir, 'hooks.json')}:pre_tool_use:0:0`);
    await c.request('weft/hooks/trust', { cwd: ws.dir, hooks: [{ key: hook?.key, currentHash: hook?.currentHash }] });
    expect(await readFile(join(home.dir, 'config.toml'), 'utf8')).toContain(`trusted_hash = "${hook?.currentHash}"`);
    const after = await c.request<Listed>('hooks/list', { cwds: [ws.dir] });
    expect(after.data[0]?.hooks[0]?.trustStatus).toBe('trusted');

    server.enqueueMany([commandTurn('echo BLOCKME'), answerTurn('DONE: blocked')]);
    const started = await c.request<{ thread: { id: string } }>('thread/start', { cwd: ws.dir });
    const threadId = started.thread.id;
    await c.request('turn/start', { threadId, input: [{ type: 'text', text: 'RUN echo BLOCKME', text_elements: [] }] });
    await c.notification('turn/completed', (p) => p['threadId'] === threadId);
    const seen = [
      ...c.notifications('hook/started').map((params) => ({ method: 'hook/started', params })),
      ...c.notifications('hook/completed').map((params) => ({ method: 'hook/completed', params })),
    ];
    const codex = (await readFile(join(FIXTURES, 'app-server.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { method: string; params: { run: Record<string, unknown> } })
      .filter(
        (n) =>
          n.params.run['status'] === 'blocked' ||
          n.params.run['id'] === 'pre-tool-use:3:/home/dev/.codex/config.toml:call_fx_11',
      );
    expect(seen.map((n) => n.method)).toEqual(codex.map((n) => n.method));
    const [start, done] = seen;
    for (const [ours, theirs] of [
      [start, codex[0]],
      [done, codex[1]],
    ] as const) {
      const run = (ours?.params['run'] ?? {}) as Record<string, unknown>;
      const { weftCommand: _c, weftExitCode: _e, weftOutput: _o, ...codexPart } = run;
      expect(Object.keys(codexPart).sort()).toEqual(Object.keys(theirs?.params.run ?? {}).sort());
      expect(shapeOf(codexPart)).toEqual(shapeOf(theirs?.params.run));
    }
    expect(done?.params['run']).toMatchObject({
      id: `pre-tool-use:0:${join(home.dir, 'hooks.json')}:call_1`,
      eventName: 'preToolUse',
      status: 'blocked',
      entries: [{ kind: 'feedback', text: 'commands that mention BLOCKME are not allowed' }],
      weftExitCode: 2,
    });
    expect(toolOutput('call_1')).toBe(
      'Command blocked by PreToolUse hook: commands that mention BLOCKME are not allowed. Command: echo BLOCKME',
    );

    // The hook changes (another timeout): it is `modified` and does not run until trusted again.
    await writeHooks([{ event: 'PreToolUse', matcher: 'Bash', mode: 'block:BLOCKME', timeout: 31 }]);
    const changed = await c.request<Listed>('hooks/list', { cwds: [ws.dir] });
    expect(changed.data[0]?.hooks[0]?.trustStatus).toBe('modified');
    const before = (await hooks.runs()).length;
    server.enqueueMany([commandTurn('echo BLOCKME again'), answerTurn('DONE: ran')]);
    const second = await c.request<{ thread: { id: string } }>('thread/start', { cwd: ws.dir });
    await c.request('turn/start', {
      threadId: second.thread.id,
      input: [{ type: 'text', text: 'RUN echo BLOCKME again', text_elements: [] }],
    });
    await c.notification('turn/completed', (p) => p['threadId'] === second.thread.id);
    expect((await hooks.runs()).length).toBe(before);
    expect(lastToolOutput()).toContain('BLOCKME again');
  });

  it('fires PreCompact and PostCompact around a compaction, with its trigger', async () => {
    await writeHooks([{ event: 'PreCompact' }, { event: 'PostCompact' }]);
    const c = await client();
    const listed = await c.request<Listed>('hooks/list', { cwds: [ws.dir] });
    const all = listed.data[0]?.hooks ?? [];
    await c.request('weft/hooks/trust', {
      cwd: ws.dir,
      hooks: all.map((h) => ({ key: h.key, currentHash: h.currentHash })),
    });
    server.enqueueMany([answerTurn('ACK: first'), answerTurn('SUMMARY: the user said hello')]);
    const started = await c.request<{ thread: { id: string } }>('thread/start', { cwd: ws.dir });
    const threadId = started.thread.id;
    await c.request('turn/start', { threadId, input: [{ type: 'text', text: 'hello', text_elements: [] }] });
    await c.notification('turn/completed', (p) => p['threadId'] === threadId);
    const mark = c.received.length;
    await c.request('thread/compact/start', { threadId });
    await c.notification('turn/completed', (p) => p['threadId'] === threadId, mark);
    const runs = await hooks.runs();
    expect(runs.map((r) => [r.event, r.payload['hook_event_name'], r.payload['trigger']])).toEqual([
      ['PreCompact', 'PreCompact', 'manual'],
      ['PostCompact', 'PostCompact', 'manual'],
    ]);
    // Codex's keys, in its order (no permission_mode on these two).
    const codex = (await codexFixture<{ payloads: Record<string, Record<string, unknown>> }>('events.json')).payloads;
    for (const r of runs) expect(Object.keys(r.payload)).toEqual(Object.keys(codex[r.event] ?? {}));
  });
});
