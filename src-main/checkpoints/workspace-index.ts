/**
 * The last known state of every checkpointed path of one workspace, persisted (gzip JSON) so a new
 * process compares stats instead of hashing the whole project again. Every file entry with a hash
 * has its content in the blob store.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { z } from 'zod';
import { EntrySchema, type Entry } from './types';

const IndexFileSchema = z.object({ v: z.literal(1), root: z.string(), entries: z.record(z.string(), EntrySchema) });

export function indexFileFor(checkpointsDir: string, root: string): string {
  return join(checkpointsDir, 'workspaces', `${createHash('sha256').update(root).digest('hex').slice(0, 24)}.json.gz`);
}

/** Reads a persisted index; an unreadable one is treated as absent (the next walk rebuilds it). */
export function loadIndex(file: string, root: string): Map<string, Entry> {
  try {
    const parsed = IndexFileSchema.safeParse(JSON.parse(gunzipSync(readFileSync(file)).toString('utf8')));
    if (!parsed.success || parsed.data.root !== root) return new Map();
    return new Map(Object.entries(parsed.data.entries));
  } catch {
    return new Map();
  }
}

export function saveIndex(file: string, root: string, entries: ReadonlyMap<string, Entry>): void {
  const body = gzipSync(JSON.stringify({ v: 1, root, entries: Object.fromEntries(entries) }), { level: 1 });
  mkdirSync(join(file, '..'), { recursive: true });
  const tmp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(tmp, body, { mode: 0o600 });
  renameSync(tmp, file);
}

/** Hashes an index file references (for garbage collection). */
export function indexHashes(file: string): string[] {
  try {
    const parsed = IndexFileSchema.safeParse(JSON.parse(gunzipSync(readFileSync(file)).toString('utf8')));
    if (!parsed.success) return [];
    const hashes: string[] = [];
    for (const entry of Object.values(parsed.data.entries))
      if (entry.kind === 'file' && entry.hash !== null) hashes.push(entry.hash);
    return hashes;
  } catch {
    return [];
  }
}
