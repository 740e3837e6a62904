// How many rows a diff will take in Monaco, known before its editor is made: its place is held at that
// height while the editor waits its turn (widget-queue.ts), so the page does not jump when it comes.

/** The number of lines of `text` as an editor shows them (a final line break ends the last line). */
export function lineCount(text: string): number {
  if (text === '') return 1;
  let lines = 1;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) lines++;
  return text.endsWith('\n') ? lines - 1 : lines;
}

/** How many lines of `b` also stand in `a`, each line of `a` counted once (a multiset intersection). */
function sharedLines(a: string, b: string): number {
  const counts = new Map<string, number>();
  for (const line of a.split('\n')) counts.set(line, (counts.get(line) ?? 0) + 1);
  let shared = 0;
  for (const line of b.split('\n')) {
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
