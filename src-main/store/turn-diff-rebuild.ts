// A turn's aggregated diff rebuilt from the patches that landed in it, for turns whose rollout does not
// record one (`weft_turn_diff`): each completed `fileChange` item's files, minus the hunks declined in
// review, as `diff --git` sections in the order they were applied. Pure.
import type { ThreadItem } from '../../src-preload/protocol';

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$/;

function stripLabel(label: string): string | null {
  const path = label.split('\t')[0]?.trim() ?? '';
  return path === '/dev/null' ? null : path.replace(/^[ab]\//, '');
}

/**
 * One file's unified diff (`---` / `+++` and `@@` hunks) without the hunks whose 0-based index is in
 * `declined`, under a `diff --git` line; later hunks' new-side line numbers are moved by what the dropped
 * hunks would have added or removed. Null when no hunk is left.
 */
export function keptFileDiff(diff: string, declined: ReadonlySet<number>, fallbackPath: string): string | null {
  const lines = diff.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  let oldPath: string | null | undefined;
  let newPath: string | null | undefined;
  const hunks: string[][] = [];
  for (const line of lines) {
    if (HUNK_HEADER.test(line)) hunks.push([line]);
    else if (hunks.length > 0) hunks[hunks.length - 1]?.push(line);
    else if (line.startsWith('--- ')) oldPath = stripLabel(line.slice(4));
    else if (line.startsWith('+++ ')) newPath = stripLabel(line.slice(4));
  }
  if (hunks.length === 0 || hunks.every((_, i) => declined.has(i))) return null;
  const name = newPath ?? oldPath ?? fallbackPath.replace(/^\/+/, '');
  const out = [
    `diff --git a/${oldPath ?? name} b/${newPath ?? name}`,
    oldPath === undefined ? `--- a/${name}` : oldPath === null ? '--- /dev/null' : `--- a/${oldPath}`,
    newPath === undefined ? `+++ b/${name}` : newPath === null ? '+++ /dev/null' : `+++ b/${newPath}`,
  ];
  let shift = 0;
  hunks.forEach((hunk, index) => {
    const match = HUNK_HEADER.exec(hunk[0] ?? '');
    if (match === null) return;
    const oldCount = match[2] === undefined ? 1 : Number(match[2]);
    const newCount = match[4] === undefined ? 1 : Number(match[4]);
    if (declined.has(index)) {
      shift -= newCount - oldCount;
      return;
    }
    const newStart = Number(match[3]) + shift;
    out.push(
      `@@ -${match[1]}${match[2] === undefined ? '' : `,${match[2]}`} +${newStart}${match[4] === undefined ? '' : `,${match[4]}`} @@${match[5] ?? ''}`,
      ...hunk.slice(1),
    );
  });
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
