// What a handoff would do, path by path, from the files as they are now: the source's changes since the
// base commit, each compared with the destination's file (changed there too since the base, or not). A
// destination file that changed is never overwritten by the plan: both changes are merged when their lines
// do not overlap, else it is a conflict for the person. Nothing is written here.
import { createHash } from 'node:crypto';
import type { WeftHandoffDirection, WeftHandoffFile, WeftHandoffSide } from '../../src-preload/protocol';
import { OutsideRootError, readWorkspaceEntry } from '../util/workspace-file';
import { mergeText } from './handoff-merge';
import { blobText, changedSince, type CommitEntry } from './handoff-scan';

/** Largest file a handoff carries (it is held in memory while it is written). */
const MAX_FILE_BYTES = 256 * 1024 * 1024;
/** Texts larger than this are not shown in a preview. */
const SHOWN_TEXT_BYTES = 1024 * 1024;
/** Files read side by side. */
const CONCURRENCY = 8;

/** The two sides in words, for reasons people read. */
interface SideNames {
  source: string;
  dest: string;
}

/** One side of a path as read now. `other`: something a handoff does not carry, and why. */
export type SideState =
  | { kind: 'absent' }
  | { kind: 'file'; bytes: Buffer; mode: number }
  | { kind: 'symlink'; target: string }
  | { kind: 'other'; why: string };

export interface PlannedPath {
  path: string;
  status: WeftHandoffFile['status'];
  reason: string | null;
  source: SideState;
  dest: SideState;
  /** What the destination becomes (`apply`: the source's version, `merge`: both); null otherwise. */
  result: SideState | null;
}

export interface HandoffPlan {
  direction: WeftHandoffDirection;
  localTop: string;
  worktreeTop: string;
  sourceTop: string;
  destTop: string;
  base: string;
  paths: PlannedPath[];
  fingerprint: string;
}

export interface HandoffPlanInput {
  direction: WeftHandoffDirection;
  localTop: string;
  worktreeTop: string;
  /** The commit both sides' changes are counted from (the worktree's base commit, or the local HEAD). */
  base: string;
}

export async function planHandoff(input: HandoffPlanInput): Promise<HandoffPlan> {
  const toLocal = input.direction === 'toLocal';
  const sourceTop = toLocal ? input.worktreeTop : input.localTop;
  const destTop = toLocal ? input.localTop : input.worktreeTop;
  const [sourceChanged, destChanged] = await Promise.all([
    changedSince(sourceTop, input.base),
    changedSince(destTop, input.base),
  ]);
  const names = [...sourceChanged.keys()].sort();
  const paths: PlannedPath[] = new Array<PlannedPath>(names.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < names.length; i = next++) {
      const path = names[i] ?? '';
      paths[i] = await planPath({
        path,
        base: sourceChanged.get(path) ?? null,
        destChanged: destChanged.has(path),
        sourceTop,
        destTop,
        names: toLocal
          ? { source: 'the worktree', dest: 'the local checkout' }
          : { source: 'the local checkout', dest: 'the worktree' },
      });
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const plan = { ...input, sourceTop, destTop, paths };
  return { ...plan, fingerprint: fingerprintOf(plan) };
}

async function planPath(input: {
  path: string;
  base: CommitEntry | null;
  destChanged: boolean;
  sourceTop: string;
  destTop: string;
  names: SideNames;
}): Promise<PlannedPath> {
  const { path, base } = input;
  const [source, dest] = await Promise.all([readSide(input.sourceTop, path), readSide(input.destTop, path)]);
  const planned = (status: PlannedPath['status'], reason: string | null, result: SideState | null = null) => ({
    path,
    status,
    reason,
    source,
    dest,
    result,
  });
  if (base?.mode === '160000') return planned('skipped', 'a submodule: commit in it and update it with git');
  if (source.kind === 'other') return planned('skipped', source.why);
  if (sameState(source, dest)) return planned('same', null);
  if (dest.kind === 'other') return planned('skipped', `in ${input.names.dest}: ${dest.why}`);
  // A path the base does not have changed in the destination when anything is there now.
  const destChanged = base === null ? dest.kind !== 'absent' : input.destChanged;
  if (!destChanged) return planned('apply', null, source);
  const merged = await tryMerge(input.destTop, base, source, dest);
  // Merged into what the destination holds already (brought over before): nothing to do.
  if (merged !== null) return sameState(merged, dest) ? planned('same', null) : planned('merge', null, merged);
  return planned('conflict', conflictReason(base, source, dest, input.names));
}

/** Both sides changed a text file: the two changes together, when they do not overlap. */
async function tryMerge(
  top: string,
  base: CommitEntry | null,
  source: SideState,
  dest: SideState,
): Promise<SideState | null> {
  if (base === null || !/^1006[0-9]{2}$/.test(base.mode) || source.kind !== 'file' || dest.kind !== 'file') return null;
  const theirs = textOf(source.bytes);
  const ours = textOf(dest.bytes);
  if (theirs === null || ours === null) return null;
  const baseText = await blobText(top, base.oid);
  if (baseText === null) return null;
  const merged = await mergeText(top, baseText, ours, theirs);
  return merged === null ? null : { kind: 'file', bytes: Buffer.from(merged, 'utf8'), mode: source.mode };
}

function conflictReason(base: CommitEntry | null, source: SideState, dest: SideState, names: SideNames): string {
  if (base === null) return `added in ${names.source}, and ${names.dest} has a file of its own there`;
  if (source.kind === 'absent') return `deleted in ${names.source}, but changed in ${names.dest}`;
  if (dest.kind === 'absent') return `changed in ${names.source}, but deleted in ${names.dest}`;
  if (source.kind === 'file' && dest.kind === 'file' && (textOf(source.bytes) === null || textOf(dest.bytes) === null))
    return 'a binary file changed in both';
  return 'changed in both, in the same lines';
}

/** The bytes as text when they are UTF-8 without NUL bytes; else null. */
function textOf(bytes: Buffer): string | null {
  if (bytes.includes(0)) return null;
  const text = bytes.toString('utf8');
  return Buffer.byteLength(text, 'utf8') === bytes.length ? text : null;
}

async function readSide(top: string, path: string): Promise<SideState> {
  try {
    const entry = await readWorkspaceEntry(top, path, MAX_FILE_BYTES);
    switch (entry.kind) {
      case 'missing':
        return { kind: 'absent' };
      case 'file':
        return { kind: 'file', bytes: entry.bytes, mode: entry.mode & 0o777 };
      case 'symlink':
        return { kind: 'symlink', target: entry.target };
      case 'tooLarge':
        return { kind: 'other', why: `too large to hand off (${Math.ceil(entry.size / 1048576)} MiB)` };
      case 'other':
        return { kind: 'other', why: 'a folder or a special file is there' };
    }
  } catch (error) {
    if (error instanceof OutsideRootError) return { kind: 'other', why: 'it is reached through a symlinked folder' };
    throw error;
  }
}

/** Same content, executable bit and link target (folders and special files are never the same). */
export function sameState(a: SideState, b: SideState): boolean {
  if (a.kind === 'absent' || b.kind === 'absent') return a.kind === b.kind;
  if (a.kind === 'file' && b.kind === 'file') return (a.mode & 0o111) === (b.mode & 0o111) && a.bytes.equals(b.bytes);
  if (a.kind === 'symlink' && b.kind === 'symlink') return a.target === b.target;
  return false;
}

function digest(state: SideState | null): string {
  if (state === null) return '-';
  switch (state.kind) {
    case 'absent':
      return 'absent';
    case 'file':
      return `file:${(state.mode & 0o111) === 0 ? '' : 'x'}:${createHash('sha256').update(state.bytes).digest('hex')}`;
    case 'symlink':
      return `symlink:${state.target}`;
    case 'other':
      return `other:${state.why}`;
  }
}

function fingerprintOf(plan: Omit<HandoffPlan, 'fingerprint'>): string {
  const parts = plan.paths.map((p) => [p.path, p.status, digest(p.source), digest(p.dest), digest(p.result)]);
  return createHash('sha256')
    .update(JSON.stringify([plan.direction, plan.base, plan.localTop, plan.worktreeTop, parts]))
    .digest('hex')
    .slice(0, 32);
}

/** The preview's view of one planned path (texts cut at a size people can read). */
export function handoffFileView(plan: HandoffPlan, planned: PlannedPath): WeftHandoffFile {
  const toLocal = plan.direction === 'toLocal';
  const local = toLocal ? planned.dest : planned.source;
  const worktree = toLocal ? planned.source : planned.dest;
  const after = planned.status === 'conflict' ? planned.source : (planned.result ?? planned.source);
  const binary = [planned.source, planned.dest].some((s) => s.kind === 'file' && textOf(s.bytes) === null);
  return {
    path: planned.path,
    status: planned.status,
    change: after.kind === 'absent' ? 'delete' : planned.dest.kind === 'absent' ? 'add' : 'update',
    local: sideView(local),
    worktree: sideView(worktree),
    result: planned.status === 'merge' && planned.result?.kind === 'file' ? shownText(planned.result.bytes) : null,
    binary,
    reason: planned.reason,
  };
}

function sideView(state: SideState): WeftHandoffSide {
  switch (state.kind) {
    case 'absent':
      return { kind: 'absent', text: null };
    case 'file':
      return { kind: 'file', text: shownText(state.bytes) };
    case 'symlink':
      return { kind: 'symlink', text: state.target };
    case 'other':
      return { kind: 'other', text: null };
  }
}

function shownText(bytes: Buffer): string | null {
  return bytes.length > SHOWN_TEXT_BYTES ? null : textOf(bytes);
}
