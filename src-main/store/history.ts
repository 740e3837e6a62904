// The model-visible history, for resume and fork. It starts from the newest surviving compaction (its
// `replacement_history`) and adds every later `response_item`; rolled-back turns were already cut from the
// outline. A legacy compaction without replacement history (older Codex) is rebuilt as the earlier user
// messages followed by the summary, as a user message.
import { CompactedPayload, ResponseItem, isKnownResponseItem } from '../../src-preload/protocol';
import { readLines, type LineRef } from './line-reader';
import { parseLine } from './line-parse';
import { isCommonResponseItem } from './response-item-check';
import { closeRollout, openRollout, type RolloutFd } from './rollout-source';
import { yieldToLoop } from '../util/slicer';

export interface HistoryRef extends LineRef {
  /** A `compacted` line (its replacement history restarts the model history). */
  compacted: boolean;
  /** The parsed line, when the outline was made with `history: true` (unreadable lines are left out). */
  entry?: HistoryEntry;
}

/** A parsed history line. */
export type HistoryEntry = { kind: 'item'; item: ResponseItem } | { kind: 'compacted'; compacted: CompactedPayload };

/** Messages Codex and Weft add to the history themselves; not the user's words. */
const CONTEXT_PREFIXES = [
  '<environment_context>',
  '<user_instructions>',
  '# AGENTS.md instructions',
  '<permissions instructions>',
];

function isUserWords(item: ResponseItem): boolean {
  if (!isKnownResponseItem(item) || item.type !== 'message' || item.role !== 'user') return false;
  const first = item.content[0];
  const text = first && 'text' in first && typeof first.text === 'string' ? first.text : '';
  return !CONTEXT_PREFIXES.some((p) => text.startsWith(p));
}

/** Codex's own bookkeeping inside response items, never sent to a model provider. */
const CODEX_INTERNAL_FIELDS = ['internal_chat_message_metadata_passthrough'];

/**
 * A history item as the model may see it: without Codex's internal fields, and without the ids Codex gives
 * the messages it builds itself (input messages; only the provider's own output items keep their ids).
 */
export function forModel(item: ResponseItem): ResponseItem {
  const input = item.type === 'message' && 'role' in item && item.role !== 'assistant' && 'id' in item;
  if (!input && !CODEX_INTERNAL_FIELDS.some((f) => f in item)) return item;
  const copy = Object.fromEntries(
    Object.entries(item).filter(([k]) => !CODEX_INTERNAL_FIELDS.includes(k) && !(input && k === 'id')),
  );
  const parsed = ResponseItem.safeParse(copy);
  return parsed.success ? parsed.data : item;
}

/** The entry of a `response_item` or `compacted` payload, or null when it does not have the right shape. */
export function historyEntry(payload: unknown, compacted: boolean): HistoryEntry | null {
  if (compacted) {
    const c = CompactedPayload.safeParse(payload);
    if (!c.success) return null;
    const replacement = c.data.replacement_history;
    return {
      kind: 'compacted',
      compacted: replacement ? { ...c.data, replacement_history: replacement.map(forModel) } : c.data,
    };
  }
  if (isCommonResponseItem(payload)) return { kind: 'item', item: forModel(payload) };
  const item = ResponseItem.safeParse(payload);
  return item.success ? { kind: 'item', item: forModel(item.data) } : null;
}

function entriesOf(fd: RolloutFd, refs: readonly HistoryRef[], warnings: string[], path: string): HistoryEntry[] {
  const out: HistoryEntry[] = [];
  const unread: HistoryRef[] = refs.filter((r) => r.entry === undefined);
  const read = new Map<number, HistoryEntry>();
  readLines(fd, unread, (raw, i) => {
    const ref = unread[i];
    const p = parseLine(raw);
    if (!p.ok) {
      warnings.push(`${path}: history line at byte ${raw.offset} skipped: ${p.error}`);
      return;
    }
    const entry = historyEntry(p.line.payload, ref?.compacted === true || p.line.type === 'compacted');
    if (entry) read.set(raw.offset, entry);
    else warnings.push(`${path}: history line at byte ${raw.offset} unreadable, skipped`);
  });
  for (const ref of refs) {
    const entry = ref.entry ?? read.get(ref.offset);
    if (entry) out.push(entry);
  }
  return out;
}

/** What building the model history needs of a rollout's outline (outline.ts's `RolloutOutline`). */
export interface HistoryOutline {
  path: string;
  /** Lines of the model history; it starts at `historyRefs[historyBase]` (a compaction) or at 0 when -1. */
  historyRefs: readonly HistoryRef[];
  historyBase: number;
}

/** The model history of an outlined rollout. */
export function buildHistory(fd: RolloutFd, outline: HistoryOutline, warnings: string[]): ResponseItem[] {
  const base = outline.historyBase;
  const refs = outline.historyRefs;
  return historyOf(entriesOf(fd, base >= 0 ? refs.slice(base) : refs, warnings, outline.path), fd, outline, warnings);
}

/** History lines parsed between two yields to the event loop (`buildHistoryAsync`). */
const HISTORY_CHUNK = 256;
/** How long building the history may hold the event loop before it gives it back. */
const SLICE_MS = 10;

/** `buildHistory` that parses the lines a chunk at a time, giving the event loop back between chunks. */
export async function buildHistoryAsync(
  fd: RolloutFd,
  outline: HistoryOutline,
  warnings: string[],
): Promise<ResponseItem[]> {
  const base = outline.historyBase;
  const refs = base >= 0 ? outline.historyRefs.slice(base) : outline.historyRefs;
  const entries: HistoryEntry[] = [];
  let sliceStart = performance.now();
  for (let at = 0; at < refs.length; at += HISTORY_CHUNK) {
    for (const entry of entriesOf(fd, refs.slice(at, at + HISTORY_CHUNK), warnings, outline.path)) entries.push(entry);
    if (performance.now() - sliceStart >= SLICE_MS) {
      await yieldToLoop();
      sliceStart = performance.now();
    }
  }
  return historyOf(entries, fd, outline, warnings);
}

/** The history from its entries (from the newest compaction on): a compaction restarts it. */
function historyOf(
  entries: readonly HistoryEntry[],
  fd: RolloutFd,
  outline: HistoryOutline,
  warnings: string[],
): ResponseItem[] {
  const refs = outline.historyRefs;
  const base = outline.historyBase;
  const history: ResponseItem[] = [];
  for (const entry of entries) {
    if (entry.kind === 'item') {
      history.push(entry.item);
      continue;
    }
    history.length = 0;
    const replacement = entry.compacted.replacement_history;
    if (replacement) {
      for (const item of replacement) history.push(item);
      continue;
    }
    for (const e of entriesOf(fd, refs.slice(0, Math.max(0, base)), warnings, outline.path)) {
      if (e.kind === 'item' && isUserWords(e.item)) history.push(e.item);
    }
    history.push({ type: 'message', role: 'user', content: [{ type: 'input_text', text: entry.compacted.message }] });
  }
  return history;
}

/** A thread's model history read when it is first needed, and what reading it had to skip. */
export interface LaterHistory {
  items: ResponseItem[];
  warnings: string[];
}

/**
 * Reads the model history of an outlined rollout later (a resumed thread's first turn): the file is
 * opened again by path and only the outline's history lines are read. Rollouts are append-only, so the
 * outline's offsets still hold whatever was written since.
 */
export function historyLater(outline: HistoryOutline): () => Promise<LaterHistory> {
  // The lines' list is asked for when first read: a saved outline makes it only then (outline-snapshot.ts).
  const kept: HistoryOutline = {
    path: outline.path,
    get historyRefs() {
      return outline.historyRefs;
    },
    historyBase: outline.historyBase,
  };
  return async () => {
    const { fd, warnings } = openRollout(kept.path);
    try {
      const items = await buildHistoryAsync(fd, kept, warnings);
      return { items, warnings };
    } finally {
      closeRollout(fd);
    }
  };
}
