// PermissionRequest, Interrupt and SessionEnd hooks fire, with the payloads Codex 0.169 writes for the same
// moments (test/fixtures/codex-hooks-0.169/events.json: an escalated command and a patch asked for approval, a turn interrupted while a command runs, the end of `codex exec`): the same
// keys in the same order, the same types, and the same values where they do not differ by nature.
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { shapeOf } from '../support/codex-exec-fixtures';
import { useHooksHarness } from '../support/hooks-harness';
import { answerTurn, evCompleted, evCreated, evFunctionCall } from '../support/sse';

const FIXTURES = resolve(__dirname, '../fixtures/codex-hooks-0.169');
const h = useHooksHarness('approval_policy = "on-request"\nsandbox_mode = "workspace-write"\n');

type Payload = Record<string, unknown>;

async function codexPayloads(): Promise<Record<string, Payload>> {
  const events = JSON.parse(await readFile(join(FIXTURES, 'events.json'), 'utf8')) as {
    payloads: Record<string, Payload>;
  };
  return events.payloads;
}

/** Our payload against Codex's: keys in order, types, and `same` values equal. */
function expectLikeCodex(ours: Payload | undefined, theirs: Payload | undefined, same: string[]): void {
  expect(ours, 'no payload of ours').toBeDefined();
  expect(Object.keys(ours ?? {})).toEqual(Object.keys(theirs ?? {}));
  expect(shapeOf(ours)).toEqual(shapeOf(theirs));
  for (const key of same) expect(ours?.[key], key).toEqual(theirs?.[key]);
}

const PATCH = '*** Begin Patch\n*** Add File: inside.txt\n+hello\n*** End Patch';

describe('PermissionRequest, Interrupt and SessionEnd hooks', () => {
  it(
    'PermissionRequest runs before a command or a patch is asked for, with Codex’s payload',
    { timeout: 60_000 },
    async () => {
      await h.writeHooks([{ event: 'PermissionRequest' }]);
      const c = await h.client();
      await h.trustAll(c);
      const asked: string[] = [];
      c.onServerRequest = (method) => {
        asked.push(method);
        return { decision: 'decline' };
      };
      h.server.enqueueMany([
        {
          kind: 'sse',
          events: [
            evCreated(),
            evFunctionCall('call_1', 'exec_command', {
              cmd: 'touch perm-marker',
              sandbox_permissions: 'require_escalated',
              justification: 'the fixture asks',
            }),
            evCompleted(),
          ],
        },
        answerTurn('DONE: declined'),
        // The mock model's apply_patch is a function tool (`{input}`).
        {
          kind: 'sse',
          events: [evCreated(), evFunctionCall('call_2', 'apply_patch', { input: PATCH }), evCompleted()],
        },
        answerTurn('DONE: declined too'),
      ]);
      // The command asks as in Codex (on-request, escalated). Weft refuses a patch outside the workspace where
      // Codex asks; under `untrusted` every patch asks.
      for (const [text, approvalPolicy] of [
        ['RUNESC touch perm-marker', 'on-request'],
        ['PATCH inside.txt hello', 'untrusted'],
      ]) {
        const { thread } = await c.request<{ thread: { id: string } }>('thread/start', {
          cwd: h.ws.dir,
          approvalPolicy,
        });
        const mark = c.received.length;
        await c.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text, text_elements: [] }] });
        await c.notification('turn/completed', (p) => p['threadId'] === thread.id, mark);
      }
      expect(asked).toEqual(['item/commandExecution/requestApproval', 'item/fileChange/requestApproval']);
      const runs = (await h.hooks.runs()).map((r) => r.payload);
      const codex = await codexPayloads();
      expectLikeCodex(runs[0], codex['PermissionRequest Bash'], [
        'hook_event_name',
        'permission_mode',
        'tool_name',
        'tool_input',
      ]);
      expectLikeCodex(runs[1], codex['PermissionRequest apply_patch'], [
        'hook_event_name',
        'permission_mode',
        'tool_name',
      ]);
      expect(runs[1]?.['tool_input']).toEqual({ command: PATCH });
    },
  );

  it('Interrupt runs when a turn is interrupted, with Codex’s payload', { timeout: 60_000 }, async () => {
    await h.writeHooks([{ event: 'Interrupt' }]);
    const c = await h.client();
    await h.trustAll(c);
    h.server.enqueue({
      kind: 'sse',
      events: [evCreated(), evFunctionCall('call_1', 'exec_command', { cmd: 'sleep 30' }), evCompleted()],
    });
    const { thread } = await c.request<{ thread: { id: string } }>('thread/start', { cwd: h.ws.dir });
    const { turn } = await c.request<{ turn: { id: string } }>('turn/start', {
      threadId: thread.id,
      input: [{ type: 'text', text: 'RUN sleep 30', text_elements: [] }],
    });
    await c.notification('item/started', (p) => (p['item'] as { type: string }).type === 'commandExecution');
    await c.request('turn/interrupt', { threadId: thread.id, turnId: turn.id });
    const ended = await c.notification('turn/completed', (p) => p['threadId'] === thread.id);
    expect((ended['turn'] as { status: string }).status).toBe('interrupted');
    // It runs once the turn has ended.
    await c.notification('hook/completed', (p) => (p['run'] as { eventName: string }).eventName === 'interrupt');
    const runs = await h.hooks.runs();
    expect(runs.map((r) => r.event)).toEqual(['Interrupt']);
    expectLikeCodex(runs[0]?.payload, (await codexPayloads())['Interrupt'], ['hook_event_name', 'permission_mode']);
    expect(runs[0]?.payload['turn_id']).toBe(turn.id);
  });

  it('SessionEnd runs as `weft exec` ends, with Codex’s payload', async () => {
    await h.writeHooks([{ event: 'SessionStart' }, { event: 'SessionEnd' }]);
    h.server.enqueue(answerTurn('ACK: say bye'));
    const run = await h.weft(['exec', '--dangerously-bypass-hook-trust', 'say bye']);
    expect(run.code).toBe(0);
    const runs = await h.hooks.runs();
    expect(runs.map((r) => r.event)).toEqual(['SessionStart', 'SessionEnd']);
    expectLikeCodex(runs[1]?.payload, (await codexPayloads())['SessionEnd'], ['hook_event_name', 'reason']);
    expect(runs[1]?.payload['session_id']).toBe(runs[0]?.payload['session_id']);
  });
});
