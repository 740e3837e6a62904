// Hook runs are part of a thread's record: each completed run is written to the rollout in the order of the
// turn's items, so a thread read again (still loaded, or by another app server after a restart) brings its
// turns' hook runs, each placed after the item it ran after, exactly as the live notifications placed them.
// A Stop hook's continuation (`hookPrompt`) is kept in Codex 0.169's own rollout form
// (test/fixtures/codex-hooks-0.169/stop-prompt-rollout.json) and comes back with the turn's items.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useHooksHarness } from '../support/hooks-harness';
import type { RpcMessage } from '../support/rpc-client';
import { answerTurn, evCompleted, evCreated, evFunctionCall } from '../support/sse';

const h = useHooksHarness();

interface Run {
  id: string;
  status: string;
}

/** Each `hook/completed` run with the id of the item started last before its `hook/started` (null: none). */
function livePlaces(received: readonly RpcMessage[]): { run: Run; afterItemId: string | null }[] {
  let last: string | null = null;
  const startedAfter = new Map<string, string | null>();
  const out: { run: Run; afterItemId: string | null }[] = [];
  for (const m of received) {
    const params = (m.params ?? {}) as { item?: { id: string }; run?: Run };
    if (m.method === 'turn/started') last = null;
    if (m.method === 'item/started' && params.item) last = params.item.id;
    if (m.method === 'hook/started' && params.run) startedAfter.set(params.run.id, last);
    if (m.method === 'hook/completed' && params.run)
      out.push({ run: params.run, afterItemId: startedAfter.get(params.run.id) ?? null });
  }
  return out;
}

describe('hook runs in the rollout', () => {
  it('a thread read again brings each turn’s hook runs, placed where they ran', { timeout: 60_000 }, async () => {
    await h.writeHooks([
      { event: 'UserPromptSubmit' },
      { event: 'PreToolUse', matcher: 'Bash' },
      { event: 'PostToolUse', matcher: 'Bash' },
      { event: 'Stop' },
    ]);
    const live = await h.client();
    await h.trustAll(live);
    h.server.enqueueMany([
      {
        kind: 'sse',
        events: [evCreated(), evFunctionCall('call_1', 'exec_command', { cmd: 'echo hi' }), evCompleted()],
      },
      answerTurn('DONE: hi'),
    ]);
    const { thread } = await live.request<{ thread: { id: string } }>('thread/start', { cwd: h.ws.dir });
    await live.request('turn/start', {
      threadId: thread.id,
      input: [{ type: 'text', text: 'RUN echo hi', text_elements: [] }],
    });
    await live.notification('turn/completed', (p) => p['threadId'] === thread.id);
    const places = livePlaces(live.received);
    expect(places.map((p) => p.run.id.split(':')[0])).toEqual([
      'user-prompt-submit',
      'pre-tool-use',
      'post-tool-use',
      'stop',
    ]);
    // The prompt hook ran before any item; the tool hooks around the command; Stop after the answer.
    const items = live.notifications('item/started').map((p) => p['item'] as { id: string; type: string });
    const command = items.find((i) => i.type === 'commandExecution');
    const answer = items.filter((i) => i.type === 'agentMessage').at(-1);
    expect(places.map((p) => p.afterItemId)).toEqual([null, expect.any(String), command?.id, answer?.id]);

    // The thread still loaded: the server's own record of the turn has them too (a page reloaded).
    const loaded = await live.request<{ thread: { turns: { weftHookRuns?: unknown }[] } }>('thread/read', {
      threadId: thread.id,
      includeTurns: true,
    });
    expect(loaded.thread.turns[0]?.weftHookRuns).toEqual(places);
    // Another app server (the first one gone, as after a restart) reads and resumes the thread.
    await live.close();
    const again = await h.client();
    const read = await again.request<{ thread: { turns: { weftHookRuns?: unknown }[] } }>('thread/read', {
      threadId: thread.id,
      includeTurns: true,
    });
    expect(read.thread.turns[0]?.weftHookRuns).toEqual(places);
    const resumed = await again.request<{ thread: { turns: { weftHookRuns?: unknown }[] } }>('thread/resume', {
      threadId: thread.id,
    });
    expect(resumed.thread.turns[0]?.weftHookRuns).toEqual(places);
  });

  it('keeps a Stop hook’s hookPrompt as Codex 0.169 does, and a thread read or resumed again gives it back', async () => {
    await h.writeHooks([{ event: 'Stop', mode: 'stop-once' }]);
    const live = await h.client();
    await h.trustAll(live);
    h.server.enqueueMany([answerTurn('ACK 1'), answerTurn('ACK 2')]);
    const { thread } = await live.request<{ thread: { id: string; path: string } }>('thread/start', { cwd: h.ws.dir });
    await live.request('turn/start', {
      threadId: thread.id,
      input: [{ type: 'text', text: 'say hello', text_elements: [] }],
    });
    await live.notification('turn/completed', (p) => p['threadId'] === thread.id);
    const items = live.notifications('item/completed').map((p) => p['item'] as { type: string; id: string });
    expect(items.map((i) => i.type)).toEqual(['userMessage', 'agentMessage', 'hookPrompt', 'agentMessage']);
    const prompt = items[2];

    // The rollout line, in the form Codex wrote for the same moment.
    type Line = { type: string; payload: { type?: string; item?: { type: string } } };
    const codex = JSON.parse(
      await readFile(resolve(__dirname, '../fixtures/codex-hooks-0.169/stop-prompt-rollout.json'), 'utf8'),
    ) as { rollout: Line[] };
    const isPrompt = (l: Line) => l.payload.type === 'item_completed' && l.payload.item?.type === 'HookPrompt';
    const theirs = codex.rollout.find(isPrompt);
    const ours = (await readFile(thread.path, 'utf8'))
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Line)
      .find(isPrompt);
    const shape = (l: Line | undefined) => ({
      type: l?.type,
      payloadKeys: Object.keys(l?.payload ?? {}).filter((k) => !k.endsWith('_at_ms')),
      item: { ...l?.payload.item, id: '<id>', fragments: '<fragments>' },
    });
    expect(shape(ours)).toEqual(shape(theirs));
    expect(ours?.payload.item).toEqual({
      type: 'HookPrompt',
      id: prompt?.id,
      fragments: (prompt as { fragments?: unknown })?.fragments,
    });

    // Another app server reads and resumes the thread: the same items, the hookPrompt among them.
    await live.close();
    const again = await h.client();
    type Read = { thread: { turns: { items: unknown[] }[] } };
    const read = await again.request<Read>('thread/read', { threadId: thread.id, includeTurns: true });
    expect(read.thread.turns[0]?.items).toEqual(items);
    const resumed = await again.request<Read>('thread/resume', { threadId: thread.id });
    expect(resumed.thread.turns[0]?.items).toEqual(items);
  });
});
