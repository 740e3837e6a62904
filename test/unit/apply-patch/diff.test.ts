import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { unifiedDiffForFile } from '../../../src-main/tools/apply-patch/diff';
import { parsePatch } from '../../../src-main/tools/apply-patch/parse';
import { planPatch } from '../../../src-main/tools/apply-patch/plan';
import type { PlannedFile } from '../../../src-main/tools/apply-patch/plan';
import { patch, tempDir, writeTree } from './helpers';

const numbered = (from: number, to: number): string[] =>
  Array.from({ length: to - from + 1 }, (_, i) => `l${from + i}`);

async function diffs(files: Record<string, string>, text: string): Promise<string[]> {
  const dir = tempDir();
  writeTree(dir, files);
  const plan = await planPatch(parsePatch(text), { cwd: dir });
  return plan.files.map((f: PlannedFile) => unifiedDiffForFile(f).diff);
}

describe('unifiedDiffForFile', () => {
  it('shows each hunk with three lines of context and separate headers for distant hunks', async () => {
    const [diff] = await diffs(
      { 'f.txt': numbered(1, 20).join('\n') + '\n' },
      patch('*** Update File: f.txt', '@@', '-l2', '+two', '@@', ' l14', '-l15', '+fifteen', '+15b'),
    );
    expect(diff).toBe(
      [
        '--- a/f.txt',
        '+++ b/f.txt',
        '@@ -1,5 +1,5 @@',
        ' l1',
        '-l2',
        '+two',
        ' l3',
        ' l4',
        ' l5',
        '@@ -12,7 +12,8 @@',
        ' l12',
        ' l13',
        ' l14',
        '-l15',
        '+fifteen',
        '+15b',
        ' l16',
        ' l17',
        ' l18',
        '',
      ].join('\n'),
    );
  });

  it('merges changes whose contexts would touch into one hunk', async () => {
    const [diff] = await diffs(
      { 'f.txt': numbered(1, 12).join('\n') + '\n' },
      patch('*** Update File: f.txt', '@@', '-l3', '@@', '-l10'),
    );
    expect(diff).toBe(
      [
        '--- a/f.txt',
        '+++ b/f.txt',
        '@@ -1,12 +1,10 @@',
        ' l1',
        ' l2',
        '-l3',
        ...numbered(4, 9).map((l) => ` ${l}`),
        '-l10',
        ' l11',
        ' l12',
        '',
      ].join('\n'),
    );
  });

  it('uses /dev/null for adds and deletes, and marks a missing final newline', async () => {
    const [add, del] = await diffs(
      { 'old.txt': 'x\ny' },
      patch('*** Add File: dir/n.txt', '+a', '+b', '*** Delete File: old.txt'),
    );
    expect(add).toBe('--- /dev/null\n+++ b/dir/n.txt\n@@ -0,0 +1,2 @@\n+a\n+b\n');
    expect(del).toBe('--- a/old.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-x\n-y\n\\ No newline at end of file\n');
  });

  it('names the destination of a move and marks an unterminated last line in context or replaced', async () => {
    const [moved, appended] = await diffs(
      { 'a.txt': 'p\nq\nr', 'b.txt': 'p\nq' },
      patch('*** Update File: a.txt', '*** Move to: c.txt', '@@', '-p', '+P', '*** Update File: b.txt', '@@', '+z'),
    );
    expect(moved).toBe('--- a/a.txt\n+++ b/c.txt\n@@ -1,3 +1,3 @@\n-p\n+P\n q\n r\n\\ No newline at end of file\n');
    expect(appended).toBe('--- a/b.txt\n+++ b/b.txt\n@@ -1,2 +1,3 @@\n p\n-q\n\\ No newline at end of file\n+q\n+z\n');
  });

  it('produces diffs that git apply accepts and that reproduce the planned content', async () => {
    const dir = tempDir();
    const original = numbered(1, 40).join('\n') + '\nend';
    writeTree(dir, { 'f.txt': original });
    const plan = await planPatch(
      parsePatch(
        patch(
          '*** Update File: f.txt',
          '@@',
          '+top',
          ' l1',
          '@@',
          '-l7',
          '-l8',
          '+seven',
          '@@ l20',
          '-l21',
          '@@',
          '+tail',
        ),
      ),
      { cwd: dir },
    );
    const [file] = plan.files;
    if (!file) throw new Error('no planned file');
    writeFileSync(join(dir, 'change.diff'), unifiedDiffForFile(file).diff);
    execFileSync('git', ['apply', 'change.diff'], { cwd: dir });
    expect(readFileSync(join(dir, 'f.txt'), 'utf8')).toBe(file.newContent);
  });
});
