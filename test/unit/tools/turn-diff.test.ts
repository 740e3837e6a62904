import { execFileSync } from 'node:child_process';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { blobOid, TurnDiffTracker } from '../../../src-main/tools/turn-diff';
import { makeTempWorkspace, type TempWorkspace } from '../../support/workspace';

let ws: TempWorkspace;
beforeEach(async () => {
  ws = await makeTempWorkspace({ 'a.txt': 'one\ntwo\nthree\n', 'old/name.txt': 'keep\n', 'gone.txt': 'bye\n' });
  await mkdir(ws.path('.git'));
  await writeFile(ws.path('.git/HEAD'), 'ref: refs/heads/main\n');
});
afterEach(() => ws.cleanup());

describe('TurnDiffTracker', () => {
  it('diffs every touched file against its first-touch baseline, following moves', async () => {
    const t = new TurnDiffTracker(ws.dir);
    await t.beforeChange([
      { path: ws.path('a.txt') },
      { path: ws.path('new.txt') },
      { path: ws.path('gone.txt') },
      { path: ws.path('old/name.txt'), movePath: ws.path('moved.txt') },
    ]);
    await writeFile(ws.path('a.txt'), 'one\nTWO\nthree\n');
    await writeFile(ws.path('new.txt'), 'fresh\n');
    await rm(ws.path('gone.txt'));
    await rename(ws.path('old/name.txt'), ws.path('moved.txt'));
    t.afterChange([
      { path: ws.path('a.txt'), kind: 'update' },
      { path: ws.path('new.txt'), kind: 'add' },
      { path: ws.path('gone.txt'), kind: 'delete' },
      { path: ws.path('old/name.txt'), kind: 'update', movePath: ws.path('moved.txt') },
    ]);
    // A second change to the same file keeps the first baseline.
    await t.beforeChange([{ path: ws.path('a.txt') }]);
    await writeFile(ws.path('a.txt'), 'one\nTWO\nthree\nfour\n');
    t.afterChange([{ path: ws.path('a.txt'), kind: 'update' }]);

    const oid = (s: string) => blobOid(Buffer.from(s));
    expect((await t.diff()).diff).toBe(
      [
        'diff --git a/a.txt b/a.txt',
        `index ${oid('one\ntwo\nthree\n')}..${oid('one\nTWO\nthree\nfour\n')} 100644`,
        '--- a/a.txt',
        '+++ b/a.txt',
        '@@ -1,3 +1,4 @@',
        ' one',
        '-two',
        '+TWO',
        ' three',
        '+four',
        'diff --git a/gone.txt b/gone.txt',
        'deleted file mode 100644',
        `index ${oid('bye\n')}..0000000000000000000000000000000000000000`,
        '--- a/gone.txt',
        '+++ /dev/null',
        '@@ -1 +0,0 @@',
        '-bye',
        'diff --git a/new.txt b/new.txt',
        'new file mode 100644',
        `index 0000000000000000000000000000000000000000..${oid('fresh\n')}`,
        '--- /dev/null',
        '+++ b/new.txt',
        '@@ -0,0 +1 @@',
        '+fresh',
        'diff --git a/old/name.txt b/moved.txt',
        `index ${oid('keep\n')}..${oid('keep\n')} 100644`,
        '--- a/old/name.txt',
        '+++ b/moved.txt',
        '',
      ].join('\n'),
    );
  });

  it('computes the same blob ids as git', async () => {
    await writeFile(ws.path('b.txt'), 'hello\n');
    const git = execFileSync('git', ['hash-object', ws.path('b.txt')], { encoding: 'utf8' }).trim();
    expect(blobOid(Buffer.from('hello\n'))).toBe(git);
  });

  it('takes what a command changed from its checkpoint: stored earlier contents, too-large files named only', async () => {
    const stored = new Map([
      ['h-gone', Buffer.from('bye\n')],
      ['h-a', Buffer.from('one\ntwo\nthree\n')],
    ]);
    const checkpoints = {
      content: async (hash: string) => {
        const bytes = stored.get(hash);
        if (bytes === undefined) throw new Error(`no blob ${hash}`);
        return bytes;
      },
      absolutePath: (root: string, key: string) => `${root}/${key}`,
    };
    const t = new TurnDiffTracker(ws.dir);
    // A patch touched a.txt first: its baseline stays the one the patch saw.
    await t.beforeChange([{ path: ws.path('a.txt') }]);
    await writeFile(ws.path('a.txt'), 'one\nTWO\nthree\n');
    t.afterChange([{ path: ws.path('a.txt'), kind: 'update' }]);
    await writeFile(ws.path('a.txt'), 'one\nTWO\nthree\nfour\n');
    await rm(ws.path('gone.txt'));
    await writeFile(ws.path('big.bin'), 'large\n');
    await mkdir(ws.path('dir'));
    const file = (hash: string | null) => ({ kind: 'file' as const, mode: 0o644, hash });
    await t.addRecorded(
      [
        { path: 'a.txt', before: file('h-changed-by-patch'), after: file('h-a2') },
        { path: 'gone.txt', before: file('h-gone'), after: null },
        { path: 'big.bin', before: null, after: file(null) },
        { path: 'dir', before: null, after: { kind: 'dir', mode: 0o755 } },
      ],
      ws.dir,
      checkpoints,
    );
    const oid = (text: string) => blobOid(Buffer.from(text));
    expect((await t.diff()).diff).toBe(
      [
        'diff --git a/a.txt b/a.txt',
        `index ${oid('one\ntwo\nthree\n')}..${oid('one\nTWO\nthree\nfour\n')} 100644`,
        '--- a/a.txt',
        '+++ b/a.txt',
        '@@ -1,3 +1,4 @@',
        ' one',
        '-two',
        '+TWO',
        ' three',
        '+four',
        'diff --git a/big.bin b/big.bin',
        '~ Weft left out the content of big.bin: it was too large to be checkpointed',
        'diff --git a/gone.txt b/gone.txt',
        'deleted file mode 100644',
        `index ${oid('bye\n')}..0000000000000000000000000000000000000000`,
        '--- a/gone.txt',
        '+++ /dev/null',
        '@@ -1 +0,0 @@',
        '-bye',
        '',
      ].join('\n'),
    );
  });

  it("counts a file a patch deleted once when the patch's checkpoint records it, and again as there when a command remakes it", async () => {
    const checkpoints = {
      content: async () => Buffer.from('bye\n'),
      absolutePath: (root: string, key: string) => `${root}/${key}`,
    };
    const file = { kind: 'file' as const, mode: 0o644, hash: 'h-gone' };
    const t = new TurnDiffTracker(ws.dir);
    await t.beforeChange([{ path: ws.path('gone.txt') }]);
    await rm(ws.path('gone.txt'));
    t.afterChange([{ path: ws.path('gone.txt'), kind: 'delete' }]);
    await t.addRecorded([{ path: 'gone.txt', before: file, after: null }], ws.dir, checkpoints);
    const files = async () => [...(await t.diff()).diff.matchAll(/^diff --git .*$/gm)].map((m) => m[0]);
    expect(await files()).toEqual(['diff --git a/gone.txt b/gone.txt']);
    await writeFile(ws.path('gone.txt'), 'back\n');
    await t.addRecorded([{ path: 'gone.txt', before: null, after: { ...file, hash: 'h-back' } }], ws.dir, checkpoints);
    const { diff } = await t.diff();
    expect(await files()).toEqual(['diff --git a/gone.txt b/gone.txt']);
    expect(diff).toContain('-bye\n+back');
  });
});
