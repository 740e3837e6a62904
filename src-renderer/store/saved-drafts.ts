// Work the person has not sent yet, kept in this browser's localStorage so that it survives switching
// threads and reloading the page: the composer's text per thread, and the per-hunk verdicts and comments
// of a patch review until the request is answered. Values read back are checked; anything unreadable is
// treated as no draft.
import { z } from 'zod';

const TEXT_PREFIX = 'weft.draft.';
const REVIEW_PREFIX = 'weft.review.';

/** Used when localStorage is unavailable (disabled, private mode): drafts then last as long as the page. */
const memory = new Map<string, string>();

/** A stored value (localStorage, or this page's memory when it is unavailable). */
export function read(key: string): string | null {
  try {
    const value = window.localStorage.getItem(key);
    if (value !== null) return value;
  } catch {
    // Falls back to memory below.
  }
  return memory.get(key) ?? null;
}

/** Stores a value; null removes it. */
export function write(key: string, value: string | null): void {
  if (value === null) memory.delete(key);
  else memory.set(key, value);
  try {
    if (value === null) window.localStorage.removeItem(key);
    else window.localStorage.setItem(key, value);
  } catch {
    // Kept in memory only.
  }
}

/** Where the composer's draft of a thread is kept; a thread not started yet is keyed by its project. */
export function composerDraftKey(threadId: string | null, cwd: string | null): string {
  return threadId ?? `new:${cwd ?? ''}`;
}

export function loadComposerDraft(key: string): string {
  return read(TEXT_PREFIX + key) ?? '';
}

/** Saves the draft; an empty one is removed. */
export function saveComposerDraft(key: string, text: string): void {
  write(TEXT_PREFIX + key, text === '' ? null : text);
}

/** A hunk's verdict in a review (see views/approvals/patch-answer.ts). */
export interface HunkVerdict {
  declined: boolean;
  comment: string;
}

const SavedVerdicts = z.array(z.tuple([z.string(), z.object({ declined: z.boolean(), comment: z.string() })]));

function reviewKey(threadId: string, itemId: string): string {
  return `${REVIEW_PREFIX}${threadId}.${itemId}`;
}

/** The verdicts given so far in the review of a patch (the `fileChange` item `itemId` of `threadId`). */
export function loadReviewVerdicts(threadId: string, itemId: string): Map<string, HunkVerdict> {
  const raw = read(reviewKey(threadId, itemId));
  if (raw === null) return new Map();
  try {
    const parsed = SavedVerdicts.safeParse(JSON.parse(raw));
    return parsed.success ? new Map(parsed.data) : new Map();
  } catch {
    return new Map();
  }
}

export function saveReviewVerdicts(threadId: string, itemId: string, verdicts: ReadonlyMap<string, HunkVerdict>): void {
  write(reviewKey(threadId, itemId), verdicts.size === 0 ? null : JSON.stringify([...verdicts]));
}

/** The review was answered: its verdicts are no longer needed. */
export function forgetReviewVerdicts(threadId: string, itemId: string): void {
  write(reviewKey(threadId, itemId), null);
}
