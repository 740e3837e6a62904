// Limits on diff text in messages, and counting its files. No schemas here, so the code that cuts diffs (the apply-patch command
// among it) can read the limit without building the protocol's schemas.

/**
 * Most characters of diff text one message carries: a `fileChange` item's diff of one file, and the
 * aggregated diff of `turn/diff/updated` (and of `Turn.weftDiff`). A longer diff is cut after its last
 * whole hunk that fits (or, when not even the first fits, inside that hunk, with a header counting what is
 * shown), a marker line starting with `~ Weft left out` ends it, and `weftDiffCut` gives the whole diff's
 * totals. 1 MiB is about 20,000 lines of diff, far past what anyone reads in a diff view, while a patch of
 * 10,000 hunks on a big file makes several MB, which every client would otherwise receive and keep.
 */
export const WEFT_DIFF_MAX_CHARS = 1024 * 1024;

/** Files in a unified diff of git's form (a `diff --git` line starts each). */
export function diffFileCount(diff: string): number {
  let files = diff.startsWith('diff --git ') ? 1 : 0;
  for (let at = diff.indexOf('\ndiff --git '); at !== -1; at = diff.indexOf('\ndiff --git ', at + 1)) files += 1;
  return files;
}
