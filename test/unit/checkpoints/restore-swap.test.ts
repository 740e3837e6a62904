// A folder a restore writes into is moved or swapped for a symlink right after its last step (a hook
// does it at that exact point, as a background process could): what the result calls restored is what
// the workspace holds at the end, found through the folders the restore wrote into, and the restore's
// record (what Redo takes back) holds only what the restore itself did.
import { renameSync, symlinkSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempWorkspace, type TempWorkspace } from '../../support/workspace';
import { makeFixture, picture, THREAD, type Fixture } from './helpers';

const FILES = { 'a.txt': 'a\n', 'd/f0': 'zero\n', 'd/f1': 'one\n' };
const FILE = expect.stringMatching(/^file:644:/);

let fx: Fixture | null = null;
let outside: TempWorkspace | null = null;

afterEach(async () => {
  await fx?.cleanup();
  fx = null;
  await outside?.cleanup();
  outside = null;
});

/** Calls `move` once the restore's last step is done. */
function afterLastStep(move: () => void): { afterStep: (index: number, total: number) => void } {
  return {
    afterStep: (index, total) => {
      if (index === total - 1) move();
    },
  };
}

const movedAway = (reason: string, ...paths: string[]): { path: string; reason: string }[] =>
  paths.map((path) => ({ path, reason }));
const D_REPLACED =
  'its folder d was moved or replaced while it was being restored (is a command still moving files there?)';

describe('a folder moved while a restore writes into it', () => {
  it('replaced by a symlink to a folder outside holding the same files: its paths are not called restored', async () => {
    const ws = (fx = await makeFixture(FILES));
    outside = await makeTempWorkspace({ f0: 'zero\n', f1: 'one\n' });
    const out = outside.dir;
    await ws.call('turn-1', 'rm a.txt d/f0 d/f1');
    const outcome = await ws.service.revert({
      threadId: THREAD,
      root: ws.ws.dir,
      turnIds: ['turn-1'],
      force: true,
      hooks: afterLastStep(() => {
        renameSync(ws.ws.path('d'), ws.ws.path('moved'));
        symlinkSync(out, ws.ws.path('d'));
      }),
    });
    // d/f0 and d/f1 now name files outside the workspace: they are not the restore's to claim.
    expect({
      restored: outcome.restored,
      notRestored: outcome.notRestored,
      recorded: outcome.record?.changes.map((change) => change.path),
    }).toEqual({
      restored: ['a.txt'],
      notRestored: movedAway(D_REPLACED, 'd/f0', 'd/f1'),
      recorded: ['a.txt'],
    });
    // The restore wrote into the folder it held, which is still in the workspace; nothing went outside.
    expect(picture(ws.ws.dir)).toEqual({
      'a.txt': FILE,
      d: `link:${out}`,
      moved: 'dir:755',
      'moved/f0': FILE,
      'moved/f1': FILE,
    });
    expect(picture(out)).toEqual({ f0: FILE, f1: FILE });
  });

  it('exchanged with a symlink: the record holds only the restored paths, and Redo leaves the folders alone', async () => {
    const ws = (fx = await makeFixture(FILES));
    outside = await makeTempWorkspace({ 'keep/mine.txt': 'not the workspace\n' });
    const out = outside.dir;
    symlinkSync(out, ws.ws.path('link'));
    await ws.call('turn-1', 'rm a.txt d/f0 d/f1');
    const exchange = (): void => {
      renameSync(ws.ws.path('d'), ws.ws.path('swap'));
      renameSync(ws.ws.path('link'), ws.ws.path('d'));
      renameSync(ws.ws.path('swap'), ws.ws.path('link'));
    };
    const undone = await ws.service.revert({
      threadId: THREAD,
      root: ws.ws.dir,
      turnIds: ['turn-1'],
      force: true,
      hooks: afterLastStep(exchange),
    });
    expect({
      restored: undone.restored,
      notRestored: undone.notRestored,
      recorded: undone.record?.changes.map((change) => change.path),
    }).toEqual({
      restored: ['a.txt'],
      notRestored: movedAway(D_REPLACED, 'd/f0', 'd/f1'),
      recorded: ['a.txt'],
    });
    const exchanged = {
      d: `link:${out}`,
      link: 'dir:755',
      'link/f0': FILE,
      'link/f1': FILE,
    };
    expect(picture(ws.ws.dir)).toEqual({ 'a.txt': FILE, ...exchanged });
    // Redo takes back what the undo did (a.txt), not what the other process did to d and link.
    const redone = await ws.service.redo({ threadId: THREAD, root: ws.ws.dir, force: true });
    expect({ restored: redone.restored, notRestored: redone.notRestored }).toEqual({
      restored: ['a.txt'],
      notRestored: [],
    });
    expect(picture(ws.ws.dir)).toEqual(exchanged);
    expect(picture(out)).toEqual({ keep: 'dir:755', 'keep/mine.txt': FILE });
  });
});
