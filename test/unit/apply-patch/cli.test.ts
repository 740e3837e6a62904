import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { APPLY_PATCH_USAGE, runApplyPatchCli } from '../../../src-main/tools/apply-patch/cli';
import { patch, read, snapshot, tempDir, writeTree } from './helpers';

async function run(args: string[], cwd: string, stdinText?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  stdin.end(stdinText ?? '');
  const code = await runApplyPatchCli(args, { stdin, stdout, stderr, cwd });
  return { code, stdout: out, stderr: err };
}

describe('runApplyPatchCli', () => {
  it('applies a patch from stdin and prints the success text', async () => {
    const dir = tempDir();
    writeTree(dir, { 'a.txt': 'a\n' });
    const result = await run([], dir, patch('*** Update File: a.txt', '@@', '-a', '+b', '*** Add File: n.txt', '+n'));
    expect(result).toEqual({ code: 0, stdout: 'Success. Updated the following files:\nA n.txt\nM a.txt\n', stderr: '' });
    expect(read(dir, 'a.txt')).toBe('b\n');
  });

  it('applies a patch given as the first argument', async () => {
    const dir = tempDir();
    const result = await run([patch('*** Add File: x.txt', '+x')], dir);
    expect(result).toEqual({ code: 0, stdout: 'Success. Updated the following files:\nA x.txt\n', stderr: '' });
  });

  it('prints the error to stderr and exits 1 when the patch cannot be applied', async () => {
    const dir = tempDir();
    writeTree(dir, { 'a.txt': 'a\n' });
    const before = snapshot(dir);
    const result = await run([], dir, patch('*** Update File: a.txt', '@@', '-zzz', '+b'));
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^Failed to find expected lines in a\.txt:\nzzz\n.*\n\nNo files were changed: .*\n$/);
    expect(snapshot(dir)).toEqual(before);
    expect((await run(['not a patch'], dir)).stderr).toBe("invalid patch: The first line of the patch must be '*** Begin Patch'\n");
  });

  it('exits 2 with usage for no patch or too many arguments, and 0 with usage for --help', async () => {
    const dir = tempDir();
    expect(await run([], dir, '  \n')).toEqual({ code: 2, stdout: '', stderr: `weft apply-patch: the patch is empty.\n\n${APPLY_PATCH_USAGE}` });
    expect((await run(['a', 'b'], dir)).code).toBe(2);
    expect(await run(['--help'], dir)).toEqual({ code: 0, stdout: APPLY_PATCH_USAGE, stderr: '' });
  });
});
