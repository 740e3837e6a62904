// Property tests (seeded, so reproducible): a broken patch always fails with a clear message, changes no
// file, and never throws.

import { describe, expect, it } from 'vitest';
import { applyPatchText } from '../../../src-main/tools/apply-patch/index';
import { prng, snapshot, tempDir, writeTree } from './helpers';

type Random = () => number;
type Kind = 'begin' | 'end' | 'header' | 'move' | 'chunk' | 'context' | 'old' | 'new' | 'add';
interface PatchLine {
  text: string;
  kind: Kind;
  section: number;
}

const A_LINES = Array.from({ length: 20 }, (_, i) => `export const a${i} = ${i};`);
const B_LINES = Array.from({ length: 10 }, (_, i) => `line b${i}`);
const README_LINES = ['# Title', '', 'Some text.', '', 'More text.'];
const FIXTURE_TEXT: Record<string, string[]> = { 'src/a.ts': A_LINES, 'src/b.ts': B_LINES, 'README.md': README_LINES };

function writeFixture(dir: string): void {
  writeTree(dir, {
    'src/a.ts': A_LINES.join('\n') + '\n',
    'src/b.ts': B_LINES.join('\r\n') + '\r\n',
    'README.md': README_LINES.join('\n') + '\n',
    'bin/run.sh': ['#!/bin/sh\necho run\n', 0o755],
  });
}

const int = (random: Random, n: number): number => Math.floor(random() * n);
function pick<T>(random: Random, items: readonly T[]): T {
  const item = items[int(random, items.length)];
  if (item === undefined) throw new Error('pick from an empty list');
  return item;
}

/** Chunks for an update of `lines`: in file order, each with at least one removed line. */
function updateChunks(random: Random, lines: readonly string[], section: number): PatchLine[] {
  const out: PatchLine[] = [];
  let position = 0;
  const chunkCount = 1 + int(random, 3);
  for (let c = 0; c < chunkCount && position < lines.length - 1; c++) {
    const target = position + int(random, Math.min(4, lines.length - position));
    out.push({ text: '@@', kind: 'chunk', section });
    for (let k = Math.max(position, target - int(random, 3)); k < target; k++)
      out.push({ text: ` ${lines[k]}`, kind: 'context', section });
    out.push({ text: `-${lines[target]}`, kind: 'old', section });
    for (let n = int(random, 3); n > 0; n--) out.push({ text: `+added ${int(random, 1000)}`, kind: 'new', section });
    position = target + 1;
  }
  return out;
}

/** A valid patch over the fixture: one update with a removed line first, then up to three other sections. */
function validPatch(random: Random): PatchLine[] {
  const lines: PatchLine[] = [{ text: '*** Begin Patch', kind: 'begin', section: -1 }];
  const files = Object.keys(FIXTURE_TEXT).sort(() => random() - 0.5);
  const first = files.shift() ?? 'src/a.ts';
  lines.push(
    { text: `*** Update File: ${first}`, kind: 'header', section: 0 },
    ...updateChunks(random, FIXTURE_TEXT[first] ?? [], 0),
  );
  const extra = int(random, 4);
  for (let section = 1; section <= extra; section++) {
    const choice = int(random, 4);
    const file = files.shift();
    if (choice === 0 || file === undefined) {
      lines.push({ text: `*** Add File: new/file${section}.txt`, kind: 'header', section });
      for (let n = 1 + int(random, 3); n > 0; n--) lines.push({ text: `+content ${n}`, kind: 'add', section });
    } else if (choice === 1) {
      lines.push({ text: `*** Delete File: ${file}`, kind: 'header', section });
    } else {
      lines.push({ text: `*** Update File: ${file}`, kind: 'header', section });
      if (choice === 3) lines.push({ text: `*** Move to: moved/${file}`, kind: 'move', section });
      lines.push(...updateChunks(random, FIXTURE_TEXT[file] ?? [], section));
    }
  }
  lines.push({ text: '*** End Patch', kind: 'end', section: -1 });
  return lines;
}

/** Mutations that each make a valid patch invalid or inapplicable. */
const BREAKERS: ReadonlyArray<(random: Random, lines: PatchLine[]) => void> = [
  (_r, lines) => void lines.shift(),
  (_r, lines) => void lines.pop(),
  (random, lines) => void lines.splice(1 + int(random, lines.length - 2), lines.length), // truncated
  (random, lines) => {
    const header = pick(
      random,
      lines.filter((l) => l.kind === 'header'),
    );
    header.text = pick(random, [
      '*** Frob File: x',
      '*** add file: y',
      '** Update File: z',
      'Update File: w',
      '*** Update File:',
    ]);
  },
  (random, lines) => {
    const at = 1 + int(random, lines.length - 2);
    lines.splice(at, 0, { text: `${pick(random, ['~', '?', '#', '!', 'x', '@'])}junk`, kind: 'context', section: -1 });
  },
  (random, lines) => {
    const line = pick(
      random,
      lines.filter((l) => l.section === 0 && (l.kind === 'old' || l.kind === 'context')),
    );
    line.text += ` \u00a7${int(random, 1e6)}`;
  },
  (random, lines) => {
    const header = pick(
      random,
      lines.filter((l) => l.kind === 'header' && !l.text.startsWith('*** Add')),
    );
    header.text = header.text.replace(/: .*/, `: missing/${int(random, 100)}.txt`);
  },
  (random, lines) => {
    const chunk = pick(
      random,
      lines.filter((l) => l.section === 0 && l.kind === 'chunk'),
    );
    chunk.text = `@@ no such context ${int(random, 100)}`;
  },
  (_r, lines) => {
    const body = lines.filter((l) => l.section === 0 && l.kind !== 'header');
    for (const line of body) lines.splice(lines.indexOf(line), 1);
  },
  (random, lines) => {
    const section = lines.filter((l) => l.section === 0);
    lines.splice(lines.length - 1, 0, ...section.map((l) => ({ ...l })));
    if (random() < 0.5)
      lines.splice(
        1,
        0,
        { text: '*** Add File: src', kind: 'header', section: 9 },
        { text: '+x', kind: 'add', section: 9 },
      );
  },
];

const CLEAR_ERROR =
  /^(invalid patch: |invalid hunk at line \d+, |No files were modified\.|Failed to (find|read|delete|write|create)|The patch changes |Hunk \d+ changes lines)/;

describe('malformed patches (property, seeded)', () => {
  it('always fail with a clear error and change no file', async () => {
    const random = prng(0x5eed);
    const dir = tempDir();
    writeFixture(dir);
    const before = snapshot(dir);
    for (let round = 0; round < 150; round++) {
      const lines = validPatch(random);
      const breaker = int(random, BREAKERS.length);
      BREAKERS[breaker]?.(random, lines);
      const text = lines.map((l) => l.text).join('\n');
      const outcome = await applyPatchText(text, { cwd: dir });
      const context = `round ${round}, breaker ${breaker}:\n${text}\n---\n${outcome.output}`;
      expect(outcome.ok, context).toBe(false);
      expect(outcome.output, context).toMatch(CLEAR_ERROR);
      expect(snapshot(dir), context).toEqual(before);
    }
  });

  it('the valid patches they start from do apply (so the breakers are what fails them)', async () => {
    const random = prng(0x5eed + 1);
    for (let round = 0; round < 30; round++) {
      const dir = tempDir();
      writeFixture(dir);
      const text = validPatch(random)
        .map((l) => l.text)
        .join('\n');
      const outcome = await applyPatchText(text, { cwd: dir });
      expect(outcome.ok, `${text}\n---\n${outcome.output}`).toBe(true);
    }
  });

  it('random line soup never throws, and when rejected changes nothing', async () => {
    const random = prng(20_250_611);
    const pool = [
      '*** Begin Patch',
      '*** End Patch',
      '*** Update File: src/a.ts',
      '*** Update File: README.md',
      '*** Add File: new.txt',
      '*** Delete File: src/b.ts',
      '*** Move to: m.ts',
      '*** End of File',
      '@@',
      '@@ export const a3 = 3;',
      ` ${A_LINES[4]}`,
      `-${A_LINES[5]}`,
      '+inserted',
      '-# Title',
      ' ',
      '',
      '+',
      'garbage',
      "<<'EOF'",
      'EOF',
      '\u201csmart\u201d',
    ];
    let dir = tempDir();
    writeFixture(dir);
    let rejected = 0;
    for (let round = 0; round < 300; round++) {
      const body = Array.from({ length: int(random, 12) }, () => pick(random, pool));
      const text = (random() < 0.7 ? ['*** Begin Patch', ...body, '*** End Patch'] : body).join(
        random() < 0.2 ? '\r\n' : '\n',
      );
      const before = snapshot(dir);
      const outcome = await applyPatchText(text, { cwd: dir });
      if (outcome.ok) {
        dir = tempDir();
        writeFixture(dir);
        continue;
      }
      rejected++;
      expect(outcome.output.length, text).toBeGreaterThan(0);
      expect(snapshot(dir), `${text}\n---\n${outcome.output}`).toEqual(before);
    }
    expect(rejected).toBeGreaterThan(100);
  });
});
