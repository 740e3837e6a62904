import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitPlan } from '../../../src-main/tools/apply-patch/apply';
import { parsePatch } from '../../../src-main/tools/apply-patch/parse';
import { PatchApplyError, planPatch, withDeclinedHunks } from '../../../src-main/tools/apply-patch/plan';
import type { PatchPlan } from '../../../src-main/tools/apply-patch/plan';
import { patch, read, snapshot, tempDir, writeTree } from './helpers';

const numbered = (from: number, to: number): string[] =>
  Array.from({ length: to - from + 1 }, (_, i) => `line ${from + i}`);

async function planIn(dir: string, text: string): Promise<PatchPlan> {
  return planPatch(parsePatch(text), { cwd: dir });
}

describe('planPatch', () => {
  it('plans an update as hunks of changed lines, merging changes up to six lines apart', async () => {
    const dir = tempDir();
    writeTree(dir, { 'f.txt': numbered(1, 30).join('\n') + '\n' });
    const plan = await planIn(
      dir,
      patch(
        '*** Update File: f.txt',
        '@@',
        ' line 2',
        '-line 3',
        '+line three',
        ' line 4',
        '@@',
        ' line 9',
        '-line 10',
        ' line 11',
        '@@',
        '-line 20',
        '+line 20a',
        '+line 20b',
      ),
    );
    const [file] = plan.files;
    expect(file).toMatchObject({
      path: join(dir, 'f.txt'),
      displayPath: 'f.txt',
      kind: 'update',
      movePath: null,
      displayMovePath: null,
      eol: '\n',
      observed: { size: 9 * 7 + 21 * 8 },
    });
    expect(file?.hunks).toEqual([
      {
        index: 0,
        oldStart: 3,
        oldCount: 8,
        newStart: 3,
        newCount: 7,
        oldLines: numbered(3, 10),
        newLines: ['line three', ...numbered(4, 9)],
        ops: '-+      -',
      },
      {
        index: 1,
        oldStart: 20,
        oldCount: 1,
        newStart: 19,
        newCount: 2,
        oldLines: ['line 20'],
        newLines: ['line 20a', 'line 20b'],
        ops: '-++',
      },
    ]);
    expect(file?.newContent).toBe(
      [
        'line 1',
        'line 2',
        'line three',
        ...numbered(4, 9),
        ...numbered(11, 19),
        'line 20a',
        'line 20b',
        ...numbered(21, 30),
      ].join('\n') + '\n',
    );
  });

  it('plans adds and deletes as one hunk each', async () => {
    const dir = tempDir();
    writeTree(dir, { 'old.txt': 'x\ny\n' });
    const plan = await planIn(
      dir,
      patch('*** Add File: n.txt', '+a', '+b', '*** Delete File: old.txt', '*** Add File: empty.txt'),
    );
    expect(plan.files.map((f) => [f.kind, f.oldContent, f.newContent, f.hunks, f.observed])).toEqual([
      [
        'add',
        null,
        'a\nb\n',
        [
          {
            index: 0,
            oldStart: 0,
            oldCount: 0,
            newStart: 1,
            newCount: 2,
            oldLines: [],
            newLines: ['a', 'b'],
            ops: '++',
          },
        ],
        'absent',
      ],
      [
        'delete',
        'x\ny\n',
        null,
        [
          {
            index: 0,
            oldStart: 1,
            oldCount: 2,
            newStart: 0,
            newCount: 0,
            oldLines: ['x', 'y'],
            newLines: [],
            ops: '--',
          },
        ],
        expect.anything(),
      ],
      ['add', null, '', [], 'absent'],
    ]);
  });

  it('throws PatchApplyError naming the file and hunk, without touching the disk', async () => {
    const dir = tempDir();
    writeTree(dir, { 'f.txt': 'a\nb\n' });
    const error = await planIn(dir, patch('*** Update File: f.txt', '@@', '-a', '+A', '@@', '-zzz', '+Z')).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(PatchApplyError);
    expect(error instanceof PatchApplyError ? error.failures : null).toEqual([
      {
        path: 'f.txt',
        hunk: 2,
        patchLine: 6,
        message: 'Failed to find expected lines in f.txt:\nzzz\n(hunk 2 of 2 for f.txt, patch line 6)',
      },
    ]);
  });

  it('reads through opts.readFile when given', async () => {
    const files: Record<string, string> = { '/virtual/f.txt': 'a\nb\n' };
    const readFile = async (path: string): Promise<string> => {
      const text = files[path];
      if (text === undefined) throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
      return text;
    };
    const plan = await planPatch(
      parsePatch(patch('*** Update File: f.txt', '@@', '-b', '+B', '*** Add File: g.txt', '+g')),
      {
        cwd: '/virtual',
        readFile,
      },
    );
    expect(plan.files.map((f) => [f.path, f.newContent, f.mode, f.observed])).toEqual([
      ['/virtual/f.txt', 'a\nB\n', null, undefined],
      ['/virtual/g.txt', 'g\n', null, 'absent'],
    ]);
  });

  it('reports hunks that change the same lines', async () => {
    const dir = tempDir();
    writeTree(dir, { 'f.txt': 'a\nb\n\n' });
    const error = await planIn(dir, patch('*** Update File: f.txt', '@@', '-b', '-', '+B', '@@', '+tail')).catch(
      (e: unknown) => e,
    );
    expect(error instanceof PatchApplyError ? error.failures.map((f) => f.message) : error).toEqual([
      'Hunk 2 changes lines of f.txt that hunk 1 already changes\n(hunk 2 of 2 for f.txt, patch line 7)',
    ]);
  });
});

describe('withDeclinedHunks', () => {
  it('recomputes the new content without the declined hunks and drops fully declined files', async () => {
    const dir = tempDir();
    writeTree(dir, { 'f.txt': numbered(1, 30).join('\n') + '\n', 'g.txt': 'g\n', 'h.txt': 'h\n' });
    const plan = await planIn(
      dir,
      patch(
        '*** Update File: f.txt',
        '@@',
        '-line 2',
        '+line two',
        '@@',
        '-line 15',
        '@@',
        '-line 28',
        '+line twenty-eight',
        '*** Update File: g.txt',
        '@@',
        '-g',
        '+G',
        '*** Delete File: h.txt',
        '*** Add File: i.txt',
        '+i',
      ),
    );
    const reviewed = withDeclinedHunks(plan, [
      { path: 'f.txt', hunk: 1 },
      { path: join(dir, 'g.txt'), hunk: 0 },
      { path: 'h.txt', hunk: 0 },
    ]);
    expect(reviewed.files.map((f) => f.displayPath)).toEqual(['f.txt', 'i.txt']);
    const f = reviewed.files[0];
    expect(f?.hunks.map((h) => [h.index, h.oldStart, h.newStart])).toEqual([
      [0, 2, 2],
      [2, 28, 28],
    ]);
    expect(f?.newContent).toBe(
      ['line 1', 'line two', ...numbered(3, 27), 'line twenty-eight', 'line 29', 'line 30'].join('\n') + '\n',
    );
    expect(plan.files).toHaveLength(4);

    await commitPlan(reviewed);
    expect(snapshot(dir)['g.txt']).toMatch(/:g\n$/);
    expect(read(dir, 'h.txt')).toBe('h\n');
    expect(read(dir, 'i.txt')).toBe('i\n');
    expect(read(dir, 'f.txt')).toBe(f?.newContent);
  });

  it('makes an append after an unterminated last line replace that line (it gains a line break)', async () => {
    const dir = tempDir();
    writeTree(dir, { 'n.txt': 'a\nb' });
    const plan = await planIn(dir, patch('*** Update File: n.txt', '@@', '-a', '+A', '@@', '+c'));
    expect(plan.files[0]?.newContent).toBe('A\nb\nc\n');
    expect(plan.files[0]?.hunks).toEqual([
      {
        index: 0,
        oldStart: 1,
        oldCount: 2,
        newStart: 1,
        newCount: 3,
        oldLines: ['a', 'b'],
        newLines: ['A', 'b', 'c'],
        ops: '-+-++',
      },
    ]);
  });

  it('keeps no final newline when an end-reaching hunk is declined', async () => {
    const dir = tempDir();
    writeTree(dir, { 'n.txt': [...numbered(1, 20), 'last'].join('\n') });
    const plan = await planIn(dir, patch('*** Update File: n.txt', '@@', '-line 1', '+LINE 1', '@@', '+appended'));
    expect(plan.files[0]?.hunks.map((h) => h.ops)).toEqual(['-+', '-++']);
    const reviewed = withDeclinedHunks(plan, [{ path: 'n.txt', hunk: 1 }]);
    expect(reviewed.files[0]?.newContent).toBe(['LINE 1', ...numbered(2, 20), 'last'].join('\n'));
  });
});
