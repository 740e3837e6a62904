// apply_patch against a folder swapped for a symlink while the patch is written: a background process
// exchanges `d` (a folder in the workspace) and `link` (a symlink to a folder outside) as fast as it can
// with renameat2(RENAME_EXCHANGE). However the race falls, nothing may land outside the workspace.
import { spawn, spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, realpath, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isPathWritable, writableRootsFor } from '../../src-main/safety/sandbox/writable-roots';
import { applyPatchText } from '../../src-main/tools/apply-patch';

const TRIES = 300;
/** Tries at most, when the race has not yet gone both ways after TRIES. */
const MAX_TRIES = 5_000;
const SWAPPER = `
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD, RENAME_EXCHANGE = -100, 2
os.chdir(sys.argv[1])
print('swapping', flush=True)
while True:
    libc.renameat2(AT_FDCWD, b'd', AT_FDCWD, b'link', RENAME_EXCHANGE)
`;
const havePython =
  spawnSync('python3', ['-c', 'import ctypes; ctypes.CDLL(None).renameat2'], { encoding: 'utf8' }).status === 0;

let base: string;
let ws: string;
let outside: string;

beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'weft-race-')));
  ws = join(base, 'ws');
  outside = join(base, 'outside');
  await mkdir(join(ws, 'd'), { recursive: true });
  await mkdir(outside);
  await symlink(outside, join(ws, 'link'));
});
afterEach(() => rm(base, { recursive: true, force: true }));

describe.skipIf(process.platform !== 'linux' || !havePython)(
  'apply_patch while a folder is swapped for a symlink',
  () => {
    it(`writes nothing outside the workspace in ${TRIES} tries`, async () => {
      const roots = writableRootsFor(
        { type: 'workspaceWrite', excludeSlashTmp: true, excludeTmpdirEnvVar: true },
        ws,
        {},
      );
      const mayWrite = (real: string): string | null =>
        isPathWritable(real, roots) ? null : 'outside the writable folders';
      const swapper = spawn('python3', ['-c', SWAPPER, ws], { stdio: ['ignore', 'pipe', 'inherit'] });
      await new Promise<void>((resolve) => swapper.stdout.once('data', () => resolve()));
      let applied = 0;
      let refused = 0;
      try {
        // At least TRIES, and on until the race has gone both ways: on a loaded machine the swapper's and
        // the writer's time slices can fall so that hundreds of tries in a row meet the symlink.
        for (let i = 0; i < MAX_TRIES && (i < TRIES || applied === 0 || refused === 0); i++) {
          const outcome = await applyPatchText(`*** Begin Patch\n*** Add File: d/x${i}\n+x\n*** End Patch`, {
            cwd: ws,
            isWritable: (p) => (isPathWritable(p, roots) ? null : 'outside'),
            mayWrite,
          });
          if (outcome.ok) applied++;
          else refused++;
        }
      } finally {
        swapper.kill('SIGKILL');
      }
      expect(await readdir(outside)).toEqual([]);
      // The race was real: some patches went through (into the workspace), some were refused.
      expect(applied).toBeGreaterThan(0);
      expect(refused).toBeGreaterThan(0);
    });
  },
);
