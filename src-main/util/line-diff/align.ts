// Lining up two versions of a file: equal stretches are skipped as whole byte ranges (a few memcmps for
// thousands of lines), and where they part the next place they meet again is searched for in windows
// that start small and double. The cost follows the size of what changed, not the size of the file, so a
// 1,000,000-line file with 10,000 scattered edits aligns in a fraction of a second, where a classic
// O(N·D) line diff does 2·10^10 steps. The result is a correct diff, not always a minimal one: in a changed
// stretch a lone equal line (a blank, a brace) is taken as a meeting point only when it is close by.
import type { Pacer } from '../slicer';
import type { ByteLines } from './byte-lines';

/** Old lines oldStart…oldStart+oldCount-1 replaced by new lines newStart…newStart+newCount-1 (0-based). */
export interface ChangeBlock {
  oldStart: number;
  oldCount: number;
  newStart: number;
  newCount: number;
}

/** A meeting point is taken when this many lines are equal there, or when it is cheap for its length. */
const SURE_RUN = 3;
/** A shorter run is taken when reaching it skips at most this many lines per equal line. */
const SKIPS_PER_LINE = 4;
const FIRST_WINDOW = 8;

interface Meeting {
  a: number;
  b: number;
}

/** The changes that turn `a` into `b`, in order; the lines between them are equal. */
export async function alignLines(a: ByteLines, b: ByteLines, pacer: Pacer): Promise<ChangeBlock[]> {
  const blocks: ChangeBlock[] = [];
  let i = 0;
  let j = 0;
  for (;;) {
    const run = a.commonRun(i, b, j);
    i += run;
    j += run;
    if (i >= a.count || j >= b.count) {
      if (i < a.count || j < b.count)
        blocks.push({ oldStart: i, oldCount: a.count - i, newStart: j, newCount: b.count - j });
      return blocks;
    }
    const next = await meetAgain(a, b, i, j, pacer);
    blocks.push({ oldStart: i, oldCount: next.a - i, newStart: j, newCount: next.b - j });
    i = next.a;
    j = next.b;
    if (pacer.due()) await pacer.pause();
  }
}

/** Length of the equal run at (x, y), counting at most `most` lines. */
function runAt(a: ByteLines, b: ByteLines, x: number, y: number, most: number): number {
  let length = 0;
  while (length < most && a.hash(x + length) === b.hash(y + length)) length++;
  while (length > 0 && !a.sameRun(x, b, y, length)) length--;
  return length;
}

/**
 * The nearest place after (i, j), where lines i and j differ, at which the two files are equal again:
 * the fewest lines skipped on both sides together, among places with a sure run (or a short run close
 * by). The ends of both files always qualify. Searched in windows of 8, 16, 32… lines on each side: a
 * place found skipping no more lines than the window is wide is the nearest anywhere.
 */
async function meetAgain(a: ByteLines, b: ByteLines, i: number, j: number, pacer: Pacer): Promise<Meeting> {
  const atEnds: Meeting = { a: a.count, b: b.count };
  const endCost = a.count - i + (b.count - j);
  for (let width = FIRST_WINDOW; ; width *= 2) {
    const aEnd = Math.min(a.count, i + width);
    const bEnd = Math.min(b.count, j + width);
    const where = new Map<number, number[]>();
    for (let y = j; y < bEnd; y++) {
      const h = b.hash(y);
      const list = where.get(h);
      if (list) list.push(y);
      else where.set(h, [y]);
      if ((y & 1023) === 0 && pacer.due()) await pacer.pause();
    }
    let best = atEnds;
    let bestCost = endCost;
    for (let x = i; x < aEnd && x - i < bestCost; x++) {
      for (const y of where.get(a.hash(x)) ?? []) {
        const cost = x - i + (y - j);
        if (cost >= bestCost) break;
        const most = Math.min(SURE_RUN, a.count - x, b.count - y);
        const run = runAt(a, b, x, y, most);
        if (run === 0) continue;
        const reachesEnds = run === most && x + run === a.count && y + run === b.count;
        if (run >= SURE_RUN || reachesEnds || cost <= SKIPS_PER_LINE * run) {
          best = { a: x, b: y };
          bestCost = cost;
        }
      }
      if ((x & 1023) === 0 && pacer.due()) await pacer.pause();
    }
    const coversBoth = aEnd === a.count && bEnd === b.count;
    if (bestCost <= width || coversBoth) return best;
  }
}
