// Reading work-tree files for the user: only regular files are opened, symlinks are reported, never
// followed, FIFOs never waited on, and nothing outside the root is reached.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { confinedPath, OutsideRootError, readWorkspaceEntry } from '../../../src-main/util/workspace-file';

const run = promisify(execFile);
let root: string | undefined;

afterEach(async () => {
  if (root !== undefined) await rm(root, { recursive: true, force: true });
  root = undefined;
});

async function workspace(): Promise<string> {
  root = await realpath(await mkdtemp(join(tmpdir(), 'weft-wsfile-')));
  return root;
}

describe('readWorkspaceEntry', () => {
  it('reads a regular file, reports a symlink and a FIFO without opening them, and caps the size', async () => {
    const dir = await workspace();
    await writeFile(join(dir, 'a.txt'), 'hello\n', { mode: 0o640 });
    await run('mkfifo', [join(dir, 'pipe')]);
    await symlink('pipe', join(dir, 'to-pipe'));
    await symlink('/etc/passwd', join(dir, 'to-passwd'));
    await mkdir(join(dir, 'sub'));
    expect(await readWorkspaceEntry(dir, 'a.txt', 100)).toEqual({
      kind: 'file',
      bytes: Buffer.from('hello\n'),
      mode: 0o640,
    });
    expect(await readWorkspaceEntry(dir, 'a.txt', 3)).toEqual({ kind: 'tooLarge', size: 6 });
    expect(await readWorkspaceEntry(dir, 'pipe', 100)).toEqual({ kind: 'other' });
    expect(await readWorkspaceEntry(dir, 'to-pipe', 100)).toEqual({ kind: 'symlink', target: 'pipe' });
    expect(await readWorkspaceEntry(dir, 'to-passwd', 100)).toEqual({ kind: 'symlink', target: '/etc/passwd' });
    expect(await readWorkspaceEntry(dir, 'sub', 100)).toEqual({ kind: 'other' });
    expect(await readWorkspaceEntry(dir, 'gone', 100)).toEqual({ kind: 'missing' });
  });

  it('refuses a path through a symlinked folder, an absolute path and ..', async () => {
    const dir = await workspace();
    await symlink('/etc', join(dir, 'etc-link'));
    await mkdir(join(dir, 'inner'));
    await symlink(dir, join(dir, 'inner/back'));
    for (const rel of ['etc-link/passwd', '/etc/passwd', '../x', 'inner/../../x'])
      await expect(readWorkspaceEntry(dir, rel, 100)).rejects.toBeInstanceOf(OutsideRootError);
    // A symlinked folder that stays inside the root is fine.
    await writeFile(join(dir, 'b.txt'), 'b');
    expect(await confinedPath(dir, 'inner/back/b.txt')).toBe(join(dir, 'b.txt'));
  });
});
