import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { APPLY_PATCH_USAGE, runApplyPatchCli } from '../../../src-main/cli/apply-patch';
import { patch, read, snapshot, tempDir, writeTree } from '../apply-patch/helpers';

async function run(
  args: string[],
  cwd: string,
  stdinText?: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
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
    expect(result).toEqual({
      code: 0,
      stdout: 'Success. Updated the following files:\nA n.txt\nM a.txt\n',
      stderr: '',
    });
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
    expect((await run(['not a patch'], dir)).stderr).toBe(
      "invalid patch: The first line of the patch must be '*** Begin Patch'\n",
    );
  });

  it('exits 2 with usage for no patch or too many arguments, and 0 with usage for --help', async () => {
    const dir = tempDir();
    expect(await run([], dir, '  \n')).toEqual({
      code: 2,
      stdout: '',
      stderr: `weft apply-patch: the patch is empty.\n\n${APPLY_PATCH_USAGE}`,
    });
    expect((await run(['a', 'b'], dir)).code).toBe(2);
    expect(await run(['--help'], dir)).toEqual({ code: 0, stdout: APPLY_PATCH_USAGE, stderr: '' });
  });
});

describe('weft apply-patch stays inside the current directory', () => {
  it('refuses every hostile patch and changes nothing outside (or in .git)', async () => {
    const base = tempDir();
    const dir = join(base, 'ws');
    const outside = join(base, 'outside');
    writeTree(base, {
      'ws/a.txt': 'a\n',
      'ws/.git/config': '[core]\n',
      'ws/sub/b.txt': 'b\n',
      'outside/victim.txt': 'original\n',
    });
    symlinkSync(outside, join(dir, 'link'));
    symlinkSync(join(outside, 'victim.txt'), join(dir, 'victim-link.txt'));
    const state = (): unknown => ({
      outside: snapshot(outside),
      git: snapshot(join(dir, '.git')),
      sub: snapshot(join(dir, 'sub')),
      a: read(dir, 'a.txt'),
    });
    const before = state();
    const hostile = [
      ['*** Add File: ../outside/new.txt', '+x'],
      ['*** Add File: ../../escape.txt', '+x'],
      [`*** Add File: ${join(outside, 'abs.txt')}`, '+x'],
      [`*** Update File: ${join(outside, 'victim.txt')}`, '@@', '-original', '+pwned'],
      ['*** Delete File: ../outside/victim.txt'],
      ['*** Add File: sub/../../outside/new.txt', '+x'],
      ['*** Add File: link/new.txt', '+x'],
      ['*** Update File: link/victim.txt', '@@', '-original', '+pwned'],
      ['*** Update File: victim-link.txt', '@@', '-original', '+pwned'],
      ['*** Add File: .git/hooks/pre-commit', '+#!/bin/sh'],
      ['*** Update File: .git/config', '@@', '-[core]', '+[core] fsmonitor = evil'],
      ['*** Add File: sub/.git/config', '+x'],
      ['*** Update File: a.txt', '*** Move to: ../outside/moved.txt', '@@', '-a', '+a'],
      ['*** Update File: a.txt', '*** Move to: link/moved.txt', '@@', '-a', '+a'],
    ];
    for (const lines of hostile) {
      const result = await run([patch(...lines)], dir);
      expect({ lines, code: result.code }).toEqual({ lines, code: 1 });
      expect(result.stderr).toMatch(/Refused to write/);
    }
    expect(state()).toEqual(before);
  });

  it('--root widens where it may write', async () => {
    const base = tempDir();
    writeTree(base, { 'ws/a.txt': 'a\n' });
    const result = await run(['--root', base, patch('*** Add File: ../sibling.txt', '+s')], join(base, 'ws'));
    expect(result).toEqual({
      code: 0,
      stdout: 'Success. Updated the following files:\nA ../sibling.txt\n',
      stderr: '',
    });
    expect(read(base, 'sibling.txt')).toBe('s\n');
  });
});
