// The files a thread keeps beside its rollout (`<rollout without .jsonl>.files/`: the browser's screenshots).
// They follow the rollout: archiving moves the folder with it, unarchiving moves it back. A fork gets hard
// links (copies across file systems) of its source's files in its own folder, and a screenshot item read
// from a rollout names the file in that rollout's own folder, wherever it was recorded: items copied into a
// fork, or recorded before the thread was archived, still show their images.
import { existsSync, renameSync } from 'node:fs';
import { copyFile, link, mkdir, readdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** The folder of a rollout's files. */
export function threadFilesDir(rollout: string): string {
  return `${rollout.replace(/\.jsonl$/, '')}.files`;
}

/** Moves the files of the rollout at `from` to the folder of `to` (as the rollout is moved, under its lock). */
export function moveThreadFiles(from: string, to: string): void {
  const source = threadFilesDir(from);
  // eslint-disable-next-line weft/no-sync-fs -- one rename, inside the store's synchronous move of the rollout
  if (existsSync(source)) renameSync(source, threadFilesDir(to));
}

/** Gives the fork at `to` the files of its source `from` (hard links; copies across file systems). */
export async function linkThreadFiles(from: string, to: string): Promise<void> {
  const source = threadFilesDir(from);
  const names = await readdir(source).catch(() => []);
  if (names.length === 0) return;
  const target = threadFilesDir(to);
  await mkdir(target, { recursive: true });
  for (const name of names) {
    await link(join(source, name), join(target, name)).catch(async (error: unknown) => {
      if (error instanceof Error && 'code' in error && error.code === 'EEXIST') return;
      await copyFile(join(source, name), join(target, name));
    });
  }
}

/** A screenshot kept beside some rollout: `…/<rollout>.files/browser-<id>.png`. */
const KEPT_SCREENSHOT = /\.files$/;

/**
 * Where the screenshot recorded at `recorded` is for the thread whose rollout is `rollout`: the file of
 * the same name in that rollout's own folder (the folder it was recorded in may have moved since, or
 * belong to the thread a fork was copied from). Other paths (an unsaved thread's temporary folder) are kept.
 */
export function ownScreenshotPath(recorded: string, rollout: string): string {
  if (!rollout.endsWith('.jsonl') || !KEPT_SCREENSHOT.test(dirname(recorded))) return recorded;
  return join(threadFilesDir(rollout), basename(recorded));
}
