// File names a POSIX file system allows, however odd: back-slashes, newlines, leading dashes, names that
// are not UTF-8 (bytes only a Buffer can name), names of NAME_MAX (255) bytes and deep paths. Each is
// checkpointed and restored exactly; a file that truly cannot be put back is named with its reason and
// every other file is restored.
import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { displayPath } from '../../../src-preload/protocol';
import { makeFixture, THREAD, type Fixture } from './helpers';

/** A name that is not UTF-8 ("bad", 0xff 0xfe, ".txt"), and a Latin-1 one ("café" with é as 0xe9). */
const NOT_UTF8 = Buffer.from([0x62, 0x61, 0x64, 0xff, 0xfe, 0x2e, 0x74, 0x78, 0x74]);
const LATIN1 = Buffer.from('caf\xe9', 'latin1');
/** 255 bytes, the longest name Linux allows, in ASCII and in two-byte characters. */
const LONG_ASCII = `${'n'.repeat(251)}.txt`;
const LONG_WIDE = `${'é'.repeat(127)}x`;
/** 14 folders of 250 bytes: a path of about 3,600 bytes below the workspace. */
const DEEP = Array.from({ length: 14 }, (_, i) => `${String(i).padStart(2, '0')}${'d'.repeat(248)}`).join('/');

/** Every entry under `dir` by its raw bytes (hex), so names that are not UTF-8 compare exactly. */
function rawPicture(dir: string, rel: Buffer[] = []): Record<string, string> {
  const out: Record<string, string> = {};
  const abs = Buffer.concat([Buffer.from(dir), ...rel.flatMap((part) => [Buffer.from('/'), part])]);
  for (const name of readdirSync(abs, { encoding: 'buffer' })) {
    if (name.toString() === '.git') continue;
    const path = [...rel, name];
    const key = path.map((part) => part.toString('hex')).join('/');
    const full = Buffer.concat([abs, Buffer.from('/'), name]);
    const st = lstatSync(full);
    if (st.isDirectory()) {
      out[key] = 'dir';
      Object.assign(out, rawPicture(dir, path));
    } else out[key] = `${(st.mode & 0o777).toString(8)}:${readFileSync(full).toString('hex')}`;
  }
  return out;
}

describe('odd file names', () => {
  let fx: Fixture;
  afterEach(async () => fx.cleanup());

  it('round-trip through a checkpoint and a restore', async () => {
    fx = await makeFixture({ 'a.txt': 'alpha\n' });
    const at = (name: Buffer | string): Buffer => Buffer.concat([Buffer.from(`${fx.ws.dir}/`), Buffer.from(name)]);
    // Files that exist before the turn, which the turn changes or removes.
    writeFileSync(at('weird\\name'), 'back-slash\n');
    writeFileSync(at('line\nbreak'), 'newline\n');
    writeFileSync(at('-rf'), 'dash\n');
    writeFileSync(at(NOT_UTF8), 'not utf-8\n');
    writeFileSync(at(LATIN1), 'latin-1\n');
    writeFileSync(at(LONG_ASCII), 'long\n');
    writeFileSync(at(LONG_WIDE), 'long and wide\n');
    mkdirSync(join(fx.ws.dir, DEEP), { recursive: true });
    writeFileSync(join(fx.ws.dir, DEEP, 'leaf.txt'), 'deep\n');
    const before = rawPicture(fx.ws.dir);

    await fx.call(
      'turn-1',
      [
        'echo changed > a.txt',
        "printf 'B\\n' > 'weird\\name'",
        "rm 'line\nbreak'",
        'rm -- -rf',
        "printf 'X\\n' > \"$(printf 'bad\\377\\376.txt')\"",
        'rm "$(printf \'caf\\351\')"',
        `mv ${LONG_ASCII} moved.txt`,
        `echo wider > ${LONG_WIDE}`,
        `echo deeper > ${DEEP}/leaf.txt`,
        // New files with odd names, removed by the undo.
        "echo new > 'new\\one'",
        'echo new > "$(printf \'new\\377\')"',
      ].join(' && '),
    );
    expect(rawPicture(fx.ws.dir)).not.toEqual(before);

    const outcome = await fx.service.revert({ threadId: THREAD, root: fx.ws.dir, turnIds: ['turn-1'] });
    expect(outcome.notRestored).toEqual([]);
    expect(rawPicture(fx.ws.dir)).toEqual(before);
    // Paths that are not UTF-8 are shown with their odd bytes escaped.
    expect(outcome.restored.map(displayPath).sort()).toEqual(
      [
        'a.txt',
        'weird\\name',
        'line\nbreak',
        '-rf',
        'bad\\xff\\xfe.txt',
        'caf\\xe9',
        LONG_ASCII,
        'moved.txt',
        LONG_WIDE,
        `${DEEP}/leaf.txt`,
        'new\\one',
        'new\\xff',
      ].sort(),
    );
    // And back again.
    const afterTurn = await fx.service.redo({ threadId: THREAD, root: fx.ws.dir });
    expect(afterTurn.notRestored).toEqual([]);
    await fx.service.revert({ threadId: THREAD, root: fx.ws.dir, turnIds: ['turn-1'] });
    expect(rawPicture(fx.ws.dir)).toEqual(before);
  });

  it('files that cannot be put back are named with their reason, and the others are restored', async () => {
    fx = await makeFixture({ 'a.txt': 'alpha\n', 'x/y.txt': 'why\n', 'lost.txt': 'its copy is lost\n' });
    await fx.call('turn-1', 'echo changed > a.txt && rm -r x lost.txt && echo new > new.txt');
    // Someone puts a FIFO (which checkpoints do not track) where the folder was, and the stored copy of
    // lost.txt goes missing from the checkpoint store.
    execFileSync('mkfifo', [fx.ws.path('x')]);
    const lost = (await fx.service.records.read(THREAD))[0]?.changes.find((c) => c.path === 'lost.txt')?.before;
    if (lost?.kind !== 'file' || lost.hash === null) throw new Error('lost.txt was not checkpointed');
    rmSync(fx.service.blobs.pathOf(lost.hash));

    const outcome = await fx.service.revert({ threadId: THREAD, root: fx.ws.dir, turnIds: ['turn-1'] });
    expect(outcome.notRestored).toEqual([
      { path: 'lost.txt', reason: `its stored copy (checkpoint blob ${lost.hash.slice(0, 12)}) is missing or damaged` },
      { path: 'x', reason: 'something that is not a folder is in the way' },
      { path: 'x/y.txt', reason: 'x is not a folder' },
    ]);
    expect(outcome.restored.sort()).toEqual(['a.txt', 'new.txt']);
    expect(readFileSync(fx.ws.path('a.txt'), 'utf8')).toBe('alpha\n');
    expect(lstatSync(fx.ws.path('x')).isFIFO()).toBe(true);
    // Nothing of the restore is left in the project.
    expect(readdirSync(fx.ws.dir).sort()).toEqual(['a.txt', 'x']);
  });
});
