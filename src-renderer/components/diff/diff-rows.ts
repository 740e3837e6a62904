// How many rows a diff will take in Monaco, known before its editor is made: its place is held at that
// height while the editor waits its turn (widget-queue.ts), so the page does not jump when it comes.

/** The number of lines of `text` as an editor shows them (a final line break ends the last line). */
export function lineCount(text: string): number {
  if (text === '') return 1;
  let lines = 1;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) lines++;
  return text.endsWith('\n') ? lines - 1 : lines;
}

/** Characters compared at a time when looking for the common start and end of two texts. */
const STRIDE = 4096;

/** Whether `at` starts a line of `text`. */
const lineStart = (text: string, at: number): boolean => at === 0 || text.charCodeAt(at - 1) === 10;

/** Length of the whole lines both (different) texts start with. */
function commonHead(a: string, b: string): number {
  const most = Math.min(a.length, b.length);
  let at = 0;
  while (at + STRIDE <= most && a.slice(at, at + STRIDE) === b.slice(at, at + STRIDE)) at += STRIDE;
  while (at < most && a.charCodeAt(at) === b.charCodeAt(at)) at++;
  // Back to the end of the last line both hold whole (its line break is common to both).
  return at === 0 ? 0 : a.lastIndexOf('\n', at - 1) + 1;
}

/** Length of the whole lines both texts end with, not reaching into the first `head` characters. */
function commonTail(a: string, b: string, head: number): number {
  const most = Math.min(a.length, b.length) - head;
  let back = 0;
  while (
    back + STRIDE <= most &&
    a.slice(a.length - back - STRIDE, a.length - back) === b.slice(b.length - back - STRIDE, b.length - back)
  )
    back += STRIDE;
  while (back < most && a.charCodeAt(a.length - 1 - back) === b.charCodeAt(b.length - 1 - back)) back++;
  // Forward to where a line starts in both.
  let tail = back;
  while (tail > 0 && !(lineStart(a, a.length - tail) && lineStart(b, b.length - tail))) {
    const next = a.indexOf('\n', a.length - tail);
    tail = next === -1 ? 0 : a.length - next - 1;
  }
  return tail;
}

/** Line breaks in `text` from `from` to `to`. */
function breaks(text: string, from: number, to: number): number {
  let count = 0;
  for (let at = text.indexOf('\n', from); at !== -1 && at < to; at = text.indexOf('\n', at + 1)) count++;
  return count;
}

/** The lines of `text` as an editor shows them (see lineCount). */
function linesOf(text: string): string[] {
  return (text.endsWith('\n') ? text.slice(0, -1) : text).split('\n');
}

/** How many lines of `b` also stand in `a`, each line of `a` counted once (a multiset intersection). */
function sharedLines(a: string, b: string): number {
  if (a === b) return lineCount(a);
  // The whole lines both start and end with are compared as text, a few KB at a time: taken out of both
  // sides, the intersection of the rest is what is left to count, and a change to a big file leaves a
  // short middle.
  const head = commonHead(a, b);
  const tail = commonTail(a, b, head);
  let shared = breaks(a, 0, head) + (tail > 0 ? lineCount(a.slice(a.length - tail)) : 0);
  const middle = (text: string): string[] => {
    const part = text.slice(head, text.length - tail);
    // Before a common end, the middle ends with the line break in front of it.
    if (tail > 0) return part === '' ? [] : part.slice(0, -1).split('\n');
    // At the end of the text: nothing after its last line break, or the one empty line of an empty text.
    if (part === '') return text === '' ? [''] : [];
    return linesOf(part);
  };
  const counts = new Map<string, number>();
  for (const line of middle(a)) counts.set(line, (counts.get(line) ?? 0) + 1);
  for (const line of middle(b)) {
    const left = counts.get(line) ?? 0;
    if (left === 0) continue;
    counts.set(line, left - 1);
    shared++;
  }
  return shared;
}

/**
 * Rows of a two-sided diff: inline, every removed line shows above the added ones; side by side, a changed
 * stretch takes the longer of its two sides. Lines found on both sides are taken as the unchanged ones (an
 * estimate: a moved line counts as unchanged). With `foldUnchanged` (Monaco's hidden unchanged regions,
 * `contextLines` shown on each side of a change), the unchanged lines shown are taken as those around one
 * change and a fold marker.
 */
export function diffRows(
  original: string,
  modified: string,
  inline: boolean,
  foldUnchanged: { contextLines: number } | null = null,
): number {
  const a = lineCount(original);
  const b = lineCount(modified);
  const shared = Math.min(sharedLines(original, modified), a, b);
  const changed = inline ? a + b - 2 * shared : Math.max(a - shared, b - shared);
  const unchanged = foldUnchanged === null ? shared : Math.min(shared, 2 * foldUnchanged.contextLines + 1);
  return changed + unchanged;
}
