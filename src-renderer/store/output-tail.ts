// The bounded tail of a command's output. Deltas are appended as chunks (small ones merged), and whole
// chunks fall off the front once more than OUTPUT_TAIL_CHARS are kept, so appending never copies the
// whole tail: 10 MB of output arriving in 64 KB deltas costs a few array operations per delta.
import { own, ownArray } from './draft';
import type { Draft } from './draft';
import { OUTPUT_TAIL_CHARS } from './state';
import type { OutputTail } from './state';

/** Deltas shorter than this are merged into the previous chunk, so tiny deltas do not pile up. */
const MERGE_BELOW = 8 * 1024;

export const EMPTY_OUTPUT: OutputTail = { chunks: [], kept: 0, total: 0, epoch: 0 };

export function outputText(tail: OutputTail): string {
  return tail.chunks.length === 1 ? (tail.chunks[0] ?? '') : tail.chunks.join('');
}

/** The last `count` characters kept (all of them when fewer are kept). */
export function lastChars(tail: OutputTail, count: number): string {
  const parts: string[] = [];
  let need = Math.min(count, tail.kept);
  for (let i = tail.chunks.length - 1; i >= 0 && need > 0; i--) {
    const chunk = tail.chunks[i] ?? '';
    parts.push(chunk.length <= need ? chunk : chunk.slice(chunk.length - need));
    need -= chunk.length;
  }
  return parts.reverse().join('');
}

/** A tail holding the end of `text`, as a replacement (new epoch) of `previous`. */
export function replaceOutput(previous: OutputTail, text: string): OutputTail {
  const kept = text.length > OUTPUT_TAIL_CHARS ? text.slice(text.length - OUTPUT_TAIL_CHARS) : text;
  return { chunks: kept === '' ? [] : [kept], kept: kept.length, total: text.length, epoch: previous.epoch + 1 };
}

/** `tail` with `delta` appended, copied at most once per draft. */
export function appendOutput(draft: Draft, tail: OutputTail, delta: string): OutputTail {
  const next = own(draft, tail);
  const chunks = ownArray(draft, tail.chunks);
  next.chunks = chunks;
  const last = chunks[chunks.length - 1];
  if (last !== undefined && last.length < MERGE_BELOW && delta.length < MERGE_BELOW)
    chunks[chunks.length - 1] = last + delta;
  else chunks.push(delta);
  next.kept += delta.length;
  next.total += delta.length;
  while (chunks.length > 1 && next.kept - (chunks[0]?.length ?? 0) >= OUTPUT_TAIL_CHARS) {
    next.kept -= chunks.shift()?.length ?? 0;
  }
  const first = chunks[0];
  if (first !== undefined && next.kept > OUTPUT_TAIL_CHARS) {
    const drop = next.kept - OUTPUT_TAIL_CHARS;
    chunks[0] = first.slice(drop);
    next.kept -= drop;
  }
  return next;
}
