// How Stop hook outputs end up, against what Codex 0.169's app server did with the same outputs
// (test/fixtures/codex-hooks-0.169/stop-outcomes.json, by `scripts/codex-tools.mjs capture-stop-hooks`): the
// same hook program (built from the fixture's modes), the same run statuses and entries — a block with a
// reason continues the turn, told as Codex's `hookPrompt` item between the run and the next answer, `continue: false` is a `stopped` run, and the outputs Codex counts as failures
// (exit 2 with no reason, stdout that is not Stop's JSON, a block without a reason) are failed runs.
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useHooksHarness } from '../support/hooks-harness';
import { answerTurn } from '../support/sse';

const FIXTURE = resolve(__dirname, '../fixtures/codex-hooks-0.169/stop-outcomes.json');
const h = useHooksHarness();

interface Captured {
  modes: Record<string, string>;
  notifications: Record<string, { method: string; params: Record<string, unknown> }[]>;
}

type Run = { status: string; entries: { kind: string; text: string }[] };

type Note = { method: string; params: Record<string, unknown> };

/** The order of a turn's Stop runs, answers and hook prompts; a hook prompt with its fragments (paths as `<hooks>`). */
function sequence(notes: readonly Note[], hooksFile: string): unknown[] {
  return notes.flatMap((n): unknown[] => {
    if (n.method === 'hook/completed') return [`hook/completed ${(n.params['run'] as Run).status}`];
    if (n.method !== 'item/started' && n.method !== 'item/completed') return [];
    const item = n.params['item'] as { type: string; id: string; fragments?: { text: string; hookRunId: string }[] };
    if (item.type === 'agentMessage') return [`${n.method} agentMessage`];
    if (item.type !== 'hookPrompt') return [];
    return [
      {
        [n.method]: {
          type: item.type,
          id: /^msg_[0-9a-f-]{36}$/.test(item.id) ? 'msg_<uuid>' : item.id,
          fragments: (item.fragments ?? []).map((f) => ({
            ...f,
            hookRunId: f.hookRunId.replace(hooksFile, '<hooks>'),
          })),
        },
      },
    ];
  });
}

/** The Stop runs of a turn: status and entries, in order. */
function stopRuns(notes: readonly { method: string; params: Record<string, unknown> }[]): Run[] {
  return notes
    .filter((n) => n.method === 'hook/completed')
    .map((n) => n.params['run'] as Run & { eventName: string })
    .filter((r) => r.eventName === 'stop')
    .map((r) => ({ status: r.status, entries: r.entries }));
}

describe('Stop hook outputs', () => {
  it(
    'end as Codex’s did: blocked, stopped, or failed for the outputs Codex refuses',
    { timeout: 120_000 },
    async () => {
      const captured = JSON.parse(await readFile(FIXTURE, 'utf8')) as Captured;
      const program = join(h.home.dir, '..', `${h.home.dir.split('/').pop() ?? 'home'}-stop-hook.cjs`);
      await writeFile(
        program,
        [
          'const mode = process.argv[2];',
          "let input = '';",
          "process.stdin.on('data', (d) => (input += d));",
          "process.stdin.on('end', () => {",
          '  if (JSON.parse(input).stop_hook_active) process.exit(0);',
          '  switch (mode) {',
          ...Object.entries(captured.modes).map(([m, body]) => `    case ${JSON.stringify(m)}: ${body}; break;`),
          '  }',
          '});',
        ].join('\n'),
      );
      const ours: Record<string, Run[]> = {};
      const theirs: Record<string, Run[]> = {};
      const ourOrder: Record<string, unknown[]> = {};
      const theirOrder: Record<string, unknown[]> = {};
      for (const mode of Object.keys(captured.modes)) {
        await writeFile(
          join(h.home.dir, 'hooks.json'),
          JSON.stringify({
            hooks: {
              Stop: [
                { hooks: [{ type: 'command', command: `'${process.execPath}' '${program}' ${mode}`, timeout: 30 }] },
              ],
            },
          }),
        );
        const c = await h.client();
        await h.trustAll(c);
        const blocks = (captured.notifications[mode] ?? []).some(
          (n) => n.method === 'item/completed' && (n.params['item'] as { type: string }).type === 'hookPrompt',
        );
        h.server.enqueueMany(blocks ? [answerTurn('ACK 1'), answerTurn('ACK 2')] : [answerTurn('ACK')]);
        const { thread } = await c.request<{ thread: { id: string } }>('thread/start', { cwd: h.ws.dir });
        await c.request('turn/start', {
          threadId: thread.id,
          input: [{ type: 'text', text: `say ${mode}`, text_elements: [] }],
        });
        const ended = await c.notification('turn/completed', (p) => p['threadId'] === thread.id);
        expect((ended['turn'] as { status: string }).status, mode).toBe('completed');
        const notes = c.received.flatMap((m) =>
          typeof m.method === 'string' && m.id === undefined
            ? [{ method: m.method, params: m.params as Record<string, unknown> }]
            : [],
        );
        ours[mode] = stopRuns(notes);
        theirs[mode] = stopRuns(captured.notifications[mode] ?? []);
        ourOrder[mode] = sequence(notes, join(h.home.dir, 'hooks.json'));
        theirOrder[mode] = sequence(captured.notifications[mode] ?? [], '/home/dev/.codex/hooks.json');
        await c.close();
      }
      expect(ours).toEqual(theirs);
      expect(ourOrder).toEqual(theirOrder);
    },
  );
});
