// Undo's preview, its revert and a hunk's revert find the turns to undo in the thread's rollout. Read in one
// go (`ThreadStore.read`), a big thread held the host: 50 ms of the main thread for the preview of a turn
// that changed 3,000 files (the checkpoint-stall bench), every other thread and window waiting. They read it
// as `thread/read` does (`readAsync`, the event loop given back between slices). Through the real app host
// and the mock Responses server.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ThreadStore } from '../../src-main/store/thread-store';
import { answerStep, commandStep, completedTurn, mockModelHostPerTest, ok } from '../support/in-process-host';

const fixture = mockModelHostPerTest({ 'a.txt': 'alpha\nbeta\n' });

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the turns an undo reads', () => {
  it('are read from the rollout without holding the event loop, for the preview, a hunk and the revert', async () => {
    const { client } = await fixture.start();
    const { server, ws } = fixture;
    server.enqueueMany([commandStep('c1', 'echo gamma >> a.txt'), answerStep('changed')]);
    const { thread } = await ok<{ thread: { id: string } }>(client, 'thread/start', { cwd: ws.dir });
    const { turn } = await completedTurn(client, thread.id, 'change a');

    const wholeReads = vi.spyOn(ThreadStore.prototype, 'read');
    const pacedReads = vi.spyOn(ThreadStore.prototype, 'readAsync');
    const preview = await ok<{ files: { path: string }[] }>(client, 'weft/checkpoints/preview', {
      threadId: thread.id,
      beforeTurnId: turn.id,
    });
    expect(preview.files.map((f) => f.path)).toEqual(['a.txt']);
    // A hunk of a turn the thread does not have: refused once the turns are read.
    const hunk = await client.call('weft/checkpoints/revertHunk', {
      threadId: thread.id,
      turnId: 'no-such-turn',
      path: 'a.txt',
      hunk: { oldStart: 1, oldLines: 2, newStart: 1, newLines: 3 },
    });
    expect(hunk.error?.message).toContain('has no turn no-such-turn');
    await ok(client, 'thread/revert', { threadId: thread.id, beforeTurnId: turn.id, weftRestoreFiles: true });
    expect(await ws.read('a.txt')).toBe('alpha\nbeta\n');

    const withTurns = (calls: unknown[][]): number =>
      calls.filter((args) => (args[1] as { includeTurns?: boolean } | undefined)?.includeTurns === true).length;
    expect(withTurns(wholeReads.mock.calls)).toBe(0);
    expect(withTurns(pacedReads.mock.calls)).toBeGreaterThanOrEqual(3);
  });
});
