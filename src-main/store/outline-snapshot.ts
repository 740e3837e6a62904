// A rollout's outline saved for the next read: rollouts only grow, so an outline made up to a line boundary
// stays true for that part of the file, and the next resume, read or page of turns of the thread reads only
// the lines appended since (a 108 MB thread: tens of milliseconds instead of a pass over the whole file).
//
// A saved outline is used only for the same file (device and inode) when the file still reaches its end and
// the bytes just before that end are unchanged; anything else (a rewritten or replaced file, a saved form
// that fails its checksum or is of another version) reads the whole file, as without one. It is derived
// data, kept as `WEFT_HOME/outlines/<thread id>.outline` (a file: a 1.4 MB outline is read in one call,
// where SQLite reads a blob page by page).
//
// Form: "WOL1", the header's length (uint32 LE), the header (JSON), the turn ids (one per line), then from
// the next multiple of 8, float64 numbers: each history line (offset, length, compacted 0/1), each turn
// (TURN_NUMBERS), each turn's item lines (offset, length). Turn errors are in the header.
import { fstatSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { endianness } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { SessionMetaPayload, TurnError, TurnStatus } from '../../src-preload/protocol';
import type { HistoryRef } from './history';
import type { LineRef } from './line-reader';
import type { ContinuedOutline, OutlineStart, RolloutOutline, TurnOutline } from './outline';
import { outlinesDir } from './paths';
import { readAt, type RolloutFd } from './rollout-source';
import { ATTRIBUTE_KEYS, ThreadAttributes } from './thread-events';

/** node:zlib's crc32, loaded when an outline is first saved or read (not at start-up). */
const crc32 = (data: Uint8Array, value?: number): number => process.getBuiltinModule('node:zlib').crc32(data, value);

const MAGIC = Buffer.from('WOL1');
/** Bytes before the outline's end that must be unchanged for it to be used. */
const CHECK_BYTES = 64;
/** An outline is worth saving when it read at least this much of the file (smaller ones are quick to redo). */
export const SAVE_OUTLINE_BYTES = 1 << 20;

const ID = /^[0-9A-Za-z-]+$/;
const outlineFile = (home: string, id: string): string => join(outlinesDir(home), `${id}.outline`);

/** The thread's saved outline, or null when there is none (or it cannot be read: the file is read then). */
export function readSavedOutline(home: string, id: string): Buffer | null {
  if (!ID.test(id)) return null;
  try {
    return readFileSync(outlineFile(home, id));
  } catch {
    return null;
  }
}

/** Keeps a thread's outline (written whole, then renamed over the old one). */
export function writeSavedOutline(home: string, id: string, data: Buffer): void {
  if (!ID.test(id)) return;
  const file = outlineFile(home, id);
  mkdirSync(outlinesDir(home), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(temp, data);
    renameSync(temp, file);
  } finally {
    rmSync(temp, { force: true });
  }
}

/** Drops a thread's saved outline (its rollout is gone from the index). */
export function forgetSavedOutline(home: string, id: string): void {
  if (ID.test(id)) rmSync(outlineFile(home, id), { force: true });
}

/** Which file, and how it ended, an outline was made of. */
export interface FileMark {
  file: string;
  /** Base64 of the bytes just before the outline's end. */
  check: string;
}

/** The file's identity and its bytes before `end`; null for a chain (a Codex fork read with its parent). */
export function markOf(fd: RolloutFd, end: number): FileMark | null {
  if (typeof fd !== 'number') return null;
  const st = fstatSync(fd, { bigint: true });
  if (BigInt(end) > st.size) return null;
  const length = Math.min(end, CHECK_BYTES);
  const buf = Buffer.alloc(length);
  let got = 0;
  while (got < length) {
    const n = readAt(fd, buf, got, length - got, end - length + got);
    if (n === 0) return null;
    got += n;
  }
  return { file: `${st.dev}:${st.ino}`, check: buf.toString('base64') };
}

const Ref = z.tuple([z.number().int().nonnegative(), z.number().int().nonnegative()]).nullable();
const Header = z.object({
  path: z.string(),
  file: z.string(),
  check: z.string(),
  end: z.number().int().nonnegative(),
  metaEnd: z.number().int().nonnegative(),
  meta: SessionMetaPayload.nullable(),
  historyBase: z.number().int(),
  /** The attributes' names when it was saved: an outline of other attributes is not used. */
  attributeKeys: z.literal(ATTRIBUTE_KEYS),
  attributes: ThreadAttributes,
  /** The last rollback's restore record (its dropped turns are never saved: see encodeOutline). */
  lastRollbackRecord: z.string().nullable().optional(),
  preview: z.string(),
  firstTimestampMs: z.number(),
  warnings: z.array(z.string()),
  openIndex: z.number().int(),
  opened: z.number().int().nonnegative(),
  tokenRef: Ref,
  lastContext: Ref,
  lastLine: Ref,
  lineNo: z.number().int().nonnegative(),
  /** Counts of history lines, turns and item lines in the numbers. */
  history: z.number().int().nonnegative(),
  turns: z.number().int().nonnegative(),
  items: z.number().int().nonnegative(),
  /** Bytes of the turn ids (UTF-8, one per line) after the header. */
  idBytes: z.number().int().nonnegative(),
  /** CRC-32 of the turn ids and the numbers: damage anywhere there makes the outline unused. */
  crc: z.number().int().nonnegative(),
  /** Turn errors by turn index (few turns have one). */
  errors: z.array(z.tuple([z.number().int().nonnegative(), TurnError])),
});
type Header = z.infer<typeof Header>;

/** Numbers per turn: explicit, start (offset, length), end (offset, length), started, ended at, ended, status, history mark (refs, base), end offset, item lines. */
const TURN_NUMBERS = 13;
const STATUSES = TurnStatus.options;
/** The numbers are written in the machine's order (every platform Weft runs on is little-endian). */
const LITTLE_ENDIAN = endianness() === 'LE';

const ref = (r: LineRef | null): [number, number] | null => (r ? [r.offset, r.length] : null);
const unref = (r: [number, number] | null): LineRef | null => (r ? { offset: r[0], length: r[1] } : null);
/** Where the numbers start: after the header and ids, on a multiple of 8. */
const numbersAt = (headLength: number, idBytes: number): number =>
  Math.ceil((MAGIC.length + 4 + headLength + idBytes) / 8) * 8;

/**
 * The saved form of an outline (see the file comment); `mark` is `markOf` the file at the outline's end.
 * Null when it cannot be saved (a turn id with a line break).
 */
export function encodeOutline({ outline: o, progress: p }: ContinuedOutline, mark: FileMark): Buffer | null {
  // Turns a rollback dropped are kept only in memory until a turn begins after it: such an outline is
  // made again from the file (rare: between an undo and the next turn).
  if (!LITTLE_ENDIAN || o.lastRollback?.dropped || o.turns.some((t) => t.id.includes('\n'))) return null;
  const ids = Buffer.from(o.turns.map((t) => t.id).join('\n'));
  let items = 0;
  const errors: Header['errors'] = [];
  o.turns.forEach((t, i) => {
    items += t.itemRefs.length;
    if (t.error) errors.push([i, t.error]);
  });
  const header: Header = {
    path: o.path,
    file: mark.file,
    check: mark.check,
    end: o.end,
    metaEnd: o.metaEnd,
    meta: o.meta,
    historyBase: o.historyBase,
    attributeKeys: ATTRIBUTE_KEYS,
    attributes: o.attributes,
    lastRollbackRecord: o.lastRollback?.restoreRecord ?? null,
    preview: o.preview,
    firstTimestampMs: o.firstTimestampMs,
    warnings: o.warnings.slice(0, p.lineWarnings),
    openIndex: p.openIndex,
    opened: p.opened,
    tokenRef: ref(p.tokenRef),
    lastContext: ref(p.lastContext),
    lastLine: ref(p.lastLine),
    lineNo: p.lineNo,
    history: o.historyRefs.length,
    turns: o.turns.length,
    items,
    idBytes: ids.length,
    crc: 0,
    errors,
  };
  const nums = new Float64Array(o.historyRefs.length * 3 + o.turns.length * TURN_NUMBERS + items * 2);
  let at = 0;
  for (const r of o.historyRefs) {
    nums[at++] = r.offset;
    nums[at++] = r.length;
    nums[at++] = r.compacted ? 1 : 0;
  }
  // The open turn is saved as `finish` closed it: continuing it reopens it (`openIndex`), and the next
  // `finish` closes it again if the lines after do not.
  for (const t of o.turns) {
    nums[at++] = t.explicit ? 1 : 0;
    nums[at++] = t.startRef?.offset ?? -1;
    nums[at++] = t.startRef?.length ?? -1;
    nums[at++] = t.endRef?.offset ?? -1;
    nums[at++] = t.endRef?.length ?? -1;
    nums[at++] = t.startedAtMs ?? Number.NaN;
    nums[at++] = t.endedAtMs ?? Number.NaN;
    nums[at++] = t.ended ? 1 : 0;
    nums[at++] = STATUSES.indexOf(t.status);
    nums[at++] = t.historyMark.refs;
    nums[at++] = t.historyMark.base;
    nums[at++] = t.endOffset;
    nums[at++] = t.itemRefs.length;
  }
  for (const t of o.turns) {
    for (const r of t.itemRefs) {
      nums[at++] = r.offset;
      nums[at++] = r.length;
    }
  }
  const numBytes = Buffer.from(nums.buffer, nums.byteOffset, nums.byteLength);
  header.crc = crc32(numBytes, crc32(ids));
  const head = Buffer.from(JSON.stringify(header));
  const start = numbersAt(head.length, ids.length);
  const out = Buffer.alloc(start + nums.byteLength);
  MAGIC.copy(out, 0);
  out.writeUInt32LE(head.length, MAGIC.length);
  head.copy(out, MAGIC.length + 4);
  ids.copy(out, MAGIC.length + 4 + head.length);
  numBytes.copy(out, start);
  return out;
}

/** The header of a saved outline, or null when it is not one this version reads. */
function headerOf(saved: Buffer): { h: Header; headEnd: number } | null {
  if (!LITTLE_ENDIAN || saved.length < MAGIC.length + 4 || !saved.subarray(0, MAGIC.length).equals(MAGIC)) return null;
  const headEnd = MAGIC.length + 4 + saved.readUInt32LE(MAGIC.length);
  if (headEnd > saved.length) return null;
  let json: unknown;
  try {
    json = JSON.parse(saved.toString('utf8', MAGIC.length + 4, headEnd));
  } catch {
    return null;
  }
  const parsed = Header.safeParse(json);
  return parsed.success ? { h: parsed.data, headEnd } : null;
}

function historyOf(nums: Float64Array, count: number): HistoryRef[] {
  const refs = new Array<HistoryRef>(count);
  for (let i = 0, at = 0; i < count; i++, at += 3) {
    refs[i] = { offset: nums[at] ?? 0, length: nums[at + 1] ?? 0, compacted: nums[at + 2] === 1 };
  }
  return refs;
}

/** A turn of a saved outline; its item lines are made when first used. */
class SavedTurn implements TurnOutline {
  id: string;
  explicit: boolean;
  startRef: LineRef | null;
  endRef: LineRef | null;
  startedAtMs: number | null;
  endedAtMs: number | null;
  ended: boolean;
  status: TurnStatus;
  error: TurnError | null;
  historyMark: { refs: number; base: number };
  endOffset: number;
  private readonly itemCount: number;
  private refs: LineRef[] | null = null;

  constructor(
    private readonly nums: Float64Array,
    at: number,
    private readonly itemsAt: number,
    id: string,
    error: TurnError | null,
  ) {
    const startOffset = nums[at + 1] ?? -1;
    const endOffset = nums[at + 3] ?? -1;
    const startedAt = nums[at + 5] ?? Number.NaN;
    const endedAt = nums[at + 6] ?? Number.NaN;
    this.id = id;
    this.explicit = nums[at] === 1;
    this.startRef = startOffset === -1 ? null : { offset: startOffset, length: nums[at + 2] ?? 0 };
    this.endRef = endOffset === -1 ? null : { offset: endOffset, length: nums[at + 4] ?? 0 };
    this.startedAtMs = Number.isNaN(startedAt) ? null : startedAt;
    this.endedAtMs = Number.isNaN(endedAt) ? null : endedAt;
    this.ended = nums[at + 7] === 1;
    this.status = STATUSES[nums[at + 8] ?? 0] ?? 'completed';
    this.error = error;
    this.historyMark = { refs: nums[at + 9] ?? 0, base: nums[at + 10] ?? -1 };
    this.endOffset = nums[at + 11] ?? 0;
    this.itemCount = nums[at + 12] ?? 0;
  }

  get itemRefs(): LineRef[] {
    if (this.refs === null) {
      const refs = new Array<LineRef>(this.itemCount);
      for (let k = 0, i = this.itemsAt; k < this.itemCount; k++, i += 2)
        refs[k] = { offset: this.nums[i] ?? 0, length: this.nums[i + 1] ?? 0 };
      this.refs = refs;
    }
    return this.refs;
  }

  set itemRefs(refs: LineRef[]) {
    this.refs = refs;
  }
}

/**
 * The saved outline `saved` as a start for reading `fd` (at `path`), or null when it does not apply to the
 * file as it is now or cannot be read (then the whole file is read).
 */
export function decodeOutline(saved: Buffer, fd: RolloutFd, path: string): OutlineStart | null {
  const read = headerOf(saved);
  if (read === null) return null;
  const { h, headEnd } = read;
  const start = numbersAt(headEnd - MAGIC.length - 4, h.idBytes);
  const count = h.history * 3 + h.turns * TURN_NUMBERS + h.items * 2;
  if (saved.length !== start + count * 8 || h.openIndex >= h.turns) return null;
  const idBytes = saved.subarray(headEnd, headEnd + h.idBytes);
  if (crc32(saved.subarray(start), crc32(idBytes)) !== h.crc) return null;
  const ids = h.turns === 0 ? [] : idBytes.toString('utf8').split('\n');
  if (ids.length !== h.turns) return null;
  const mark = markOf(fd, h.end);
  if (mark === null || mark.file !== h.file || mark.check !== h.check) return null;
  // An aligned copy of the numbers (the saved bytes may sit anywhere in memory).
  const nums = new Float64Array(count);
  Buffer.from(nums.buffer).set(saved.subarray(start));
  const turnsAt = h.history * 3;
  const itemsAt = turnsAt + h.turns * TURN_NUMBERS;
  // The line lists are made when first used: a resume needs the newest turns' items and no history.
  let historyRefs: HistoryRef[] | null = null;
  const turns: TurnOutline[] = new Array<TurnOutline>(h.turns);
  const errors = new Map(h.errors);
  let itemAt = itemsAt;
  for (let i = 0, at = turnsAt; i < h.turns; i++, at += TURN_NUMBERS) {
    const itemCount = nums[at + 12] ?? 0;
    turns[i] = new SavedTurn(nums, at, itemAt, ids[i] ?? '', errors.get(i) ?? null);
    itemAt += itemCount * 2;
  }
  // A thread moved (archived, restored) keeps its file: its warnings name where it is now.
  const prefix = `${h.path}: `;
  const warnings =
    h.path === path
      ? h.warnings
      : h.warnings.map((w) => (w.startsWith(prefix) ? `${path}: ${w.slice(prefix.length)}` : w));
  const outline: RolloutOutline = {
    path,
    meta: h.meta,
    metaEnd: h.metaEnd,
    turns,
    get historyRefs(): HistoryRef[] {
      historyRefs ??= historyOf(nums, h.history);
      return historyRefs;
    },
    set historyRefs(refs: HistoryRef[]) {
      historyRefs = refs;
    },
    historyBase: h.historyBase,
    lastTurnContext: null,
    tokenUsage: null,
    usageByModel: null,
    attributes: h.attributes,
    preview: h.preview,
    updatedAtMs: 0,
    firstTimestampMs: h.firstTimestampMs,
    end: h.end,
    tailBytes: 0,
    warnings,
    lastRollback:
      h.lastRollbackRecord === undefined || h.lastRollbackRecord === null
        ? null
        : { restoreRecord: h.lastRollbackRecord, dropped: null },
  };
  return {
    outline,
    progress: {
      openIndex: h.openIndex,
      opened: h.opened,
      tokenRef: unref(h.tokenRef),
      lastContext: unref(h.lastContext),
      lastLine: unref(h.lastLine),
      lineNo: h.lineNo,
      lineWarnings: h.warnings.length,
    },
  };
}
