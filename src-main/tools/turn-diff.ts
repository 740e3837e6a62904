import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { dirname, relative } from 'node:path';
import { structuredPatch } from 'diff';
import { hasMarker } from '../util/markers';

interface Tracked {
  /** Path before the turn touched it; null when the file did not exist. */
  originalPath: string | null;
  /** Where the file is now; null once deleted. */
  currentPath: string | null;
  baseline: Buffer | null;
  baselineMode: string;
}

const ZERO_OID = '0000000000000000000000000000000000000000';

/** The git root above `dir`, or `dir` itself outside a repository. */
export async function findRepoRoot(dir: string): Promise<string> {
  for (let d = dir; ; d = dirname(d)) {
    if (await hasMarker(d, '.git')) return d;
    if (dirname(d) === d) return dir;
  }
}

/**
 * Everything one turn changed through patches, as one git-style unified diff: each file's content
 * the first time the turn touched it is the baseline; moves keep the file's identity.
 */
export class TurnDiffTracker {
  private readonly files: Tracked[] = [];

  /** `root`: the folder diff paths are relative to (found while the turn runs: see findRepoRoot). */
  constructor(private readonly root: string | Promise<string>) {}

  /** Call before a patch is written, for every path it will touch (and each move's destination). */
  async beforeChange(changes: { path: string; movePath?: string | null }[]): Promise<void> {
    for (const change of changes) {
      if (this.files.some((f) => f.currentPath === change.path)) continue;
      const baseline = await readOrNull(change.path);
      this.files.push({
        originalPath: baseline ? change.path : null,
        currentPath: change.path,
        baseline,
        baselineMode: await modeOf(change.path),
      });
    }
  }

  /** Call after a patch was written. */
  afterChange(changes: { path: string; kind: 'add' | 'delete' | 'update'; movePath?: string | null }[]): void {
    for (const change of changes) {
      const tracked = this.files.find((f) => f.currentPath === change.path);
      if (!tracked) continue;
      if (change.kind === 'delete') tracked.currentPath = null;
      else if (change.movePath) {
        // The destination may have been tracked separately (overwritten by the move): it is this file now.
        const dest = this.files.findIndex((f) => f !== tracked && f.currentPath === change.movePath);
        if (dest >= 0) this.files.splice(dest, 1);
        tracked.currentPath = change.movePath;
      }
    }
  }

  /** The aggregated diff, files in path order; empty when nothing differs from the baselines. */
  async diff(): Promise<string> {
    const root = await this.root;
    const parts: { key: string; text: string }[] = [];
    for (const f of this.files) {
      const current = f.currentPath ? await readOrNull(f.currentPath) : null;
      if (f.baseline === null && current === null) continue;
      if (f.baseline && current && f.baseline.equals(current) && f.originalPath === f.currentPath) continue;
      const text = await this.fileDiff(root, f, current);
      parts.push({ key: rel(root, f.originalPath ?? f.currentPath ?? ''), text });
    }
    parts.sort((a, b) => a.key.localeCompare(b.key));
    return parts.map((p) => p.text).join('');
  }

  private async fileDiff(root: string, f: Tracked, current: Buffer | null): Promise<string> {
    const oldName = f.originalPath ? rel(root, f.originalPath) : rel(root, f.currentPath ?? '');
    const newName = f.currentPath ? rel(root, f.currentPath) : oldName;
    const lines = [`diff --git a/${oldName} b/${newName}`];
    const newMode = f.currentPath ? await modeOf(f.currentPath) : '100644';
    if (f.baseline === null) lines.push(`new file mode ${newMode}`);
    else if (current === null) lines.push(`deleted file mode ${f.baselineMode}`);
    else if (f.baselineMode !== newMode) lines.push(`old mode ${f.baselineMode}`, `new mode ${newMode}`);
    const oldOid = f.baseline ? blobOid(f.baseline) : ZERO_OID;
    const newOid = current ? blobOid(current) : ZERO_OID;
    const sameMode = f.baseline !== null && current !== null && f.baselineMode === newMode;
    lines.push(`index ${oldOid}..${newOid}${sameMode ? ` ${newMode}` : ''}`);
    if (isBinary(f.baseline) || isBinary(current)) {
      lines.push(
        `Binary files ${f.baseline ? `a/${oldName}` : '/dev/null'} and ${current ? `b/${newName}` : '/dev/null'} differ`,
      );
      return `${lines.join('\n')}\n`;
    }
    const oldText = f.baseline?.toString('utf8') ?? '';
    const newText = current?.toString('utf8') ?? '';
    lines.push(f.baseline ? `--- a/${oldName}` : '--- /dev/null', current ? `+++ b/${newName}` : '+++ /dev/null');
    const patch = structuredPatch(oldName, newName, oldText, newText, undefined, undefined, { context: 3 });
    for (const h of patch.hunks) {
      lines.push(`@@ -${range(h.oldStart, h.oldLines)} +${range(h.newStart, h.newLines)} @@`);
      lines.push(...h.lines);
    }
    return `${lines.join('\n')}\n`;
  }
}

/** A hunk range as git writes it: an empty range starts at the line before it (0 for an empty file). */
function range(start: number, count: number): string {
  if (count === 0) return `${Math.max(0, start - 1)},0`;
  return count === 1 ? `${start}` : `${start},${count}`;
}

async function readOrNull(path: string): Promise<Buffer | null> {
  try {
    return await readFile(path);
  } catch {
    return null;
  }
}

async function modeOf(path: string): Promise<string> {
  try {
    return (await stat(path)).mode & 0o111 ? '100755' : '100644';
  } catch {
    return '100644';
  }
}

/** Git's object id for file content: sha1 of `blob <size>\0<content>`. */
export function blobOid(content: Buffer): string {
  return createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
}

function isBinary(b: Buffer | null): boolean {
  return b !== null && b.subarray(0, 8000).includes(0);
}

function rel(root: string, p: string): string {
  return relative(root, p).split('\\').join('/');
}
