// A file a turn created is diffed without being read whole: its blob id, line count and first bytes come
// from a read a piece at a time, and only as much text as the diff can still carry is kept. The text must be
// what the whole-file diff writes, for every shape of file.
import { mkdir, utimes, writeFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TurnDiffTracker } from '../../../src-main/tools/turn-diff';
import { blobOid } from '../../../src-main/util/git-blob';
import { DiffText } from '../../../src-main/util/diff-cut';
import { diffBytes, writeHunks } from '../../../src-main/util/line-diff';
import { Slicer } from '../../../src-main/util/slicer';
import { makeTempWorkspace, type TempWorkspace } from '../../support/workspace';
import { largestBuffer } from '../../support/largest-buffer';

let ws: TempWorkspace;
beforeEach(async () => {
  ws = await makeTempWorkspace({});
  await mkdir(ws.path('.git'));
});
afterEach(() => ws.cleanup());

const MIB = 1024 * 1024;
const LONG_AGO = new Date('2026-01-01T00:00:00Z');

/** Lines of 76 characters, as `base64 -w 76` writes them: about `bytes` bytes of text. */
function base64Lines(bytes: number, seed = 1): Buffer {
  const line = (i: number): string =>
    `${String(i * seed).padStart(12, '0')}${'QUJDREVGR0hJSktMTU5PUFFSU1RVVldY'.repeat(2)}`.slice(0, 76);
  const lines: string[] = [];
  for (let size = 0, i = 0; size < bytes; i++, size += 77) lines.push(line(i));
  return Buffer.from(`${lines.join('\n')}\n`);
}

/** The diff of new files as the tracker wrote it when it read each file whole (the same primitives). */
async function wholeFileDiff(
  files: readonly { name: string; content: Buffer }[],
): Promise<{ diff: string; cut?: unknown }> {
  const out = new DiffText();
  const pacer = new Slicer();
  for (const { name, content } of [...files].sort((a, b) => a.name.localeCompare(b.name))) {
    const lines = [`diff --git a/${name} b/${name}`, 'new file mode 100644'];
    lines.push(`index 0000000000000000000000000000000000000000..${blobOid(content)}`);
    if (content.subarray(0, 8000).includes(0)) {
      lines.push(`Binary files /dev/null and b/${name} differ`);
      out.file(lines);
      continue;
    }
    lines.push('--- /dev/null', `+++ b/${name}`);
    out.file(lines);
    await writeHunks(await diffBytes(Buffer.alloc(0), content, pacer), out, pacer);
  }
  return out.finish();
}

async function trackNew(files: readonly { name: string; content: Buffer }[]): Promise<TurnDiffTracker> {
  const t = new TurnDiffTracker(ws.dir, 0n);
  await t.beforeChange(files.map((f) => ({ path: ws.path(f.name) })));
  for (const f of files) {
    await writeFile(ws.path(f.name), f.content);
    await utimes(ws.path(f.name), LONG_AGO, LONG_AGO);
  }
  t.afterChange(files.map((f) => ({ path: ws.path(f.name), kind: 'add' as const })));
  return t;
}

describe('TurnDiffTracker: files the turn created', () => {
  it('diffs a new file of 8 MiB through no buffer of its size, the text the same as the whole-file diff', async () => {
    const files = [{ name: 'data.txt', content: base64Lines(8 * MIB) }];
    const t = await trackNew(files);
    const first = await largestBuffer(() => t.diff());
    expect(first.result).toEqual(await wholeFileDiff(files));
    expect(first.largest).toBeLessThanOrEqual(2 * MIB);
    // Made again after the next step: the same, read no more whole than the first time.
    const again = await largestBuffer(() => t.diff());
    expect(again.result).toEqual(first.result);
    expect(again.largest).toBeLessThanOrEqual(2 * MIB);
  });

  it('diffs a new file past the point where the diff is cut by counting it, holding none of it', async () => {
    // The first file fills the diff; the second is only counted.
    const files = [
      { name: 'a-fills.txt', content: base64Lines(2 * MIB, 3) },
      { name: 'b-counted.txt', content: base64Lines(8 * MIB) },
    ];
    const t = await trackNew(files);
    const { result, largest } = await largestBuffer(() => t.diff());
    expect(result).toEqual(await wholeFileDiff(files));
    expect(result.cut).toMatchObject({ files: 2, hunks: 2, shownHunks: 1 });
    expect(largest).toBeLessThanOrEqual(2 * MIB);
  });

  it('writes every shape of new file as the whole-file diff does, alone and after the cut', async () => {
    const utf8 = Buffer.from(
      Array.from({ length: 60_000 }, (_, i) => `ligne ${i} — déjà vu, 東京, 🙂 ${'é'.repeat(i % 40)}`).join('\n') +
        '\n',
    );
    const shapes = [
      { name: 'empty.txt', content: Buffer.alloc(0) },
      { name: 'no-newline.txt', content: Buffer.from('one\ntwo') },
      { name: 'crlf.txt', content: Buffer.from('one\r\ntwo\r\n') },
      { name: 'blank-lines.txt', content: Buffer.from('\n\n\n') },
      {
        name: 'binary.bin',
        content: Buffer.concat([Buffer.from('head\n'), Buffer.alloc(10, 0), base64Lines(3 * MIB)]),
      },
      { name: 'utf8.txt', content: utf8 },
      { name: 'one-long-line.txt', content: Buffer.alloc(5 * MIB, 'x') },
      {
        name: 'long-line-late.txt',
        content: Buffer.concat([Buffer.from('short\n'), Buffer.alloc(3 * MIB, 'y'), Buffer.from('\nend')]),
      },
      { name: 'just-under.txt', content: base64Lines(MIB - 4096) },
    ];
    for (const shape of shapes) {
      const t = await trackNew([shape]);
      expect({ name: shape.name, diff: await t.diff() }).toEqual({
        name: shape.name,
        diff: await wholeFileDiff([shape]),
      });
    }
    // All of them in one diff: some written, the rest counted once the diff is full.
    const sub = ws.path('all');
    await mkdir(sub);
    const all = shapes.map((s) => ({ name: `all/${s.name}`, content: s.content }));
    const t = await trackNew(all);
    const whole = await wholeFileDiff(all);
    expect(whole.cut).toBeDefined();
    expect(await t.diff()).toEqual(whole);
    expect(await t.diff()).toEqual(whole);
  });
});
