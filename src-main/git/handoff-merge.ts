// A three-way merge of one text file for a handoff: `git merge-file` (git's own line merge, which runs no
// program a repository names) on three temporary files. Only a clean merge is used; overlapping changes are
// a conflict the person decides.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { git } from '../safety/git/run';

/**
 * `ours` and `theirs` both changed `base`: the text with both changes, or null when they overlap. `cwd` is
 * any folder git may start in (the repository's).
 */
export async function mergeText(cwd: string, base: string, ours: string, theirs: string): Promise<string | null> {
  const dir = await mkdtemp(join(tmpdir(), 'weft-merge-'));
  try {
    const a = join(dir, 'ours');
    const b = join(dir, 'base');
    const c = join(dir, 'theirs');
    await Promise.all([writeFile(a, ours), writeFile(b, base), writeFile(c, theirs)]);
    // The exit status is the number of conflicts (capped at 127); 0 is a clean merge.
    const out = await git(cwd, ['merge-file', '-p', '-q', a, b, c], {
      okExitCodes: Array.from({ length: 127 }, (_, i) => i + 1),
    });
    return out.exitCode === 0 ? out.stdout : null;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
