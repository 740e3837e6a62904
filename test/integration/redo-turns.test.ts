// Redo of an undo brings back the turns with their files: through the real app host and the real openai
// SDK against the mock Responses server. The turns come back in the thread (read, after a restart, in the
// model's history of the next turn) and can be undone again; once the conversation went on after the undo,
// Redo is refused and nothing is written.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { mockModelHostPerTest, ok, type InProcessClient } from '../support/in-process-host';
import { evAssistantMessage, evCompleted, evCreated, evFunctionCall } from '../support/sse';
import { waitFor } from '../support/wait';
import { picture } from '../unit/checkpoints/helpers';

const fixture = mockModelHostPerTest({ 'notes.txt': 'one\ntwo\n' });

/** The host started (again, after a first start: a restart on the same home); its client. */
async function start(): Promise<InProcessClient> {
  return (await fixture.start()).client;
}

const answer = (text: string) => ({
  kind: 'sse' as const,
  events: [evCreated(), evAssistantMessage(text), evCompleted()],
});
const patch = (id: string, body: string) => ({
  kind: 'sse' as const,
  events: [
    evCreated(),
    evFunctionCall(id, 'exec_command', { cmd: `apply_patch <<'EOF'\n${body}\nEOF` }),
    evCompleted(),
  ],
});

async function turn(client: InProcessClient, threadId: string, text: string): Promise<string> {
  const { turn: started } = await ok<{ turn: { id: string } }>(client, 'turn/start', {
    threadId,
    input: [{ type: 'text', text }],
  });
  await waitFor(
    client.subscribe,
    (m) => 'method' in m && m.method === 'turn/completed' && JSON.stringify(m).includes(started.id),
    { label: 'turn/completed' },
  );
  return started.id;
}

interface ReadThread {
  thread: { turns: { id: string; items: { type: string; text?: string }[] }[] };
}

const agentTexts = (read: ReadThread): string[] =>
  read.thread.turns.flatMap((t) => t.items.filter((i) => i.type === 'agentMessage').map((i) => i.text ?? ''));

/** A thread of two turns: the first adds a file, the second edits notes.txt with a patch. */
async function twoTurns(client: InProcessClient): Promise<{ threadId: string; first: string; second: string }> {
  fixture.server.enqueueMany([
    patch('p1', '*** Begin Patch\n*** Add File: added.txt\n+first turn\n*** End Patch'),
    answer('first done'),
    patch('p2', '*** Begin Patch\n*** Update File: notes.txt\n@@\n-two\n+TWO\n*** End Patch'),
    answer('second done'),
  ]);
  const { thread } = await ok<{ thread: { id: string } }>(client, 'thread/start', { cwd: fixture.ws.dir });
  const first = await turn(client, thread.id, 'add a file');
  const second = await turn(client, thread.id, 'edit notes');
  return { threadId: thread.id, first, second };
}

describe('Redo of an undo with its files', () => {
  it('brings back the turn with the files: read, after a restart, in the next request, and undoable again', async () => {
    let client = await start();
    const { threadId, first, second } = await twoTurns(client);
    const afterBoth = picture(fixture.ws.dir);
    await ok(client, 'thread/revert', { threadId, beforeTurnId: second, weftRestoreFiles: true });
    expect(readFileSync(fixture.ws.path('notes.txt'), 'utf8')).toBe('one\ntwo\n');

    const redone = await ok<{ weftFiles: { restored: string[] }; weftTurnIds: string[] }>(
      client,
      'weft/checkpoints/redo',
      { threadId },
    );
    expect({ restored: redone.weftFiles.restored, turns: redone.weftTurnIds }).toEqual({
      restored: ['notes.txt'],
      turns: [second],
    });
    expect(picture(fixture.ws.dir)).toEqual(afterBoth);
    expect(client.notifications('weft/thread/turnsRestored').map((n) => n.params)).toEqual([
      { threadId, turnIds: [second] },
    ]);
    const read = await ok<ReadThread>(client, 'thread/read', { threadId, includeTurns: true });
    expect({ turns: read.thread.turns.map((t) => t.id), texts: agentTexts(read) }).toEqual({
      turns: [first, second],
      texts: ['first done', 'second done'],
    });

    // The model's history has the turn again: the next request carries what it said.
    fixture.server.enqueueMany([answer('third done')]);
    await turn(client, threadId, 'go on');
    const lastBody = JSON.stringify(fixture.server.requests[fixture.server.requests.length - 1]?.body);
    expect(lastBody).toContain('second done');

    // Saved: a new host reads the three turns.
    client = await start();
    const reread = await ok<ReadThread>(client, 'thread/read', { threadId, includeTurns: true });
    expect(agentTexts(reread)).toEqual(['first done', 'second done', 'third done']);

    // And the brought-back turn can be undone again, with its files.
    await ok(client, 'thread/resume', { threadId });
    await ok(client, 'thread/revert', { threadId, beforeTurnId: second, weftRestoreFiles: true });
    expect(readFileSync(fixture.ws.path('notes.txt'), 'utf8')).toBe('one\ntwo\n');
    const last = await ok<ReadThread>(client, 'thread/read', { threadId, includeTurns: true });
    expect(last.thread.turns.map((t) => t.id)).toEqual([first]);
  });

  it('is refused once the conversation went on after the undo, and writes nothing', async () => {
    const client = await start();
    const { threadId, second } = await twoTurns(client);
    await ok(client, 'thread/revert', { threadId, beforeTurnId: second, weftRestoreFiles: true });
    fixture.server.enqueueMany([answer('a new direction')]);
    await turn(client, threadId, 'something else');
    const before = picture(fixture.ws.dir);

    const refused = await client.call('weft/checkpoints/redo', { threadId });
    expect(refused.error).toEqual({
      code: -32600,
      message:
        'The conversation went on after the undo: its turns cannot come back, so its files are not redone either.',
    });
    expect(picture(fixture.ws.dir)).toEqual(before);
    const read = await ok<ReadThread>(client, 'thread/read', { threadId, includeTurns: true });
    expect(agentTexts(read)).toEqual(['first done', 'a new direction']);
  });
});
