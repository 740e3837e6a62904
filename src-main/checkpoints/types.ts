/**
 * What a checkpoint remembers about one path of a workspace, and the on-disk records that tie
 * changes to threads and turns. Paths are relative to the workspace root, `/`-separated, never `..`.
 */
import { z } from 'zod';

/** A regular file. `hash` is the sha256 of its content in the blob store; null when it was too large to keep. */
export const FileEntrySchema = z.object({
  kind: z.literal('file'),
  mode: z.int(),
  size: z.number(),
  mtimeMs: z.number(),
  ino: z.number(),
  hash: z.string().nullable(),
});
export const SymlinkEntrySchema = z.object({
  kind: z.literal('symlink'),
  target: z.string(),
  mtimeMs: z.number(),
  ino: z.number(),
});
export const DirEntrySchema = z.object({ kind: z.literal('dir'), mode: z.int() });
export const EntrySchema = z.discriminatedUnion('kind', [FileEntrySchema, SymlinkEntrySchema, DirEntrySchema]);

export type Entry = z.infer<typeof EntrySchema>;

/** One path's change; null on a side means the path did not exist. */
export const ChangeSchema = z.object({
  path: z.string(),
  before: EntrySchema.nullable(),
  after: EntrySchema.nullable(),
  /** Set on the created side of a rename: the path the same content was removed from. */
  renamedFrom: z.string().optional(),
});
export type Change = z.infer<typeof ChangeSchema>;

/**
 * Why a record exists: `tool` = a tool call of the turn changed files; `restore` = Weft put files back;
 * `force-save` = the user's own versions, saved before a forced restore overwrote them; `hunk` = one hunk of
 * the turn's changes to a file was undone (`turnId` is that turn's).
 */
export const RECORD_SOURCES = ['tool', 'restore', 'force-save', 'hunk'] as const;
export type RecordSource = (typeof RECORD_SOURCES)[number];

export const CheckpointRecordSchema = z.object({
  v: z.literal(1),
  id: z.string(),
  /** ISO time the record was written. */
  at: z.string(),
  threadId: z.string(),
  /** null for records made outside a turn (restores). */
  turnId: z.string().nullable(),
  callId: z.string().nullable(),
  source: z.enum(RECORD_SOURCES),
  root: z.string(),
  changes: z.array(ChangeSchema),
  /** Plain sentences for people, e.g. "big.bin: not checkpointed: too large (12 MiB > 8 MiB)". */
  notes: z.array(z.string()),
  /**
   * Set when taking the turn's checkpoint failed (why, for people): what the turn changed may not be
   * restorable, and undoing it says so first. Such a record has no changes.
   */
  failure: z.string().optional(),
  /**
   * Commands of other turns that were running in the background while these changes were made: any of
   * them may be theirs (a look cannot tell who wrote a file). An undo that takes these changes back
   * without those turns names the paths.
   */
  background: z.array(z.object({ turnId: z.string(), command: z.string() })).optional(),
});
export type CheckpointRecord = z.infer<typeof CheckpointRecordSchema>;

/** Limits and retention (config `[checkpoints]`). */
export interface CheckpointLimits {
  /** Files larger than this are noted, not stored. */
  maxFileBytes: number;
  /** New content stored for one turn (and for the first look at a workspace) stops at this many bytes. */
  maxTurnBytes: number;
}

export interface RetentionPolicy {
  /** Records of the last `keepTurns` turns of each thread are kept. */
  keepTurns: number;
  /** Records younger than `keepDays` days are kept. */
  keepDays: number;
}

export const DEFAULT_LIMITS: CheckpointLimits = { maxFileBytes: 8 * 1024 * 1024, maxTurnBytes: 256 * 1024 * 1024 };
export const DEFAULT_RETENTION: RetentionPolicy = { keepTurns: 50, keepDays: 14 };

/** Two entries hold the same thing (content, mode bits, link target), whatever their stat details. */
export function sameContent(a: Entry | null, b: Entry | null): boolean {
  if (a === null || b === null) return a === b;
  switch (a.kind) {
    case 'file':
      if (b.kind !== 'file') return false;
      if (a.hash === null || b.hash === null) return a.hash === b.hash && a.size === b.size && a.mtimeMs === b.mtimeMs;
      return a.hash === b.hash && (a.mode & 0o777) === (b.mode & 0o777);
    case 'symlink':
      return b.kind === 'symlink' && a.target === b.target;
    case 'dir':
      return b.kind === 'dir' && (a.mode & 0o7777) === (b.mode & 0o7777);
  }
}

/** Stat fields say the entry may have changed (content is compared only for these). */
export function statDiffers(a: Entry, b: Entry): boolean {
  if (a.kind !== b.kind) return true;
  if (a.kind === 'file' && b.kind === 'file')
    return a.size !== b.size || a.mtimeMs !== b.mtimeMs || a.ino !== b.ino || a.mode !== b.mode;
  if (a.kind === 'symlink' && b.kind === 'symlink') return a.mtimeMs !== b.mtimeMs || a.ino !== b.ino;
  if (a.kind === 'dir' && b.kind === 'dir') return a.mode !== b.mode;
  return true;
}
