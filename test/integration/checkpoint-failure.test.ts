// A checkpoint that fails does not fail the tool call, but it is not swallowed either: the thread's
// clients get a `warning` naming the reason, and the turn is marked as not undoable, so the preview and
// the revert say so before anything else. Through the real app host and the mock Responses server; the
// checkpoint store cannot write its temporary files during the turn (its `tmp` is a file), and can after.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answerStep, commandStep, completedTurn, mockModelHostPerTest, ok } from '../support/in-process-host';

const fixture = mockModelHostPerTest({ 'a.txt': 'alpha\n' });

describe('a checkpoint that fails', () => {
  it('warns the thread, and the turn is not undoable by name of the reason', async () => {
    // Where blobs are staged is taken by a file: no content can be stored.
    const { home, ws, server } = fixture;
    mkdirSync(join(home.dir, 'checkpoints'), { recursive: true });
    writeFileSync(join(home.dir, 'checkpoints', 'tmp'), 'in the way\n');
    const { client } = await fixture.start();
    server.enqueueMany([commandStep('c1', 'echo beta > a.txt'), answerStep('changed')]);
    const { thread } = await ok<{ thread: { id: string } }>(client, 'thread/start', { cwd: ws.dir });
    const done = await completedTurn(client, thread.id, 'change a');
    const { turn } = done;
    // The command itself ran and the turn went on.
    expect(done.turn.status).toBe('completed');
    expect(await ws.read('a.txt')).toBe('beta\n');

    const warnings = client.received
      .filter((m) => 'method' in m && m.method === 'warning')
      .map((m) => (m as { params: { threadId: string; message: string } }).params);
    expect(warnings.length).toBeGreaterThan(0);
    for (const warning of warnings)
      expect(warning).toEqual({
        threadId: thread.id,
        message: expect.stringMatching(
          new RegExp(
            `^Checkpoint of the files in ${ws.dir} failed (before|after) a tool call \\(.*EEXIST.*\\): Undo of this turn cannot put back what the call changed\\.$`,
          ),
        ),
      });

    // The disk is fine again (say, space was freed): the undo works, and says first what it cannot do.
    rmSync(join(home.dir, 'checkpoints', 'tmp'));
    const preview = await ok<{ notUndoable?: { turnId: string; reason: string; message: string }[] }>(
      client,
      'weft/checkpoints/preview',
      { threadId: thread.id, beforeTurnId: turn.id },
    );
    expect(preview).toEqual({ files: [], notUndoable: expect.any(Array) });
    expect(preview.notUndoable).toEqual([
      {
        turnId: turn.id,
        reason: expect.stringContaining('EEXIST'),
        message: expect.stringMatching(
          /^The checkpoint of turn 1 of those undone failed \(.*EEXIST.*\): what that turn changed cannot all be put back\.$/,
        ),
      },
    ]);
    const reverted = await ok<{ weftFiles: { notes: string[] } }>(client, 'thread/revert', {
      threadId: thread.id,
      beforeTurnId: turn.id,
      weftRestoreFiles: true,
    });
    expect(reverted.weftFiles.notes[0]).toBe(preview.notUndoable?.[0]?.message);
  });
});
