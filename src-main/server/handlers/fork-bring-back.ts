// "Bring changes back" (`weft/forks/bringBack`): a fork's changes since it was made, as an apply_patch
// patch on its parent's project. The patch is planned by the apply_patch engine against the parent's files
// as they are now (so hunks find their place even where the parent moved on), shown in the review dialog,
// and written all or nothing with the hunks the person declined left out.
import { createHash } from 'node:crypto';
import { realpath } from 'node:fs/promises';
import { structuredPatch } from 'diff';
import type {
  FileUpdateChange,
  WeftForkSkippedChange,
  WeftForksBringBackParams,
  WeftForksBringBackResult,
} from '../../../src-preload/protocol';
import type { CheckpointService } from '../../checkpoints/service';
import { isInsidePath } from '../../safety/sandbox/writable-roots';
import type { ForkRecord } from '../../checkpoints/fork-records';
import { sameContent, type Entry } from '../../checkpoints/types';
import {
  commitPreparedPlan,
  planPatch,
  fileChangesOf,
  withDeclinedHunks,
  type Chunk,
  type FileHunk,
  type PatchPlan,
} from '../../tools/apply-patch';
import { invalidParams, invalidRequest } from '../rpc-error';
import { checkpointRpcError } from './checkpoints';

/** What the patch is built from: the fork's files, the state it started from, the parent's files now. */
interface Sides {
  base: ReadonlyMap<string, Entry>;
  fork: ReadonlyMap<string, Entry>;
  parent: ReadonlyMap<string, Entry>;
}

/** A change a patch cannot carry, in words for people; null when it can. */
function unpatchable(entry: Entry | null): string | null {
  if (entry === null || entry.kind === 'dir') return null;
  if (entry.kind === 'symlink') return 'a symlink: a patch carries text files only';
  if (entry.hash === null) return 'too large to have been checkpointed';
  return null;
}

async function textOf(service: CheckpointService, entry: Entry | null): Promise<string | null> {
  if (entry === null || entry.kind !== 'file' || entry.hash === null) return null;
  const bytes = await service.blobs.read(entry.hash);
  return bytes.includes(0) ? null : bytes.toString('utf8');
}

/** The lines of a text as apply_patch counts them: a final line end ends the last line. */
function linesOf(text: string): string[] {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

/** The `@@` chunks that turn `before` into `after` (three lines of context, as a model would write). */
function chunksOf(before: string, after: string): Chunk[] {
  const total = linesOf(before).length;
  const diff = structuredPatch('a', 'b', before, after, '', '', { context: 3 });
  return diff.hunks.map((hunk) => {
    const oldLines: string[] = [];
    const newLines: string[] = [];
    let ops = '';
    for (const line of hunk.lines) {
      const op = line[0];
      const body = line.slice(1);
      if (op === ' ') {
        oldLines.push(body);
        newLines.push(body);
        ops += ' ';
      } else if (op === '-') {
        oldLines.push(body);
        ops += '-';
      } else if (op === '+') {
        newLines.push(body);
        ops += '+';
      }
    }
    const reachesEnd = hunk.oldLines > 0 && hunk.oldStart + hunk.oldLines - 1 >= total;
    return { contexts: [], oldLines, newLines, ops, isEndOfFile: reachesEnd, patchLine: 0 };
  });
}

/** A file's part of the patch; an update says whether the parent changed the file since the fork. */
type DraftHunk =
  Exclude<FileHunk, { kind: 'update' }> | (Extract<FileHunk, { kind: 'update' }> & { parentMoved: boolean });

/** The patch (relative paths) and what it leaves out, from the three states. */
async function buildPatch(
  service: CheckpointService,
  sides: Sides,
): Promise<{ hunks: DraftHunk[]; skipped: WeftForkSkippedChange[] }> {
  const hunks: DraftHunk[] = [];
  const skipped: WeftForkSkippedChange[] = [];
  const paths = [...new Set([...sides.base.keys(), ...sides.fork.keys()])].sort();
  for (const path of paths) {
    const base = sides.base.get(path) ?? null;
    const fork = sides.fork.get(path) ?? null;
    if (base?.kind === 'dir' || fork?.kind === 'dir' || sameContent(base, fork)) continue;
    const parent = sides.parent.get(path) ?? null;
    // Already the same in the parent: nothing to bring.
    if (sameContent(parent, fork)) continue;
    const cannot =
      path.includes('\0') || path.includes('\n')
        ? 'its name is not a line of UTF-8 text: a patch cannot name it'
        : (unpatchable(fork) ?? unpatchable(base) ?? unpatchable(parent));
    if (cannot !== null) {
      skipped.push({ path, reason: cannot });
      continue;
    }
    if (parent?.kind === 'dir') {
      skipped.push({ path, reason: 'the parent has a folder there' });
      continue;
    }
    const forkText = await textOf(service, fork);
    const baseText = await textOf(service, base);
    if ((fork !== null && forkText === null) || (base !== null && baseText === null)) {
      skipped.push({ path, reason: 'a binary file: a patch carries text files only' });
      continue;
    }
    if (fork === null) {
      if (parent === null) continue;
      if (!sameContent(parent, base)) {
        skipped.push({ path, reason: 'deleted in the fork, but the parent changed it since the fork' });
        continue;
      }
      hunks.push({ kind: 'delete', path });
    } else if (base === null || parent === null) {
      if (parent !== null) {
        skipped.push({ path, reason: 'added in the fork, but the parent has its own file there' });
        continue;
      }
      if (base !== null) {
        skipped.push({ path, reason: 'changed in the fork, but the parent deleted it since the fork' });
        continue;
      }
      hunks.push({ kind: 'add', path, contents: forkText ?? '' });
    } else {
      if ((await textOf(service, parent)) === null) {
        skipped.push({ path, reason: 'a binary file in the parent: a patch carries text files only' });
        continue;
      }
      const chunks = chunksOf(baseText ?? '', forkText ?? '');
      // Only the line end at the end of the file changed: apply_patch keeps the file's own.
      if (chunks.length === 0) {
        skipped.push({ path, reason: 'only the line end at the end of the file differs' });
        continue;
      }
      hunks.push({ kind: 'update', path, movePath: null, chunks, parentMoved: !sameContent(parent, base) });
    }
  }
  return { hunks, skipped };
}

/** Whether apply_patch can place this one chunk in the parent's file. */
async function fits(cwd: string, path: string, chunk: Chunk): Promise<boolean> {
  try {
    await planPatch({ hunks: [{ kind: 'update', path, movePath: null, chunks: [chunk] }] }, { cwd });
    return true;
  } catch {
    return false;
  }
}

function reversed(chunk: Chunk): Chunk {
  const ops = [...(chunk.ops ?? '')].map((op) => (op === '+' ? '-' : op === '-' ? '+' : op)).join('');
  return { ...chunk, oldLines: chunk.newLines, newLines: chunk.oldLines, ops };
}

/**
 * For a file the parent changed too: each chunk that still finds its lines is kept, one whose result is
 * already there (brought back before, or made the same way) is dropped; if any chunk fits neither way the
 * file is skipped, named, rather than half brought.
 */
async function fitToParent(
  cwd: string,
  hunks: readonly DraftHunk[],
  skipped: WeftForkSkippedChange[],
): Promise<FileHunk[]> {
  const out: FileHunk[] = [];
  for (const hunk of hunks) {
    if (hunk.kind !== 'update' || !hunk.parentMoved) {
      out.push(hunk);
      continue;
    }
    const chunks: Chunk[] = [];
    let clash = false;
    for (const chunk of hunk.chunks) {
      if (await fits(cwd, hunk.path, chunk)) chunks.push(chunk);
      else if (!(await fits(cwd, hunk.path, reversed(chunk)))) clash = true;
    }
    if (clash) skipped.push({ path: hunk.path, reason: 'the parent changed the same lines since the fork' });
    else if (chunks.length > 0) out.push({ kind: 'update', path: hunk.path, movePath: null, chunks });
  }
  return out;
}

function fingerprintOf(changes: readonly FileUpdateChange[], skipped: readonly WeftForkSkippedChange[]): string {
  return createHash('sha256')
    .update(JSON.stringify([changes, skipped]))
    .digest('hex')
    .slice(0, 32);
}

export async function bringBack(
  service: CheckpointService,
  record: ForkRecord,
  params: WeftForksBringBackParams,
): Promise<WeftForksBringBackResult> {
  let sides: Sides;
  try {
    sides = {
      base: await service.forks.base(record),
      fork: await service.stateWithout({ threadId: record.threadId, root: record.cwd, laterTurnIds: [] }),
      parent: await service.stateWithout({
        threadId: record.parentThreadId,
        root: record.parentCwd,
        laterTurnIds: [],
      }),
    };
  } catch (error) {
    throw checkpointRpcError(error);
  }
  const draft = await buildPatch(service, sides);
  const skipped = draft.skipped;
  const hunks = await fitToParent(record.parentCwd, draft.hunks, skipped);
  skipped.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  let plan: PatchPlan;
  try {
    plan = hunks.length === 0 ? { files: [] } : await planPatch({ hunks }, { cwd: record.parentCwd });
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw invalidRequest(`the fork's changes no longer fit the parent's files: ${detail}`);
  }
  const changes = await fileChangesOf(plan);
  const fingerprint = fingerprintOf(changes, skipped);
  const result = {
    parentThreadId: record.parentThreadId,
    parentCwd: record.parentCwd,
    changes,
    skipped,
    fingerprint,
  };
  if (params.dryRun === true) return { ...result, applied: [] };
  if (params.fingerprint === null || params.fingerprint === undefined)
    throw invalidParams('params.fingerprint: send the fingerprint of the preview that was reviewed (dryRun first)');
  if (params.fingerprint !== fingerprint)
    throw invalidRequest(
      'the fork or its parent changed since the preview: nothing was written; review the changes again',
    );
  for (const decision of params.weftHunks ?? [])
    if (!changes.some((change) => change.path === decision.path))
      throw invalidParams(`params.weftHunks: ${decision.path} is not a file of this patch`);
  const declined = (params.weftHunks ?? []).filter((d) => d.decision === 'decline');
  const kept = withDeclinedHunks(plan, declined);
  for (const file of kept.files) {
    if (file.path === record.parentCwd || !isInsidePath(file.path, record.parentCwd))
      throw invalidRequest(`refused to write ${file.path}: it is outside the parent's project`);
  }
  if (kept.files.length === 0) return { ...result, applied: [] };
  const realRoot = await realpath(record.parentCwd);
  const outcome = await commitPreparedPlan(kept, {
    mayWrite: (real) => (real === realRoot || !isInsidePath(real, realRoot) ? "outside the parent's project" : null),
  });
  if (!outcome.ok) throw invalidRequest(`nothing was written: ${outcome.output.trim()}`);
  return { ...result, applied: kept.files.map((file) => file.path) };
}
