/**
 * The journal of one restore: `checkpoints/restores/<id>.json`, replaced whole (temp + rename, fsynced)
 * at each stage. `staging`: files are being staged, nothing in the workspace changed yet. `applying`:
 * the steps (`ops`) are being carried out. `applied`: every step is done; only the thread's revert
 * (`thread`: drop `beforeTurnId` and every later turn) is still to be written. The journal names the
 * process that writes it, so a second process starting meanwhile leaves a live restore alone.
 */
import { readFileSync } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';

const KindSchema = z.enum(['file', 'symlink', 'dir']);
export type Kind = z.infer<typeof KindSchema>;

/**
 * One step. `expect`: what the plan saw at `path` (the tracker's entry); a step never replaces anything
 * else. `backup`/`stage`: names inside the staging folder.
 */
export const OpSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('place'),
    path: z.string(),
    stage: z.string(),
    backup: z.string(),
    expect: KindSchema.nullable(),
  }),
  z.object({ kind: z.literal('remove'), path: z.string(), backup: z.string(), expect: KindSchema }),
  z.object({ kind: z.literal('rmdir'), path: z.string() }),
  /** `implicit`: a parent folder the restore needs; an existing folder there is left as it is. */
  z.object({ kind: z.literal('mkdir'), path: z.string(), mode: z.int(), implicit: z.boolean() }),
  z.object({ kind: z.literal('chmod'), path: z.string(), mode: z.int(), oldMode: z.int() }),
]);
export type Op = z.infer<typeof OpSchema>;

/** Drop `beforeTurnId` and the turns after it: `turns` of them in all when the revert began. */
export const ThreadRevertSchema = z.object({ threadId: z.string(), beforeTurnId: z.string(), turns: z.int() });
export type ThreadRevert = z.infer<typeof ThreadRevertSchema>;

const OwnerSchema = z.object({ pid: z.int(), start: z.string() });

export const JournalSchema = z.object({
  v: z.literal(2),
  id: z.string(),
  root: z.string(),
  state: z.enum(['staging', 'applying', 'applied']),
  ops: z.array(OpSchema),
  thread: ThreadRevertSchema.nullable(),
  owner: OwnerSchema,
});
export type Journal = z.infer<typeof JournalSchema>;

/** This process, as a journal names its owner. */
export function currentOwner(): Journal['owner'] {
  return { pid: process.pid, start: startTimeOf(process.pid) ?? '' };
}

/** Whether the process that wrote a journal still runs (then its restore is not ours to finish). */
export function ownerAlive(owner: Journal['owner']): boolean {
  if (owner.pid === process.pid) return owner.start === currentOwner().start;
  const start = startTimeOf(owner.pid);
  if (start !== null) return start === owner.start;
  if (process.platform === 'linux') return false;
  try {
    process.kill(owner.pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The kernel's start time of a process (Linux), so a reused pid is not taken for the writer. */
function startTimeOf(pid: number): string | null {
  try {
    // eslint-disable-next-line weft/no-sync-fs -- /proc/<pid>/stat (a few hundred bytes, never on disk): once per restore and per journal found at start-up
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

export function journalFile(dir: string, id: string): string {
  return join(dir, `${id}.json`);
}

export async function writeJournal(dir: string, journal: Journal): Promise<void> {
  await mkdir(dir, { recursive: true });
  const file = journalFile(dir, journal.id);
  const tmp = `${file}.tmp`;
  const handle = await open(tmp, 'w', 0o600);
  try {
    await handle.writeFile(JSON.stringify(journal));
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(tmp, file);
  const folder = await open(dir, 'r');
  try {
    await folder.sync();
  } finally {
    await folder.close();
  }
}

export async function removeJournal(dir: string, id: string): Promise<void> {
  try {
    await unlink(journalFile(dir, id));
  } catch {
    /* already gone */
  }
}

/** Every journal in `dir`; unreadable ones are dropped (they were never complete: written by rename). */
export async function readJournals(dir: string): Promise<Journal[]> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((name) => name.endsWith('.json'));
  } catch {
    return [];
  }
  const journals: Journal[] = [];
  for (const name of names) {
    const file = join(dir, name);
    try {
      journals.push(JournalSchema.parse(JSON.parse(await readFile(file, 'utf8'))));
    } catch {
      try {
        await unlink(file);
      } catch {
        /* already gone */
      }
    }
  }
  return journals;
}
