import { afterEach, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { makeFixture, type Fixture } from './helpers';

const modes = [
  { name: 'directory watcher', watch: true },
  { name: 'tree walk', watch: false },
] as const;

describe.each(modes)('what a command changed ($name)', ({ watch }) => {
  let fx: Fixture;
  afterEach(async () => fx.cleanup());

  it('records creations, edits, deletions, renames, chmod, binaries, symlinks and new nested folders', async () => {
    fx = await makeFixture(
      { 'a.txt': 'alpha\n', 'b.txt': 'beta\n', 'old.txt': 'moving\n', 'run.sh': 'echo hi\n', 'gone.txt': 'bye\n' },
      { watch },
    );
    const record = await fx.call(
      'turn-1',
      [
        'printf "alpha2\\n" > a.txt',
        'rm gone.txt',
        'mv old.txt new.txt',
        'chmod 755 run.sh',
        'printf "\\000\\001\\002\\377" > blob.bin',
        'ln -s a.txt link',
        'mkdir -p deep/er',
        'echo nested > deep/er/n.txt',
      ].join(' && '),
    );
    expect(record).not.toBeNull();
    const summary = Object.fromEntries(
      (record?.changes ?? []).map((c) => [
        c.path,
        `${c.before?.kind ?? 'none'}->${c.after?.kind ?? 'none'}${c.renamedFrom !== undefined ? ` from ${c.renamedFrom}` : ''}`,
      ]),
    );
    expect(summary).toEqual({
      'a.txt': 'file->file',
      'blob.bin': 'none->file',
      deep: 'none->dir',
      'deep/er': 'none->dir',
      'deep/er/n.txt': 'none->file',
      'gone.txt': 'file->none',
      link: 'none->symlink',
      'new.txt': 'none->file from old.txt',
      'old.txt': 'file->none',
      'run.sh': 'file->file',
    });
    const runSh = record?.changes.find((c) => c.path === 'run.sh');
    expect(
      runSh?.before?.kind === 'file' &&
        runSh.after?.kind === 'file' && [runSh.before.mode & 0o777, runSh.after.mode & 0o777],
    ).toEqual([0o644, 0o755]);
    const bin = record?.changes.find((c) => c.path === 'blob.bin');
    expect(bin?.after?.kind === 'file' && (await fx.service.blobs.read(bin.after.hash ?? ''))).toEqual(
      Buffer.from([0, 1, 2, 255]),
    );
    const link = record?.changes.find((c) => c.path === 'link');
    expect(link?.after).toMatchObject({ kind: 'symlink', target: 'a.txt' });
  });

  it("never records the sandbox's placeholder leases", async () => {
    fx = await makeFixture({ 'a.txt': 'alpha\n' }, { watch });
    const record = await fx.call(
      'turn-1',
      'mkdir .weft && touch .weft/.weft-sandbox-in-use.123.4 .weft/.weft-sandbox-placeholder.5.6 .weft/note.txt',
    );
    expect((record?.changes ?? []).map((c) => c.path).sort()).toEqual(['.weft', '.weft/note.txt']);
  });

  it("never records a folder that holds only the sandbox's leases (a mount point while a command runs)", async () => {
    fx = await makeFixture({ 'a.txt': 'alpha\n' }, { watch });
    const during = await fx.call(
      'turn-1',
      'mkdir .agents .weft && touch .agents/.weft-sandbox-placeholder.5.6 .weft/.weft-sandbox-in-use.7.8 && echo b > b.txt',
    );
    expect((during?.changes ?? []).map((c) => c.path)).toEqual(['b.txt']);
    // The command ended and its placeholders went: nothing to record either.
    const after = await fx.call('turn-2', 'rm -r .agents .weft && echo c > c.txt');
    expect((after?.changes ?? []).map((c) => c.path)).toEqual(['c.txt']);
  });

  it('a folder removed, moved or replaced by a file takes every path below it along', async () => {
    fx = await makeFixture(
      {
        'keep.txt': 'k\n',
        'lib/a.txt': 'a\n',
        'lib/sub/b.txt': 'b\n',
        'tmp/c.txt': 'c\n',
        'tmp/d/e.txt': 'e\n',
        'x/y.txt': 'y\n',
        'libx/z.txt': 'z\n',
      },
      { watch },
    );
    const first = await fx.call('turn-1', 'mv lib moved && rm -r tmp && rm -r x && echo file > x');
    const summary = Object.fromEntries(
      (first?.changes ?? []).map((c) => [c.path, `${c.before?.kind ?? 'none'}->${c.after?.kind ?? 'none'}`]),
    );
    expect(summary).toEqual({
      lib: 'dir->none',
      'lib/a.txt': 'file->none',
      'lib/sub': 'dir->none',
      'lib/sub/b.txt': 'file->none',
      moved: 'none->dir',
      'moved/a.txt': 'none->file',
      'moved/sub': 'none->dir',
      'moved/sub/b.txt': 'none->file',
      tmp: 'dir->none',
      'tmp/c.txt': 'file->none',
      'tmp/d': 'dir->none',
      'tmp/d/e.txt': 'file->none',
      x: 'dir->file',
      'x/y.txt': 'file->none',
    });
    // What is gone stays gone from the index: recreating a path is a creation again.
    const second = await fx.call('turn-2', 'mkdir -p lib/sub && echo again > lib/sub/b.txt && echo z2 > libx/z.txt');
    const again = Object.fromEntries(
      (second?.changes ?? []).map((c) => [c.path, `${c.before?.kind ?? 'none'}->${c.after?.kind ?? 'none'}`]),
    );
    expect(again).toEqual({
      lib: 'none->dir',
      'lib/sub': 'none->dir',
      'lib/sub/b.txt': 'none->file',
      'libx/z.txt': 'file->file',
    });
  });

  it('a call that changes nothing records nothing', async () => {
    fx = await makeFixture({ 'a.txt': 'alpha\n' }, { watch });
    expect(await fx.call('turn-1', 'cat a.txt > /dev/null')).toBeNull();
    expect(await fx.service.records.read('thread-1')).toEqual([]);
  });

  it('leaves out what .gitignore ignores and never looks inside .git', async () => {
    fx = await makeFixture({ '.gitignore': 'build/\n*.log\n!keep.log\n', 'src/x.ts': 'x\n' }, { watch });
    fx.sh('mkdir -p .git && echo ref > .git/HEAD');
    const record = await fx.call(
      'turn-1',
      'mkdir -p build && echo out > build/o.js && echo l > a.log && echo k > keep.log && echo y > src/x.ts && echo g > .git/config',
    );
    expect(record?.changes.map((c) => c.path)).toEqual(['keep.log', 'src/x.ts']);
  });

  it('notes files too large to keep instead of storing them', async () => {
    fx = await makeFixture({ 'a.txt': 'a\n' }, { watch, limits: { maxFileBytes: 1000, maxTurnBytes: 1500 } });
    const record = await fx.call(
      'turn-1',
      'head -c 2000 /dev/zero > big.bin && head -c 900 /dev/zero | tr "\\0" x > m1 && head -c 900 /dev/zero | tr "\\0" y > m2',
    );
    expect(record?.notes).toEqual([
      'big.bin: not checkpointed: too large (2 KiB > 1000 B per file)',
      "m2: not checkpointed: too large (the turn's checkpoints passed 1 KiB)",
    ]);
    const big = record?.changes.find((c) => c.path === 'big.bin');
    expect(big?.after).toMatchObject({ kind: 'file', hash: null, size: 2000 });
  });

  it('changes made between calls by someone else belong to no call', async () => {
    fx = await makeFixture({ 'a.txt': 'a\n' }, { watch });
    await fx.call('turn-1', 'echo 1 > one.txt');
    writeFileSync(fx.ws.path('user.txt'), 'mine\n');
    const record = await fx.call('turn-2', 'echo 2 > two.txt');
    expect(record?.changes.map((c) => c.path)).toEqual(['two.txt']);
  });
});

describe('blob store', () => {
  let fx: Fixture;
  afterEach(async () => fx.cleanup());

  it('stores each content once, compressed', async () => {
    fx = await makeFixture({});
    const text = Buffer.from('same words again and again\n'.repeat(400));
    const first = await fx.service.blobs.put(text);
    const second = await fx.service.blobs.put(text);
    expect(second).toEqual({ hash: first.hash, written: 0 });
    expect(first.written).toBeGreaterThan(0);
    expect(first.written).toBeLessThan(text.length / 10);
    expect(await fx.service.blobs.read(first.hash)).toEqual(text);
  });
});
