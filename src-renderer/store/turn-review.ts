// The review of a landed turn's changes ("View changes"): each hunk kept or undone, each file marked
// viewed, and what the person said about the hunks, to go to the model with their next message. Kept in
// this browser's storage (see saved-drafts.ts), so it survives a reload; undoing a hunk itself is the
// server's (`weft/checkpoints/revertHunk`), this only remembers that it was done.
import { useStore } from 'zustand';
import { createStore } from 'zustand/vanilla';
import { z } from 'zod';
import type { UserInput } from '../../src-preload/protocol';
import { read, write } from './saved-drafts';

const PREFIX = 'weft.turnReview.';
const NOTES_PREFIX = 'weft.turnReviewNotes.';

const Verdict = z.enum(['kept', 'undone']);

const TurnReview = z.object({
  /** By `path\u0000header` (the hunk's `@@` line in the turn's diff). */
  hunks: z.record(z.string(), Verdict),
  viewed: z.array(z.string()),
});
type TurnReview = z.infer<typeof TurnReview>;

/** A hunk verdict to tell the model about. */
const ReviewNote = z.object({
  path: z.string(),
  /** 1-based, in the file's hunks of the turn's diff. */
  hunk: z.number(),
  header: z.string(),
  verdict: Verdict,
  reason: z.string(),
});
export type ReviewNote = z.infer<typeof ReviewNote>;

/** Loaded reviews by `threadId\u0000turnId` and notes by thread: read once, then kept here. */
const turns = new Map<string, TurnReview>();
const notes = new Map<string, ReviewNote[]>();
/** Bumped on every change: the hooks read the maps again. */
const store = createStore<{ version: number }>(() => ({ version: 0 }));
const changed = (): void => store.setState((s) => ({ version: s.version + 1 }));
const EMPTY: TurnReview = { hunks: {}, viewed: [] };

function parsed<T>(schema: z.ZodType<T>, raw: string | null): T | null {
  if (raw === null) return null;
  try {
    const result = schema.safeParse(JSON.parse(raw));
    return result.success ? result.data : null;
  } catch {
    return null;
  }
}

const turnKey = (threadId: string, turnId: string): string => `${threadId}\u0000${turnId}`;
export const hunkKey = (path: string, header: string): string => `${path}\u0000${header}`;

function turnOf(threadId: string, turnId: string): TurnReview {
  const key = turnKey(threadId, turnId);
  let review = turns.get(key);
  if (review === undefined) {
    review = parsed(TurnReview, read(`${PREFIX}${threadId}.${turnId}`)) ?? EMPTY;
    turns.set(key, review);
  }
  return review;
}

function setTurn(threadId: string, turnId: string, change: (review: TurnReview) => TurnReview): void {
  const next = change(turnOf(threadId, turnId));
  turns.set(turnKey(threadId, turnId), next);
  write(`${PREFIX}${threadId}.${turnId}`, JSON.stringify(next));
  changed();
}

function notesOf(threadId: string): ReviewNote[] {
  let list = notes.get(threadId);
  if (list === undefined) {
    list = parsed(z.array(ReviewNote), read(NOTES_PREFIX + threadId)) ?? [];
    notes.set(threadId, list);
  }
  return list;
}

function setNotes(threadId: string, list: ReviewNote[]): void {
  notes.set(threadId, list);
  write(NOTES_PREFIX + threadId, list.length === 0 ? null : JSON.stringify(list));
  changed();
}

export const turnReview = {
  /** Records a hunk's verdict; an undone hunk, and a kept one with a reason, go to the model next. */
  judge(threadId: string, turnId: string, note: ReviewNote): void {
    setTurn(threadId, turnId, (r) => ({
      ...r,
      hunks: { ...r.hunks, [hunkKey(note.path, note.header)]: note.verdict },
    }));
    const others = notesOf(threadId).filter((n) => !(n.path === note.path && n.header === note.header));
    setNotes(threadId, note.verdict === 'undone' || note.reason !== '' ? [...others, note] : others);
  },
  setViewed(threadId: string, turnId: string, path: string, viewed: boolean): void {
    setTurn(threadId, turnId, (r) => ({
      ...r,
      viewed: viewed ? [...r.viewed.filter((p) => p !== path), path] : r.viewed.filter((p) => p !== path),
    }));
  },
  /** `input` with the review notes waiting for this thread added (as one more text part). */
  withNotes(threadId: string, input: UserInput[]): UserInput[] {
    const waiting = notesOf(threadId);
    return waiting.length === 0 ? input : [...input, { type: 'text', text: notesMessage(waiting) }];
  },
  /** The notes were sent. */
  sent(threadId: string): void {
    if (notesOf(threadId).length > 0) setNotes(threadId, []);
  },
};

/** What the model is told about the hunks the person reviewed after they landed. */
export function notesMessage(list: readonly ReviewNote[]): string {
  const lines = ['The user reviewed the changes of an earlier turn hunk by hunk after they were written:'];
  for (const n of list) {
    const what = n.verdict === 'undone' ? 'undid (those lines are back as they were before)' : 'kept';
    lines.push(`- ${n.path}, hunk ${n.hunk} (${n.header}): ${what}${n.reason === '' ? '' : `: "${n.reason}"`}`);
  }
  return lines.join('\n');
}

/** The review of one turn: verdicts by `hunkKey`, viewed paths. */
export function useTurnReview(threadId: string, turnId: string): TurnReview {
  useStore(store, (s) => s.version);
  return turnOf(threadId, turnId);
}

/** The notes waiting for a thread's next message. */
export function useReviewNotes(threadId: string | null): readonly ReviewNote[] {
  useStore(store, (s) => s.version);
  return threadId === null ? NO_NOTES : notesOf(threadId);
}

const NO_NOTES: readonly ReviewNote[] = [];
