// The `fileChange` trigger without a running host: `weft automations due` compares a digest of the watched
// folder (each file's path, size and modification time; `.git` aside, links not followed) with the one the
// automation's history last recorded. The first look records it and owes nothing; a different digest owes
// one run. The digest is recorded again after every run of the automation, so what the run itself wrote
// (a local run's changes) and what changed while it ran start nothing, as for the host's watcher.
import { createHash } from 'node:crypto';
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { lastFiles, recordFiles } from './history';
import type { Automation } from './record';

/**
 * At most this many entries are looked at: beyond, the rest of a huge tree (a vendored dependency folder)
 * is not, and a change there is not seen. A minute's timer must not spend minutes walking files.
 */
export const MAX_SNAPSHOT_ENTRIES = 100_000;
/** lstat calls in flight at once. */
const BATCH = 64;

/** The folder a `fileChange` automation watches; null for another trigger. */
export function watchedFolder(automation: Automation): string | null {
  return automation.trigger.type === 'fileChange' ? join(automation.project, automation.trigger.path ?? '') : null;
}

/** The digest of the files under `dir`; null when it is not a folder that can be read. */
export async function filesDigest(dir: string): Promise<string | null> {
  const hash = createHash('sha256');
  let seen = 0;
  const walk = async (rel: string): Promise<boolean> => {
    const entries = await readdir(join(dir, rel), { withFileTypes: true }).catch(() => null);
    if (entries === null) return rel !== '';
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const files: string[] = [];
    const folders: string[] = [];
    for (const entry of entries) {
      if (entry.name === '.git') continue;
      const path = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) folders.push(path);
      else files.push(path);
    }
    for (let i = 0; i < files.length && seen < MAX_SNAPSHOT_ENTRIES; i += BATCH) {
      const batch = files.slice(i, Math.min(i + BATCH, i + MAX_SNAPSHOT_ENTRIES - seen));
      seen += batch.length;
      const stats = await Promise.all(batch.map((f) => lstat(join(dir, f)).catch(() => null)));
      batch.forEach((f, j) => {
        const s = stats[j];
        hash.update(`${f}\0${s === null || s === undefined ? '-' : `${s.size}\0${s.mtimeMs}`}\n`);
      });
    }
    for (const folder of folders) {
      if (seen >= MAX_SNAPSHOT_ENTRIES) break;
      seen += 1;
      hash.update(`${folder}/\n`);
      await walk(folder);
    }
    return true;
  };
  return (await walk('')) ? hash.digest('hex') : null;
}

/**
 * Whether a `fileChange` automation is owed a run because its files changed since the digest last
 * recorded. The first look records the digest and owes nothing; a folder that cannot be read owes nothing.
 */
export async function filesChanged(weftHome: string, automation: Automation, now: number): Promise<boolean> {
  const dir = watchedFolder(automation);
  if (!automation.enabled || dir === null) return false;
  const digest = await filesDigest(dir);
  if (digest === null) return false;
  const last = await lastFiles(weftHome, automation.id);
  if (last === null) {
    await recordFiles(weftHome, automation.id, digest, now);
    return false;
  }
  return digest !== last;
}

/** Records the digest of a `fileChange` automation's files as they are now (after one of its runs). */
export async function recordFilesNow(weftHome: string, automation: Automation, now: number): Promise<void> {
  const dir = watchedFolder(automation);
  if (dir === null) return;
  const digest = await filesDigest(dir);
  if (digest !== null) await recordFiles(weftHome, automation.id, digest, now);
}

/**
 * Read under the run's lock before a `fileChange` run: false when the files are as recorded after the
 * last run (another process ran for this change just now, or the change was undone).
 */
export async function filesStillChanged(weftHome: string, automation: Automation): Promise<boolean> {
  const dir = watchedFolder(automation);
  if (dir === null) return true;
  const last = await lastFiles(weftHome, automation.id);
  return last === null || (await filesDigest(dir)) !== last;
}
