// What hooks change in a turn, through the real `weft` binary with real hook programs, against what Codex 0.169
// does for the same turn (test/fixtures/codex-hooks-0.169): the context hooks add reaches the model where Codex
// puts it; a Stop hook that blocks continues the turn with its reason, and cannot hold it forever.
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useHooksHarness } from '../support/hooks-harness';
import { answerTurn, evCompleted, evCreated, evFunctionCall } from '../support/sse';

const FIXTURES = resolve(__dirname, '../fixtures/codex-hooks-0.169');
const h = useHooksHarness();

async function codexFixture<T>(name: string): Promise<T> {
  return JSON.parse(await readFile(join(FIXTURES, name), 'utf8')) as T;
}

interface InputItem {
  type?: string;
  role?: string;
  content?: { text?: string }[];
}

const commandTurn = (cmd: string) => ({
  kind: 'sse' as const,
  events: [evCreated(), evFunctionCall('call_1', 'exec_command', { cmd }), evCompleted()],
});

function inputOf(body: unknown): InputItem[] {
  return (body as { input?: InputItem[] }).input ?? [];
}

/** A request's input from the first item that mentions `from` on, each item told by its kind and text. */
function tail(input: InputItem[], from: string): string[] {
  const label = (i: InputItem): string =>
    i.type === 'message' ? `${i.role ?? '?'}: ${(i.content ?? []).map((c) => c.text ?? '').join('')}` : (i.type ?? '?');
  const start = input.findIndex((i) => label(i).includes(from));
  return input.slice(Math.max(start, 0)).map(label);
}

describe('context from hooks', () => {
  it('gives the model the additionalContext of SessionStart, UserPromptSubmit, PreToolUse and PostToolUse where Codex puts it', async () => {
    await h.writeHooks(
      ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse'].map((event) => ({ event, mode: 'ctx' })),
    );
    h.server.enqueueMany([commandTurn('echo ctx-marker'), answerTurn('DONE: ctx-marker')]);
    const run = await h.weft(['exec', '--dangerously-bypass-hook-trust', 'RUN echo ctx-marker']);
    expect(run.code).toBe(0);
    const codex = await codexFixture<{ modelInputs: InputItem[][] }>('context.json');
    const [theirFirst, theirSecond] = codex.modelInputs.map((i) => tail(i, 'CTX from SessionStart'));
    const [ourFirst, ourSecond] = h.server.requests.map((r) => tail(inputOf(r.body), 'CTX from SessionStart'));
    expect(theirFirst).toEqual([
      'developer: CTX from SessionStart',
      'user: RUN echo ctx-marker',
      'developer: CTX from UserPromptSubmit',
    ]);
    expect(ourFirst).toEqual(theirFirst);
    expect(theirSecond).toEqual([
      ...(theirFirst ?? []),
      'function_call',
      'developer: CTX from PreToolUse',
      'developer: CTX from PostToolUse',
      'function_call_output',
    ]);
    expect(ourSecond).toEqual(theirSecond);
  });
});

describe('a Stop hook that blocks', () => {
  it('continues the turn with its reason as Codex does, then lets it end once stop_hook_active is set', async () => {
    await h.writeHooks([{ event: 'Stop', mode: 'stop-once' }]);
    h.server.enqueueMany([answerTurn('ACK: say hello'), answerTurn('ACK: ran the tests')]);
    const run = await h.weft(['exec', '--dangerously-bypass-hook-trust', 'say hello']);
    expect(run.code).toBe(0);
    const codex = await codexFixture<{
      once: { modelInputs: InputItem[][]; payloads: Record<string, unknown>[]; hookLines: string[] };
    }>('stop-block.json');
    const hookPrompt = (runId: string) =>
      `user: <hook_prompt hook_run_id="${runId}">STOPHOOK: run the tests first</hook_prompt>`;
    const theirs = codex.once.modelInputs.map((i) => tail(i, 'say hello'));
    expect(theirs).toEqual([
      ['user: say hello'],
      ['user: say hello', 'assistant: ACK: say hello', hookPrompt('stop:0:/home/dev/.codex/hooks.json')],
    ]);
    const ours = h.server.requests.map((r) => tail(inputOf(r.body), 'say hello'));
    expect(ours).toEqual([
      ['user: say hello'],
      ['user: say hello', 'assistant: ACK: say hello', hookPrompt(`stop:0:${join(h.home.dir, 'hooks.json')}`)],
    ]);
    const stops = (await h.hooks.runs()).map((r) => r.payload);
    expect(stops.map((p) => [p['stop_hook_active'], p['last_assistant_message']])).toEqual([
      [false, 'ACK: say hello'],
      [true, 'ACK: ran the tests'],
    ]);
    expect(codex.once.payloads.map((p) => p['stop_hook_active'])).toEqual([false, true]);
    expect(hookLines(run.stderr)).toEqual(codex.once.hookLines);
    expect(run.stdout.trim()).toBe('ACK: ran the tests');
  });

  it('cannot hold the turn forever: after 8 continuations the turn ends, and the person is told why', async () => {
    await h.writeHooks([{ event: 'Stop', mode: 'stop-always' }]);
    for (let i = 0; i < 9; i++) h.server.enqueue(answerTurn(`ACK: ${i}`));
    const run = await h.weft(['exec', '--dangerously-bypass-hook-trust', 'say hello again']);
    expect(run.code).toBe(0);
    // Codex 0.169 sets no bound: its turn went on until it was killed.
    const codex = await codexFixture<{ always: { requests: number; stopHookActive: boolean[] } }>('stop-block.json');
    expect(codex.always.requests).toBeGreaterThan(50);
    expect(h.server.requests).toHaveLength(9);
    const stops = (await h.hooks.runs()).map((r) => r.payload['stop_hook_active']);
    expect(stops).toEqual([false, ...Array<boolean>(8).fill(true)]);
    expect(run.stderr).toContain(
      'Stop hooks blocked the end of this turn 8 times in a row; the turn ends here (their last reason: STOPHOOK: not yet)',
    );
    expect(run.stdout.trim()).toBe('ACK: 8');
  });
});

function hookLines(stderr: string): string[] {
  return stderr.split('\n').filter((l) => l.startsWith('hook: '));
}
