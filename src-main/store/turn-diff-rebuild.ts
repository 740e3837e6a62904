// A turn's aggregated diff rebuilt from the patches that landed in it, for turns whose rollout does not
// record one (`weft_turn_diff`): each completed `fileChange` item's files, minus the hunks declined in
// review, as `diff --git` sections in the order they were applied. Pure.
import type { ThreadItem } from '../../src-preload/protocol';
import { cutMarker, formatHunkHeader, hunkHeading, parseFileDiff } from '../../src-preload/diff/unified-diff';

/**
 * One file's unified diff (`---` / `+++` and `@@` hunks) without the hunks whose 0-based index is in
 * `declined`, under a `diff --git` line; later hunks' new-side line numbers are moved by what the dropped
 * hunks would have added or removed, and a cut diff keeps its `~ Weft left out …` line. Null when no hunk
 * is left, or when the diff cannot be read (its item shows no hunks either).
 */
export function keptFileDiff(diff: string, declined: ReadonlySet<number>, fallbackPath: string): string | null {
  const file = parseFileDiff(diff);
  const { hunks, oldPath, newPath } = file;
  if (hunks.length === 0 || hunks.every((_, i) => declined.has(i))) return null;
  const name = newPath ?? oldPath ?? fallbackPath.replace(/^\/+/, '');
  const out = [
    `diff --git a/${oldPath ?? name} b/${newPath ?? name}`,
    oldPath === undefined ? `--- a/${name}` : oldPath === null ? '--- /dev/null' : `--- a/${oldPath}`,
    newPath === undefined ? `+++ b/${name}` : newPath === null ? '+++ /dev/null' : `+++ b/${newPath}`,
  ];
  let shift = 0;
  hunks.forEach((hunk, index) => {
    if (declined.has(index)) {
      shift -= hunk.newLines - hunk.oldLines;
      return;
    }
    out.push(formatHunkHeader({ ...hunk, newStart: hunk.newStart + shift }, hunkHeading(hunk)), ...hunk.lines);
  });
  const marker = cutMarker(diff);
  if (marker !== null) out.push(marker);
  return `${out.join('\n')}\n`;
}

/** The diff of every patch that landed among `items`, or null when none changed a file. */
export function diffFromFileChanges(items: readonly ThreadItem[]): string | null {
  const sections: string[] = [];
  for (const item of items) {
    if (item.type !== 'fileChange' || item.status !== 'completed') continue;
    for (const change of item.changes) {
      const declined = new Set((item.weftDeclined ?? []).filter((d) => d.path === change.path).map((d) => d.hunk));
      const section = keptFileDiff(change.diff, declined, change.path);
      if (section !== null) sections.push(section);
    }
  }
  return sections.length === 0 ? null : sections.join('');
}
