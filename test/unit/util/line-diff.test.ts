import { applyPatch, structuredPatch } from 'diff';
import { describe, expect, it } from 'vitest';
import { DiffText } from '../../../src-main/util/diff-cut';
import { diffBytes, writeHunks } from '../../../src-main/util/line-diff';
import { Slicer } from '../../../src-main/util/slicer';

/** The hunks of `before` → `after` as the line diff writes them (no file header). */
async function hunksOf(before: string, after: string, maxChars?: number): Promise<ReturnType<DiffText['finish']>> {
  const pacer = new Slicer();
  const out = new DiffText(maxChars);
  out.file([]);
  await writeHunks(await diffBytes(Buffer.from(before), Buffer.from(after), pacer), out, pacer);
  return out.finish();
}

/** The same hunks as jsdiff writes them, with git's ranges (the way turn diffs were made before). */
function jsdiffHunks(before: string, after: string): string {
  const range = (start: number, count: number): string =>
    count === 0 ? `${Math.max(0, start - 1)},0` : count === 1 ? `${start}` : `${start},${count}`;
  const lines: string[] = [];
  for (const h of structuredPatch('a', 'b', before, after, '', '', { context: 3 }).hunks) {
    lines.push(`@@ -${range(h.oldStart, h.oldLines)} +${range(h.newStart, h.newLines)} @@`, ...h.lines);
  }
  return lines.map((l) => `${l}\n`).join('');
}

/** A small seeded generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const numbered = (n: number, from = 0): string[] => Array.from({ length: n }, (_, i) => `line ${from + i}`);

describe('line diff', () => {
  it.each([
    [
      'a change in the middle',
      numbered(20).join('\n') + '\n',
      numbered(20).join('\n').replace('line 9', 'nine') + '\n',
    ],
    [
      'changes near both ends',
      numbered(12).join('\n') + '\n',
      ['x', ...numbered(12).slice(1, 11), 'y'].join('\n') + '\n',
    ],
    [
      'two changes that share a hunk',
      numbered(30).join('\n') + '\n',
      numbered(30).join('\n').replace('line 10', 'ten').replace('line 16', 'sixteen') + '\n',
    ],
    [
      'two changes in separate hunks',
      numbered(30).join('\n') + '\n',
      numbered(30).join('\n').replace('line 3', 'three').replace('line 25', 'x') + '\n',
    ],
    ['lines added at the end', 'one\ntwo\n', 'one\ntwo\nthree\nfour\n'],
    ['lines removed', 'one\ntwo\nthree\nfour\n', 'one\nfour\n'],
    ['a new file', '', 'fresh\nlines\n'],
    ['a file emptied', 'gone\nlines\n', ''],
    ['a final line break added', 'one\ntwo', 'one\ntwo\n'],
    ['a final line break removed', 'one\ntwo\n', 'one\ntwo'],
    ['an unterminated last line kept as context', 'one\ntwo\nthree', 'ONE\ntwo\nthree'],
    ['CRLF lines, one changed', 'a\r\nb\r\nc\r\n', 'a\r\nB\r\nc\r\n'],
    ['line ends changed from LF to CRLF', 'a\nb\n', 'a\r\nb\r\n'],
    [
      'a block replaced by one of another size',
      numbered(20).join('\n') + '\n',
      [...numbered(8), 'p', 'q', 'r', 'x', 'y', ...numbered(8, 12)].join('\n') + '\n',
    ],
    ['non-ASCII text', 'größe\nmaß\n€uro\n', 'größe\nMASS\n€uro\n'],
  ])('writes %s as jsdiff does', async (_, before, after) => {
    expect((await hunksOf(before, after)).diff).toBe(jsdiffHunks(before, after));
  });

  it('writes nothing for equal texts', async () => {
    expect(await hunksOf('same\ntext\n', 'same\ntext\n')).toEqual({ diff: '' });
  });

  it('makes diffs that turn the old text into the new one (random edits, seeded)', async () => {
    const words = ['', '}', '{', 'return x;', 'a', 'b', 'call();', '// note'];
    for (let seed = 1; seed <= 300; seed++) {
      const next = random(seed);
      const pick = (): string =>
        next() < 0.5 ? (words[Math.floor(next() * words.length)] ?? '') : `v${Math.floor(next() * 40)}`;
      const before = Array.from({ length: Math.floor(next() * 60) }, pick);
      const after = [...before];
      for (let e = Math.floor(next() * 8); e > 0; e--) {
        const at = Math.floor(next() * (after.length + 1));
        const roll = next();
        if (roll < 0.35) after.splice(at, 1 + Math.floor(next() * 3));
        else if (roll < 0.7) after.splice(at, 0, ...Array.from({ length: 1 + Math.floor(next() * 4) }, pick));
        else after.splice(at, 1, pick());
      }
      const end = (lines: string[]): string =>
        lines.length === 0 ? '' : lines.join('\n') + (next() < 0.8 ? '\n' : '');
      const oldText = end(before);
      const newText = end(after);
      const { diff } = await hunksOf(oldText, newText);
      expect(applyPatch(oldText, `--- a/f\n+++ b/f\n${diff}`), `seed ${seed}`).toBe(newText);
    }
  });

  it('lines up a big file with scattered edits exactly', async () => {
    const lines = numbered(200_000);
    const after = [...lines];
    for (let k = 100; k < after.length; k += 997) after[k] = `${after[k]} changed`;
    const before = `${lines.join('\n')}\n`;
    const pacer = new Slicer();
    const diff = await diffBytes(Buffer.from(before), Buffer.from(`${after.join('\n')}\n`), pacer);
    expect(diff.blocks).toHaveLength(Math.ceil((200_000 - 100) / 997));
    expect(diff.blocks.every((b) => b.oldCount === 1 && b.newCount === 1 && b.oldStart === b.newStart)).toBe(true);
  });
});

describe('DiffText', () => {
  it('cuts after the last hunk that fits, counts the rest, and ends with a marker', async () => {
    const before = numbered(1000).join('\n') + '\n';
    const after =
      numbered(1000)
        .map((l, i) => (i % 20 === 10 ? `${l}!` : l))
        .join('\n') + '\n';
    const whole = await hunksOf(before, after);
    expect(whole.cut).toBeUndefined();
    const { diff, cut } = await hunksOf(before, after, 2000);
    expect(diff.length).toBeLessThanOrEqual(2000);
    expect(cut).toEqual({ files: 1, hunks: 50, shownHunks: diff.match(/^@@ /gm)?.length, added: 50, removed: 50 });
    expect(whole.diff.startsWith(diff.slice(0, diff.lastIndexOf('\n~ ') + 1))).toBe(true);
    expect(diff.slice(diff.lastIndexOf('\n~ ') + 1)).toBe(
      `~ Weft left out ${50 - (cut?.shownHunks ?? 0)} of 50 hunks: diffs are cut at 2,000 characters (the whole diff: 1 file, +50 −50 lines).\n`,
    );
  });

  it('shows the beginning of a first hunk too big to show whole, under a header counting what is shown', async () => {
    const { diff, cut } = await hunksOf('', numbered(1000).join('\n') + '\n', 1000);
    const shown = diff.split('\n').filter((l) => l.startsWith('+'));
    expect(diff.startsWith(`@@ -0,0 +1,${shown.length} @@\n+line 0\n`)).toBe(true);
    expect(cut).toEqual({ files: 1, hunks: 1, shownHunks: 1, added: 1000, removed: 0 });
  });

  it('renders no more of a hunk than the room left can show (a new file of 8 MB is not turned into text whole)', async () => {
    const rendered: number[] = [];
    class Watched extends DiffText {
      override hunk(...[added, removed, render, partial]: Parameters<DiffText['hunk']>): void {
        super.hunk(
          added,
          removed,
          (budget) => {
            const text = render(budget);
            rendered.push(text.lines.length);
            return text;
          },
          partial,
        );
      }
    }
    const pacer = new Slicer();
    const out = new Watched(10_000);
    out.file([]);
    const after = numbered(200_000).join('\n') + '\n';
    await writeHunks(await diffBytes(Buffer.alloc(0), Buffer.from(after), pacer), out, pacer);
    const { diff, cut } = out.finish();
    expect(cut).toEqual({ files: 1, hunks: 1, shownHunks: 1, added: 200_000, removed: 0 });
    const shown = diff.split('\n').filter((l) => l.startsWith('+'));
    expect(diff.startsWith(`@@ -0,0 +1,${shown.length} @@\n+line 0\n`)).toBe(true);
    // Lines of about 12 characters: what fits in 10,000 and the one line past it, not 200,000.
    expect(rendered).toHaveLength(1);
    expect(rendered[0]).toBeLessThan(1_000);
    expect(rendered[0]).toBeGreaterThan(shown.length);
  });

  it('leaves out a file none of whose hunks fits, header and all', () => {
    const out = new DiffText(600);
    out.file(['--- a/one', '+++ b/one']);
    out.hunk(
      1,
      1,
      () => ({ header: '@@ -1 +1 @@', lines: ['-a', '+b'], complete: true }),
      () => '',
    );
    out.file(['--- a/two', '+++ b/two']);
    out.hunk(
      1,
      0,
      () => ({ header: '@@ -0,0 +1 @@', lines: ['+'.padEnd(500, 'x')], complete: true }),
      () => '',
    );
    const { diff, cut } = out.finish();
    expect(diff).toBe(
      '--- a/one\n+++ b/one\n@@ -1 +1 @@\n-a\n+b\n~ Weft left out 1 of 2 hunks: diffs are cut at 600 characters (the whole diff: 2 files, +2 −1 lines).\n',
    );
    expect(cut).toEqual({ files: 2, hunks: 2, shownHunks: 1, added: 2, removed: 1 });
  });
});
