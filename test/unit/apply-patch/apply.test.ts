import { chmodSync, existsSync, readFileSync, statSync, symlinkSync, lstatSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyPatchText } from '../../../src-main/tools/apply-patch/index';
import { defaultMode, patch, read, snapshot, tempDir, writeTree } from './helpers';

describe('applyPatchText: successful patches', () => {
  it('adds, updates and deletes, reporting A/M/D in that order', async () => {
    const dir = tempDir();
    writeTree(dir, { 'a.txt': 'one\ntwo\nthree\n', 'gone.txt': 'bye\n' });
    const outcome = await applyPatchText(
      patch(
        '*** Delete File: gone.txt',
        '*** Update File: a.txt',
        '@@',
        ' one',
        '-two',
        '+TWO',
        '*** Add File: sub/dir/new.txt',
        '+hello',
        '+world',
      ),
      { cwd: dir },
    );
    expect(outcome.output).toBe('Success. Updated the following files:\nA sub/dir/new.txt\nM a.txt\nD gone.txt\n');
    expect(outcome.ok).toBe(true);
    const mode = defaultMode();
    expect(snapshot(dir)).toEqual({
      'a.txt': `${mode}:one\nTWO\nthree\n`,
      'sub/': 'dir',
      'sub/dir/': 'dir',
      'sub/dir/new.txt': `${mode}:hello\nworld\n`,
    });
  });

  it('moves a file, changing it on the way, and reports the destination', async () => {
    const dir = tempDir();
    writeTree(dir, { 'src/old.ts': ['export const a = 1;\nexport const b = 2;\n', 0o755] });
    const outcome = await applyPatchText(
      patch(
        '*** Update File: src/old.ts',
        '*** Move to: lib/new.ts',
        '@@',
        '-export const b = 2;',
        '+export const b = 3;',
      ),
      { cwd: dir },
    );
    expect(outcome.output).toBe('Success. Updated the following files:\nM lib/new.ts\n');
    expect(existsSync(join(dir, 'src/old.ts'))).toBe(false);
    expect(read(dir, 'lib/new.ts')).toBe('export const a = 1;\nexport const b = 3;\n');
    expect(statSync(join(dir, 'lib/new.ts')).mode & 0o777).toBe(0o755);
  });

  it('applies several chunks, chained @@ contexts picking the right occurrence', async () => {
    const dir = tempDir();
    writeTree(dir, {
      'm.py': [
        'class A:',
        '    def run(self):',
        '        return 1',
        'class B:',
        '    def run(self):',
        '        return 1',
        '',
      ].join('\n'),
    });
    const outcome = await applyPatchText(
      patch('*** Update File: m.py', '@@ class B:', '@@     def run(self):', '-        return 1', '+        return 2'),
      { cwd: dir },
    );
    expect(outcome.ok).toBe(true);
    expect(read(dir, 'm.py')).toBe(
      [
        'class A:',
        '    def run(self):',
        '        return 1',
        'class B:',
        '    def run(self):',
        '        return 2',
        '',
      ].join('\n'),
    );
  });

  it.each([
    ['trailing whitespace', 'value = 1   ', 'value = 1'],
    ['surrounding whitespace', '\t  value = 1', 'value = 1'],
    ['typographic punctuation', 'msg = \u201cit\u2019s \u2013 ok\u201d', 'msg = "it\'s - ok"'],
  ])('matches despite %s, keeping the file\u2019s own context lines', async (_name, fileLine, patchLine) => {
    const dir = tempDir();
    writeTree(dir, { 'f.txt': `before\n${fileLine}\nafter\n` });
    const outcome = await applyPatchText(patch('*** Update File: f.txt', '@@', ` ${patchLine}`, '-after', '+AFTER'), {
      cwd: dir,
    });
    expect(outcome.ok).toBe(true);
    expect(read(dir, 'f.txt')).toBe(`before\n${fileLine}\nAFTER\n`);
  });

  it('anchors an End of File chunk at the end, and appends a pure addition', async () => {
    const dir = tempDir();
    writeTree(dir, { 'e.txt': 'x\nend\nx\nend\n', 'p.txt': 'a\nb\n', 'q.txt': 'a\n\n' });
    const outcome = await applyPatchText(
      patch(
        '*** Update File: e.txt',
        '@@',
        ' x',
        '-end',
        '+END',
        '*** End of File',
        '*** Update File: p.txt',
        '@@',
        '+c',
        '+d',
        '*** Update File: q.txt',
        '@@ a',
        '+b',
      ),
      { cwd: dir },
    );
    expect(outcome.ok).toBe(true);
    expect(read(dir, 'e.txt')).toBe('x\nend\nx\nEND\n');
    expect(read(dir, 'p.txt')).toBe('a\nb\nc\nd\n');
    // Codex's rule: a pure addition goes before a final blank line.
    expect(read(dir, 'q.txt')).toBe('a\nb\n\n');
  });

  it('keeps CRLF files CRLF and untouched lines byte for byte', async () => {
    const dir = tempDir();
    writeTree(dir, { 'w.txt': 'one\r\ntwo\r\nthree\r\n', 'mixed.txt': 'a\r\nb\nc\r\nd\r\n' });
    const outcome = await applyPatchText(
      patch(
        '*** Update File: w.txt',
        '@@',
        ' one',
        '-two',
        '+2',
        '+2.5',
        '*** Update File: mixed.txt',
        '@@',
        '-d',
        '+D',
      ),
      { cwd: dir },
    );
    expect(outcome.ok).toBe(true);
    expect(read(dir, 'w.txt')).toBe('one\r\n2\r\n2.5\r\nthree\r\n');
    expect(read(dir, 'mixed.txt')).toBe('a\r\nb\nc\r\nD\r\n');
  });

  it('accepts a patch with CRLF line ends', async () => {
    const dir = tempDir();
    writeTree(dir, { 'f.txt': 'a\nb\n' });
    const outcome = await applyPatchText(patch('*** Update File: f.txt', '@@', '-b', '+B').replaceAll('\n', '\r\n'), {
      cwd: dir,
    });
    expect(outcome.ok).toBe(true);
    expect(read(dir, 'f.txt')).toBe('a\nB\n');
  });

  it('preserves the mode of an updated file, a missing final newline when the end is untouched, and a BOM', async () => {
    const dir = tempDir();
    writeTree(dir, {
      'run.sh': ['#!/bin/sh\necho hi\n', 0o750],
      'n.txt': 'a\nb\nc',
      'bom.txt': '\uFEFFfirst\nsecond\n',
    });
    const outcome = await applyPatchText(
      patch(
        '*** Update File: run.sh',
        '@@',
        '-echo hi',
        '+echo bye',
        '*** Update File: n.txt',
        '@@',
        '-a',
        '+A',
        '*** Update File: bom.txt',
        '@@',
        '-first',
        '+FIRST',
      ),
      { cwd: dir },
    );
    expect(outcome.ok).toBe(true);
    const mode = defaultMode();
    expect(snapshot(dir)).toEqual({
      'run.sh': '750:#!/bin/sh\necho bye\n',
      'n.txt': `${mode}:A\nb\nc`,
      'bom.txt': `${mode}:\uFEFFFIRST\nsecond\n`,
    });
  });

  it('ends the file with a newline when a hunk reaches the unterminated end', async () => {
    const dir = tempDir();
    writeTree(dir, { 'n.txt': 'a\nb', 'm.txt': 'a\nb' });
    const outcome = await applyPatchText(
      patch('*** Update File: n.txt', '@@', '-b', '+B', '*** Update File: m.txt', '@@', '+c'),
      { cwd: dir },
    );
    expect(outcome.ok).toBe(true);
    expect(read(dir, 'n.txt')).toBe('a\nB\n');
    expect(read(dir, 'm.txt')).toBe('a\nb\nc\n');
  });

  it('tolerates a trailing blank context line that is only a separator', async () => {
    const dir = tempDir();
    writeTree(dir, { 'f.txt': 'a\nb\n' });
    const outcome = await applyPatchText(patch('*** Update File: f.txt', '@@', ' a', '-b', '+B', ''), { cwd: dir });
    expect(outcome.ok).toBe(true);
    expect(read(dir, 'f.txt')).toBe('a\nB\n');
  });

  it('writes through a symlink, leaving the link in place', async () => {
    const dir = tempDir();
    writeTree(dir, { 'real.txt': 'x\n' });
    symlinkSync('real.txt', join(dir, 'link.txt'));
    const outcome = await applyPatchText(patch('*** Update File: link.txt', '@@', '-x', '+y'), { cwd: dir });
    expect(outcome.ok).toBe(true);
    expect(lstatSync(join(dir, 'link.txt')).isSymbolicLink()).toBe(true);
    expect(read(dir, 'real.txt')).toBe('y\n');
  });

  it('accepts absolute paths, a heredoc wrapper, and an `apply_patch <<EOF` script with cd', async () => {
    const dir = tempDir();
    writeTree(dir, { 'sub/f.txt': 'a\n' });
    const absolute = await applyPatchText(patch(`*** Update File: ${join(dir, 'sub/f.txt')}`, '@@', '-a', '+b'), {
      cwd: '/',
    });
    expect(absolute.ok).toBe(true);
    const heredoc = await applyPatchText(`<<'EOF'\n${patch('*** Update File: sub/f.txt', '@@', '-b', '+c')}EOF\n`, {
      cwd: dir,
    });
    expect(heredoc.ok).toBe(true);
    const script = await applyPatchText(
      `cd sub && apply_patch <<'EOF'\n${patch('*** Update File: f.txt', '@@', '-c', '+d')}EOF\n`,
      {
        cwd: dir,
      },
    );
    expect(script.output).toBe('Success. Updated the following files:\nM f.txt\n');
    expect(read(dir, 'sub/f.txt')).toBe('d\n');
  });

  it('overwrites an existing file on add, as Codex does', async () => {
    const dir = tempDir();
    writeTree(dir, { 'f.txt': ['old\n', 0o600] });
    const outcome = await applyPatchText(patch('*** Add File: f.txt', '+new'), { cwd: dir });
    expect(outcome.output).toBe('Success. Updated the following files:\nA f.txt\n');
    expect(snapshot(dir)).toEqual({ 'f.txt': '600:new\n' });
  });
});

describe('applyPatchText: failures change nothing', () => {
  const files = { 'a.txt': 'a1\na2\na3\n', 'b.txt': 'b1\nb2\n', 'c.txt': 'c1\nc2\n' };

  it('a failing third hunk leaves every file untouched and says which hunk failed', async () => {
    const dir = tempDir();
    writeTree(dir, files);
    const before = snapshot(dir);
    const outcome = await applyPatchText(
      patch(
        '*** Update File: a.txt',
        '@@',
        '-a1',
        '+A1',
        '@@',
        '-a3',
        '+A3',
        '*** Delete File: b.txt',
        '*** Update File: c.txt',
        '@@',
        '-c1',
        '+C1',
        '@@',
        '-nope',
        '+NOPE',
        '*** Add File: d.txt',
        '+d',
      ),
      { cwd: dir },
    );
    expect(outcome).toEqual({
      ok: false,
      output:
        'Failed to find expected lines in c.txt:\nnope\n(hunk 2 of 2 for c.txt, patch line 14)\n\n' +
        'No files were changed: apply_patch checks every hunk before writing anything. Fix the problem above and send the whole patch again.',
    });
    expect(snapshot(dir)).toEqual(before);
  });

  it('reports every failing file at once', async () => {
    const dir = tempDir();
    writeTree(dir, files);
    const outcome = await applyPatchText(
      patch(
        '*** Update File: a.txt',
        '@@ missing',
        '-a1',
        '+x',
        '*** Delete File: zzz.txt',
        '*** Update File: nowhere.txt',
        '@@',
        '-x',
        '+y',
      ),
      { cwd: dir },
    );
    expect(outcome.ok).toBe(false);
    expect(outcome.output.split('\n\n')).toEqual([
      "Failed to find context 'missing' in a.txt\n(hunk 1 of 1 for a.txt, patch line 3)",
      'Failed to delete file zzz.txt: the file does not exist (patch line 6)',
      'Failed to read file to update nowhere.txt: the file does not exist (patch line 7)',
      'No files were changed: apply_patch checks every hunk before writing anything. Fix the problem above and send the whole patch again.',
    ]);
  });

  it('explains a hunk whose lines occur before the position reached', async () => {
    const dir = tempDir();
    writeTree(dir, files);
    const outcome = await applyPatchText(patch('*** Update File: a.txt', '@@', '-a3', '+x', '@@', '-a1', '+y'), {
      cwd: dir,
    });
    expect(outcome.output).toContain(
      'Failed to find expected lines in a.txt:\na1\n(These lines do occur at line 1, above line 4 where the search for this hunk began',
    );
  });

  it('rejects an End of File hunk whose lines are not at the end', async () => {
    const dir = tempDir();
    writeTree(dir, files);
    const outcome = await applyPatchText(patch('*** Update File: a.txt', '@@', '-a1', '+x', '*** End of File'), {
      cwd: dir,
    });
    expect(outcome.output).toContain("(These lines occur at line 1, but the hunk ends with '*** End of File'");
  });

  it('rejects parse errors, empty patches, directories, binary files and files named twice', async () => {
    const dir = tempDir();
    writeTree(dir, { ...files, 'sub/x': 'x\n' });
    writeFileSync(join(dir, 'bin.dat'), Buffer.from([0xff, 0xfe, 0x00, 0x80]));
    const before = snapshot(dir);
    const run = async (text: string): Promise<string> => {
      const outcome = await applyPatchText(text, { cwd: dir });
      expect(outcome.ok).toBe(false);
      return outcome.output;
    };
    expect(await run('*** Begin Patch\n*** Frobnicate: x\n*** End Patch')).toMatch(
      /^invalid hunk at line 2, '\*\*\* Frobnicate: x' is not/,
    );
    expect(await run(patch())).toBe('No files were modified.');
    expect(await run(patch('*** Update File: sub', '@@', '-x', '+y'))).toMatch(
      /^Failed to read file to update sub: it is a directory/,
    );
    expect(await run(patch('*** Update File: bin.dat', '@@', '-x', '+y'))).toMatch(
      /^Failed to read file to update bin.dat: it is not UTF-8 text/,
    );
    expect(await run(patch('*** Add File: sub', '+x'))).toMatch(/^Failed to write file sub: it is a directory/);
    expect(await run(patch('*** Update File: a.txt', '@@', '-a1', '+x', '*** Delete File: a.txt'))).toMatch(
      /^The patch changes a\.txt in two sections \(patch lines 2 and 6\)\. Put all changes to one file in a single section\.\n/,
    );
    expect(
      await run(patch('*** Update File: b.txt', '*** Move to: c.txt', '@@', '-b1', '+x', '*** Delete File: ./c.txt')),
    ).toBe(
      `The patch changes ${join(dir, 'c.txt')} (as 'c.txt' and './c.txt') in two sections (patch lines 2 and 7). ` +
        'Put all changes to one file in a single section.\n\nNo files were changed: apply_patch checks every hunk before writing ' +
        'anything. Fix the problem above and send the whole patch again.',
    );
    expect(snapshot(dir)).toEqual(before);
  });

  it('refuses paths isWritable rejects, writing nothing', async () => {
    const dir = tempDir();
    writeTree(dir, files);
    const before = snapshot(dir);
    const outcome = await applyPatchText(
      patch('*** Update File: a.txt', '@@', '-a1', '+x', '*** Add File: ../outside.txt', '+o'),
      {
        cwd: dir,
        isWritable: (absPath) => (absPath.startsWith(dir + '/') ? null : 'it is outside the writable roots'),
      },
    );
    expect(outcome).toEqual({
      ok: false,
      output: 'Refused to write ../outside.txt: it is outside the writable roots\nNo files were changed.',
    });
    expect(snapshot(dir)).toEqual(before);
  });

  it('rolls back files already written when a later write fails', async () => {
    const dir = tempDir();
    writeTree(dir, { 'a.txt': ['a1\n', 0o640] });
    const outcome = await applyPatchText(
      patch(
        '*** Update File: a.txt',
        '@@',
        '-a1',
        '+A1',
        '*** Add File: new/x.txt',
        '+x',
        '*** Add File: ro/y.txt',
        '+y',
      ),
      { cwd: dir },
    );
    expect(outcome.ok).toBe(true);
    // Now make the third write fail (a file where a directory must go) and reverse the first two.
    writeTree(dir, { blocker: 'file\n' });
    const before = snapshot(dir);
    const failing = await applyPatchText(
      patch(
        '*** Update File: a.txt',
        '@@',
        '-A1',
        '+a2',
        '*** Add File: more/z.txt',
        '+z',
        '*** Add File: blocker/y.txt',
        '+y',
      ),
      { cwd: dir },
    );
    expect(failing.ok).toBe(false);
    expect(failing.output).toMatch(
      /^Failed to create parent directories for blocker\/y\.txt: .*\nThe changes already made were undone; no files were changed\.$/,
    );
    expect(snapshot(dir)).toEqual(before);
  });

  it('does not overwrite a file changed on disk after planning', async () => {
    const { preparePatchText, commitPreparedPlan } = await import('../../../src-main/tools/apply-patch/index');
    const dir = tempDir();
    writeTree(dir, files);
    const prepared = await preparePatchText(
      patch('*** Update File: a.txt', '@@', '-a1', '+x', '*** Add File: b2.txt', '+b'),
      { cwd: dir },
    );
    if (!prepared.ok) throw new Error(prepared.output);
    writeFileSync(join(dir, 'a.txt'), 'edited meanwhile, longer\n');
    const outcome = await commitPreparedPlan(prepared.plan);
    expect(outcome).toEqual({
      ok: false,
      output:
        'a.txt changed on disk after the patch was checked, so no files were changed. Read the current contents and send the patch again.',
    });
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('edited meanwhile, longer\n');
    expect(existsSync(join(dir, 'b2.txt'))).toBe(false);
  });

  // Root ignores directory permissions, so this can only be checked as another user.
  it.skipIf(process.getuid?.() === 0)('reports an unwritable directory as a failure without throwing', async () => {
    const dir = tempDir();
    writeTree(dir, { 'locked/f.txt': 'a\n', 'ok.txt': 'o\n' });
    chmodSync(join(dir, 'locked'), 0o555);
    try {
      const outcome = await applyPatchText(
        patch('*** Update File: ok.txt', '@@', '-o', '+O', '*** Update File: locked/f.txt', '@@', '-a', '+b'),
        {
          cwd: dir,
        },
      );
      expect(outcome.ok).toBe(false);
      expect(outcome.output).toMatch(/^Failed to write file locked\/f\.txt: permission denied\n/);
      expect(read(dir, 'ok.txt')).toBe('o\n');
    } finally {
      chmodSync(join(dir, 'locked'), 0o755);
    }
  });
});
