import { execFileSync } from 'node:child_process';
import { mkdir, rename, rm, utimes, writeFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TurnDiffTracker } from '../../../src-main/tools/turn-diff';
import { blobOid } from '../../../src-main/util/git-blob';
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

const LONG_AGO = new Date('2026-01-01T00:00:00Z');

describe('TurnDiffTracker made again after each step', () => {
  /** Sets a file's times to one fixed moment long past, as a file not touched since: its stat then keys what was learned. */
  const settle = (path: string): Promise<void> => utimes(path, LONG_AGO, LONG_AGO);

  it('sees a file written again at once with the same size (the same clock tick)', async () => {
    const t = new TurnDiffTracker(ws.dir, 0n);
    await t.beforeChange([{ path: ws.path('a.txt') }]);
    await writeFile(ws.path('a.txt'), 'one\nTWO\nthree\n');
    expect((await t.diff()).diff).toContain('+TWO\n');
    await writeFile(ws.path('a.txt'), 'one\nTWx\nthree\n');
    const { diff } = await t.diff();
    expect(diff).toContain('+TWx\n');
    expect(diff).not.toContain('+TWO\n');
  });

  it('sees a file changed long after the diff that read it, its times set back as they were', async () => {
    const t = new TurnDiffTracker(ws.dir, 0n);
    await t.beforeChange([{ path: ws.path('a.txt') }, { path: ws.path('new.txt') }]);
    await writeFile(ws.path('a.txt'), 'one\nTWO\nthree\n');
    await writeFile(ws.path('new.txt'), 'fresh\n');
    await settle(ws.path('a.txt'));
    await settle(ws.path('new.txt'));
    const first = (await t.diff()).diff;
    expect(first).toContain('+TWO\n');
    expect((await t.diff()).diff).toBe(first);
    // The same size and the same times again: only the change time (which no one can set) tells.
    await writeFile(ws.path('a.txt'), 'one\ntwo\nthrEE\n');
    await settle(ws.path('a.txt'));
    const again = (await t.diff()).diff;
    expect(again).toContain(`..${blobOid(Buffer.from('one\ntwo\nthrEE\n'))} 100644\n`);
    expect(again).toContain('@@ -1,3 +1,3 @@\n one\n two\n-three\n+thrEE\n');
    expect(again).not.toContain('TWO');
    expect(again).toContain('+fresh\n');
    // Back to its baseline: no longer a file of the diff.
    await writeFile(ws.path('a.txt'), 'one\ntwo\nthree\n');
    await settle(ws.path('a.txt'));
    expect((await t.diff()).diff).not.toContain('a.txt');
    await rm(ws.path('new.txt'));
    expect((await t.diff()).diff).toBe('');
  });

  it('counts the hunks of files past the size limit the same way each time, and follows a change among them', async () => {
    const t = new TurnDiffTracker(ws.dir, 0n);
    const big = ws.path('big.txt');
    const late = ws.path('z-late.txt');
    const lines = (n: number, f: (i: number) => string): string =>
      Array.from({ length: n }, (_, i) => f(i)).join('\n') + '\n';
    await writeFile(
      late,
      lines(100, (i) => `line ${i}`),
    );
    await t.beforeChange([{ path: big }, { path: late }]);
    await writeFile(
      big,
      lines(120_000, (i) => `big line ${i}`),
    );
    await writeFile(
      late,
      lines(100, (i) => (i % 20 === 0 ? `changed ${i}` : `line ${i}`)),
    );
    await settle(big);
    await settle(late);
    const first = await t.diff();
    expect(first.cut).toEqual({ files: 2, hunks: 6, shownHunks: 1, added: 120_005, removed: 5 });
    expect(await t.diff()).toEqual(first);
    await writeFile(
      late,
      lines(100, (i) => (i % 10 === 0 ? `changed ${i}` : `line ${i}`)),
    );
    await settle(late);
    expect((await t.diff()).cut).toEqual({ files: 2, hunks: 11, shownHunks: 1, added: 120_010, removed: 10 });
  });
});

describe('TurnDiffTracker beside hostile files', () => {
  it('is not held by a FIFO put in place of a tracked file or a new one', async () => {
    const t = new TurnDiffTracker(ws.dir, 0n);
    await t.beforeChange([{ path: ws.path('a.txt') }, { path: ws.path('new.txt') }]);
    await rm(ws.path('a.txt'));
    execFileSync('mkfifo', [ws.path('a.txt')]);
    execFileSync('mkfifo', [ws.path('new.txt')]);
    const { diff } = await t.diff();
    // Read without waiting, the FIFO holds nothing: the tracked file reads as emptied; the new one, no
    // regular file, is left out.
    expect(diff).toContain('@@ -1,3 +0,0 @@\n-one\n-two\n-three\n');
    expect(diff).not.toContain('new.txt');
  });
});
