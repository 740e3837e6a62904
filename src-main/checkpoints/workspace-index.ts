/**
 * The last known state of every checkpointed path of one workspace, persisted (gzip JSON) so a new
 * process compares stats instead of hashing the whole project again. Every file entry with a hash
 * has its content in the blob store. Read and written without holding the event loop: the file is
 * (de)compressed on the thread pool and its entries are checked and serialized in slices.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzip, gzip } from 'node:zlib';
import { z } from 'zod';
import { EntrySchema, type Entry } from './types';
import { Slicer } from '../util/slicer';

// node:util through getBuiltinModule: its ES facade reads every export, loading util's diff and parseArgs.
const { promisify } = process.getBuiltinModule('node:util');

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

const IndexHeadSchema = z.object({ v: z.literal(1), root: z.string(), entries: z.record(z.string(), z.unknown()) });

export function indexFileFor(checkpointsDir: string, root: string): string {
  return join(checkpointsDir, 'workspaces', `${createHash('sha256').update(root).digest('hex').slice(0, 24)}.json.gz`);
}

/**
 * Reads a persisted index; an unreadable one is treated as absent (the next walk rebuilds it). `root`
 * null accepts any root (gc only wants the hashes). An entry that does not parse drops the whole index.
 */
export async function loadIndex(file: string, root: string | null): Promise<Map<string, Entry>> {
  let raw: unknown;
  try {
    raw = JSON.parse((await gunzipAsync(await readFile(file))).toString('utf8'));
  } catch {
    return new Map();
  }
  const head = IndexHeadSchema.safeParse(raw);
  if (!head.success || (root !== null && head.data.root !== root)) return new Map();
  const entries = new Map<string, Entry>();
  const slicer = new Slicer();
  for (const [path, value] of Object.entries(head.data.entries)) {
    const entry = EntrySchema.safeParse(value);
    if (!entry.success) return new Map();
    entries.set(path, entry.data);
    await slicer.pace();
  }
  return entries;
}

export async function saveIndex(file: string, root: string, entries: ReadonlyMap<string, Entry>): Promise<void> {
  // Serialized entry by entry (the same JSON as one stringify of the whole object), in slices.
  const parts: string[] = [];
  const slicer = new Slicer();
  for (const [path, entry] of entries) {
    parts.push(`${JSON.stringify(path)}:${JSON.stringify(entry)}`);
    await slicer.pace();
  }
  const text = `{"v":1,"root":${JSON.stringify(root)},"entries":{${parts.join(',')}}}`;
  const body = await gzipAsync(text, { level: 1 });
  await mkdir(join(file, '..'), { recursive: true });
  const tmp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(tmp, body, { mode: 0o600 });
  await rename(tmp, file);
}

/** Hashes an index file references (for garbage collection). */
export async function indexHashes(file: string): Promise<string[]> {
  const hashes: string[] = [];
  for (const entry of (await loadIndex(file, null)).values())
    if (entry.kind === 'file' && entry.hash !== null) hashes.push(entry.hash);
  return hashes;
}
