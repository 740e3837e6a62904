// Undoing one hunk of a landed turn (weft/checkpoints/revertHunk), in the default approval mode where
// patches land at once: through the real app host and the real openai SDK against the mock Responses
// server. Only the hunk's lines go back; a hunk whose lines the user changed since is refused with the
// restore conflict (-32010) and nothing is written; undoing the whole turn afterwards still restores the
// file as it was before the turn.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startMockResponsesServer, type MockResponsesServer } from '../support/mock-responses-server';
import { startInProcessHost, type InProcessClient, type InProcessHost, ok } from '../support/in-process-host';
import { evAssistantMessage, evCompleted, evCreated, evFunctionCall } from '../support/sse';
import { waitFor } from '../support/wait';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../support/workspace';

const numbers = ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];
const numbers2 = numbers.map((n) => `${n} more`);
const BEFORE = [...numbers, ...numbers2].map((line) => `${line}\n`).join('');
const lines = (text: string): string[] => text.split('\n');
const edited = (text: string, edits: Record<number, string>): string =>
  lines(text)
    .map((line, index) => edits[index] ?? line)
    .join('\n');
/** What the turn leaves: line 2 and line 18 changed (two hunks, far enough apart). */
const AFTER = edited(BEFORE, { 1: 'TWO', 17: 'EIGHT MORE' });

let server: MockResponsesServer;
let ws: TempWorkspace;
let home: WeftHome;
let app: InProcessHost | null = null;

beforeEach(async () => {
  server = await startMockResponsesServer();
  ws = await makeTempWorkspace({ 'notes.txt': BEFORE });
  home = await makeWeftHome(
    `model = "mock-model"\nmodel_provider = "mock"\napproval_policy = "on-request"\nsandbox_mode = "workspace-write"\n[model_providers.mock]\nname = "Mock"\nbase_url = "${server.url}"\nenv_key = "MOCK_API_KEY"\nwire_api = "responses"\nrequest_max_retries = 0\n`,
  );
  app = await startInProcessHost({
    weftHome: home.dir,
    cwd: ws.dir,
    env: { ...process.env, WEFT_HOME: home.dir, MOCK_API_KEY: 'x' },
  });
});

afterEach(async () => {
  await app?.close();
  app = null;
  await server.close();
  await ws.cleanup();
  await home.cleanup();
});

function host(): InProcessHost {
  if (app === null) throw new Error('the app host is not running');
  return app;
}

interface Reply {
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

interface Hunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
}

/** The hunk headers of the turn's diff (the last turn/diff/updated of the turn), as numbers. */
function diffHunks(client: InProcessClient, turnId: string): Hunk[] {
  const updates = client
    .notifications('turn/diff/updated')
    .map((n) => n.params as { turnId: string; diff: string })
    .filter((p) => p.turnId === turnId);
  const diff = updates.at(-1)?.diff ?? '';
  return [...diff.matchAll(/^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/gm)].map((m) => ({
    oldStart: Number(m[1]),
    oldLines: m[2] === undefined ? 1 : Number(m[2]),
    newStart: Number(m[3]),
    newLines: m[4] === undefined ? 1 : Number(m[4]),
  }));
}

/** A thread with one landed turn (no approval asked: on-request writes inside the workspace at once). */
async function landedTurn(client: InProcessClient, cwd = ws.dir): Promise<{ threadId: string; turnId: string }> {
  server.enqueueMany([
    {
      kind: 'sse',
      events: [
        evCreated(),
        evFunctionCall('p1', 'exec_command', {
          cmd: "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: notes.txt\n@@\n one\n-two\n+TWO\n@@\n seven more\n-eight more\n+EIGHT MORE\n*** End Patch\nEOF",
        }),
        evCompleted(),
      ],
    },
    { kind: 'sse', events: [evCreated(), evAssistantMessage('edited'), evCompleted()] },
  ]);
  const { thread } = await ok<{ thread: { id: string } }>(client, 'thread/start', { cwd });
  const { turn } = await ok<{ turn: { id: string } }>(client, 'turn/start', {
    threadId: thread.id,
    input: [{ type: 'text', text: 'edit notes' }],
  });
  await waitFor(
    client.subscribe,
    (m) => 'method' in m && m.method === 'turn/completed' && JSON.stringify(m).includes(turn.id),
    { label: 'turn/completed' },
  );
  expect(client.notifications('item/fileChange/requestApproval')).toEqual([]);
  expect(readFileSync(join(cwd, 'notes.txt'), 'utf8')).toBe(AFTER);
  return { threadId: thread.id, turnId: turn.id };
}

describe('weft/checkpoints/revertHunk', () => {
  it('puts back just the lines of one hunk, found where they are after edits elsewhere', async () => {
    const client = host().client;
    const { threadId, turnId } = await landedTurn(client);
    const hunks = diffHunks(client, turnId);
    expect(hunks).toEqual([
      { oldStart: 1, oldLines: 5, newStart: 1, newLines: 5 },
      { oldStart: 15, oldLines: 6, newStart: 15, newLines: 6 },
    ]);

    const result = await ok(client, 'weft/checkpoints/revertHunk', {
      threadId,
      turnId,
      path: 'notes.txt',
      hunk: hunks[1],
    });
    expect(result).toEqual({ path: 'notes.txt', hunk: hunks[1] });
    expect(readFileSync(ws.path('notes.txt'), 'utf8')).toBe(edited(BEFORE, { 1: 'TWO' }));

    // The other hunk, after the user added a line above it: found where it now is.
    writeFileSync(ws.path('notes.txt'), `added by me\n${edited(BEFORE, { 1: 'TWO' })}`);
    await ok(client, 'weft/checkpoints/revertHunk', { threadId, turnId, path: 'notes.txt', hunk: hunks[0] });
    expect(readFileSync(ws.path('notes.txt'), 'utf8')).toBe(`added by me\n${BEFORE}`);

    // Undoing the whole turn now: the user's line is theirs, not the turn's, so it is a conflict.
    const refused = (await client.call('thread/revert', {
      threadId,
      beforeTurnId: turnId,
      weftRestoreFiles: true,
    })) as Reply;
    expect(refused.error?.code).toBe(-32010);
    expect(refused.error?.data).toEqual({ conflicts: ['notes.txt'] });
    expect(readFileSync(ws.path('notes.txt'), 'utf8')).toBe(`added by me\n${BEFORE}`);
  });

  it('undoes one hunk of what a command changed, numbered as the turn diff numbers it', async () => {
    const client = host().client;
    server.enqueueMany([
      {
        kind: 'sse',
        events: [
          evCreated(),
          evFunctionCall('c1', 'exec_command', {
            cmd: "sed -i -e 's/^two$/TWO/' -e 's/^eight more$/EIGHT MORE/' notes.txt",
          }),
          evCompleted(),
        ],
      },
      { kind: 'sse', events: [evCreated(), evAssistantMessage('edited by a command'), evCompleted()] },
    ]);
    const { thread } = await ok<{ thread: { id: string } }>(client, 'thread/start', { cwd: ws.dir });
    const { turn } = await ok<{ turn: { id: string } }>(client, 'turn/start', {
      threadId: thread.id,
      input: [{ type: 'text', text: 'edit notes with sed' }],
    });
    await waitFor(
      client.subscribe,
      (m) => 'method' in m && m.method === 'turn/completed' && JSON.stringify(m).includes(turn.id),
      { label: 'turn/completed' },
    );
    expect(readFileSync(ws.path('notes.txt'), 'utf8')).toBe(AFTER);
    const hunks = diffHunks(client, turn.id);
    expect(hunks).toEqual([
      { oldStart: 1, oldLines: 5, newStart: 1, newLines: 5 },
      { oldStart: 15, oldLines: 6, newStart: 15, newLines: 6 },
    ]);
    await ok(client, 'weft/checkpoints/revertHunk', {
      threadId: thread.id,
      turnId: turn.id,
      path: 'notes.txt',
      hunk: hunks[0],
    });
    expect(readFileSync(ws.path('notes.txt'), 'utf8')).toBe(edited(BEFORE, { 17: 'EIGHT MORE' }));
  });

  it('undoes the whole turn after its hunks were undone one by one', async () => {
    const client = host().client;
    const { threadId, turnId } = await landedTurn(client);
    const hunks = diffHunks(client, turnId);
    for (const hunk of hunks)
      await ok(client, 'weft/checkpoints/revertHunk', { threadId, turnId, path: 'notes.txt', hunk });
    expect(readFileSync(ws.path('notes.txt'), 'utf8')).toBe(BEFORE);
    const reverted = await ok<{ weftFiles: { restored: string[] } }>(client, 'thread/revert', {
      threadId,
      beforeTurnId: turnId,
      weftRestoreFiles: true,
    });
    expect(reverted.weftFiles.restored).toEqual([]);
    expect(readFileSync(ws.path('notes.txt'), 'utf8')).toBe(BEFORE);
  });

  it('undoes the whole turn after one hunk was undone', async () => {
    const client = host().client;
    const { threadId, turnId } = await landedTurn(client);
    const hunks = diffHunks(client, turnId);
    await ok(client, 'weft/checkpoints/revertHunk', { threadId, turnId, path: 'notes.txt', hunk: hunks[0] });
    expect(readFileSync(ws.path('notes.txt'), 'utf8')).toBe(edited(BEFORE, { 17: 'EIGHT MORE' }));
    const reverted = await ok<{ weftFiles: { restored: string[] } }>(client, 'thread/revert', {
      threadId,
      beforeTurnId: turnId,
      weftRestoreFiles: true,
    });
    expect(reverted.weftFiles.restored).toEqual(['notes.txt']);
    expect(readFileSync(ws.path('notes.txt'), 'utf8')).toBe(BEFORE);
  });

  it('refuses with -32010 when the user changed the hunk lines since, and writes nothing', async () => {
    const client = host().client;
    const { threadId, turnId } = await landedTurn(client);
    const hunks = diffHunks(client, turnId);
    const mine = edited(AFTER, { 17: 'EIGHT MORE, and mine' });
    writeFileSync(ws.path('notes.txt'), mine);

    const reply = (await client.call('weft/checkpoints/revertHunk', {
      threadId,
      turnId,
      path: 'notes.txt',
      hunk: hunks[1],
    })) as Reply;
    expect(reply.error?.code).toBe(-32010);
    expect(reply.error?.data).toEqual({ conflicts: ['notes.txt'] });
    expect(reply.error?.message).toContain('notes.txt');
    expect(readFileSync(ws.path('notes.txt'), 'utf8')).toBe(mine);

    // The hunk already undone is a conflict too (its lines are no longer the agent's).
    await ok(client, 'weft/checkpoints/revertHunk', { threadId, turnId, path: 'notes.txt', hunk: hunks[0] });
    const again = (await client.call('weft/checkpoints/revertHunk', {
      threadId,
      turnId,
      path: 'notes.txt',
      hunk: hunks[0],
    })) as Reply;
    expect(again.error?.code).toBe(-32010);
    expect(readFileSync(ws.path('notes.txt'), 'utf8')).toBe(edited(BEFORE, { 17: 'EIGHT MORE, and mine' }));
  });

  it('says plainly when the turn has no such hunk or did not change the file', async () => {
    const client = host().client;
    const { threadId, turnId } = await landedTurn(client);
    const noHunk = (await client.call('weft/checkpoints/revertHunk', {
      threadId,
      turnId,
      path: 'notes.txt',
      hunk: { oldStart: 3, oldLines: 1, newStart: 3, newLines: 1 },
    })) as Reply;
    expect(noHunk.error?.message).toMatch(/notes\.txt.*no hunk @@ -3 \+3 @@/);
    const noFile = (await client.call('weft/checkpoints/revertHunk', {
      threadId,
      turnId,
      path: 'other.txt',
      hunk: { oldStart: 1, oldLines: 1, newStart: 1, newLines: 1 },
    })) as Reply;
    expect(noFile.error?.message).toContain('did not change other.txt');
    expect(readFileSync(ws.path('notes.txt'), 'utf8')).toBe(AFTER);
  });

  it('takes the path as the turn diff names it, from the repository root above the project folder', async () => {
    const client = host().client;
    mkdirSync(ws.path('.git'));
    writeFileSync(ws.path('.git/HEAD'), 'ref: refs/heads/main\n');
    mkdirSync(ws.path('app'));
    writeFileSync(ws.path('app/notes.txt'), BEFORE);
    const { threadId, turnId } = await landedTurn(client, ws.path('app'));
    const diff = client.notifications('turn/diff/updated').at(-1)?.params as { diff: string };
    expect(diff.diff).toContain('+++ b/app/notes.txt');
    const hunks = diffHunks(client, turnId);
    await ok(client, 'weft/checkpoints/revertHunk', { threadId, turnId, path: 'app/notes.txt', hunk: hunks[1] });
    expect(readFileSync(ws.path('app/notes.txt'), 'utf8')).toBe(edited(BEFORE, { 1: 'TWO' }));
  });
});
