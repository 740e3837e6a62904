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
