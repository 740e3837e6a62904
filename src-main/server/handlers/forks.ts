// Forks with files: where they live (`weft/forks/list`, for the sidebar's tree), how a fork's files
// compare with its parent's project (`weft/forks/compare`), and removing a fork's folder
// (`weft/forks/remove`, which lists work found nowhere else before it removes anything), and bringing a
// fork's changes back to its parent's project as a reviewed patch (`weft/forks/bringBack`).
import { access, rm } from 'node:fs/promises';
import { relative, resolve } from 'node:path';
import type { WeftFork, WeftForkCompareFile } from '../../../src-preload/protocol';
import type { ForkRecord } from '../../checkpoints/fork-records';
import { workOnlyInFork } from '../../checkpoints/fork-work';
import { sameContent, type Entry } from '../../checkpoints/types';
import { git } from '../../safety/git/run';
import type { HandlerTable } from '../dispatcher';
import { invalidParams, invalidRequest } from '../rpc-error';
import { checkpointRpcError } from './checkpoints';
import { bringBack } from './fork-bring-back';
import type { HandlerContext } from './context';

type ForkHandlers = Pick<
  HandlerTable,
  'weft/forks/list' | 'weft/forks/compare' | 'weft/forks/remove' | 'weft/forks/bringBack'
>;

/** Texts larger than this are not sent. */
const TEXT_MAX_BYTES = 1024 * 1024;

function forkOf(record: ForkRecord): WeftFork {
  return {
    threadId: record.threadId,
    parentThreadId: record.parentThreadId,
    project: record.project,
    cwd: record.cwd,
    folder: record.folder,
    kind: record.kind,
    branch: record.branch,
    createdAt: record.createdAt,
    removed: record.removedAt !== null,
  };
}

export function forkHandlers(ctx: HandlerContext): ForkHandlers {
  const service = (): NonNullable<HandlerContext['environment']['checkpoints']>['service'] => {
    const checkpoints = ctx.environment.checkpoints;
    if (checkpoints === undefined)
      throw invalidRequest('checkpoints are turned off ([checkpoints] enabled = false): forks with files are not kept');
    return checkpoints.service;
  };
  const recordOf = async (threadId: string): Promise<ForkRecord> => {
    const record = await service().forks.get(threadId);
    if (record === null) throw invalidParams(`params.threadId: thread ${threadId} is not a fork with its own files`);
    return record;
  };

  return {
    'weft/forks/list': async (params) => {
      const forks = (await ctx.environment.checkpoints?.service.forks.list()) ?? [];
      return { data: forks.filter((record) => record.project === params.cwd).map(forkOf) };
    },

    'weft/forks/compare': async (params) => {
      const record = await recordOf(params.threadId);
      if (record.removedAt !== null || !(await exists(record.cwd)))
        throw invalidRequest(`the fork's folder ${record.cwd} was removed: there is nothing to compare`);
      const checkpoints = service();
      let parent: Map<string, Entry>;
      let fork: Map<string, Entry>;
      try {
        parent = await checkpoints.stateWithout({
          threadId: record.parentThreadId,
          root: record.parentCwd,
          laterTurnIds: [],
        });
        fork = await checkpoints.stateWithout({ threadId: record.threadId, root: record.cwd, laterTurnIds: [] });
      } catch (error) {
        throw checkpointRpcError(error);
      }
      const base = await checkpoints.forks.base(record);
      const text = async (entry: Entry | null): Promise<{ text: string | null; binary: boolean }> => {
        if (entry === null) return { text: null, binary: false };
        if (entry.kind === 'symlink') return { text: `→ ${entry.target}`, binary: false };
        if (entry.kind !== 'file' || entry.hash === null || entry.size > TEXT_MAX_BYTES)
          return { text: null, binary: false };
        const bytes = await checkpoints.blobs.read(entry.hash);
        return bytes.includes(0) ? { text: null, binary: true } : { text: bytes.toString('utf8'), binary: false };
      };
      const paths = new Set([...parent.keys(), ...fork.keys(), ...base.keys()]);
      const files: WeftForkCompareFile[] = [];
      for (const path of [...paths].sort()) {
        const p = parent.get(path) ?? null;
        const f = fork.get(path) ?? null;
        if (p?.kind === 'dir' || f?.kind === 'dir' || sameContent(p, f)) continue;
        const b = base.get(path) ?? null;
        const inFork = !sameContent(b, f);
        const inParent = !sameContent(b, p);
        const parentText = await text(p);
        const forkText = await text(f);
        files.push({
          path,
          changedIn: inFork && inParent ? 'both' : inFork ? 'fork' : 'parent',
          parent: parentText.text,
          fork: forkText.text,
          binary: parentText.binary || forkText.binary,
        });
      }
      return { parentCwd: record.parentCwd, cwd: record.cwd, files };
    },

    'weft/forks/bringBack': async (params) => {
      const record = await recordOf(params.threadId);
      if (record.removedAt !== null || !(await exists(record.cwd)))
        throw invalidRequest(`the fork's folder ${record.cwd} was removed: there are no changes to bring back`);
      if (params.dryRun !== true && ctx.manager.get(record.parentThreadId)?.session.activeTurnId)
        throw invalidRequest('a turn is running in the parent thread; wait for it to end before bringing changes back');
      return bringBack(service(), record, params);
    },

    'weft/forks/remove': async (params) => {
      const record = await recordOf(params.threadId);
      const checkpoints = service();
      if (record.removedAt !== null || !(await exists(record.folder)))
        return { removed: false, uncommitted: [], fork: forkOf(record) };
      // Changed paths (uncommitted in a worktree, changed since the base in a copy) that the parent's
      // folder does not hold as they are.
      const changed =
        record.kind === 'worktree' ? await gitUncommitted(record.folder) : await copyChanges(record, checkpoints);
      const parentRoot = resolve(record.parentCwd, relative(record.cwd, record.folder));
      const uncommitted = await workOnlyInFork(record.folder, parentRoot, changed);
      if (params.dryRun === true || (uncommitted.length > 0 && params.force !== true))
        return { removed: false, uncommitted, fork: forkOf(record) };
      if (ctx.manager.get(record.threadId)?.session.activeTurnId)
        throw invalidRequest('a turn is running in this fork; interrupt it before removing its folder');
      try {
        if (record.kind === 'worktree') await git(record.parentCwd, ['worktree', 'remove', '--force', record.folder]);
        else await rm(record.folder, { recursive: true, force: true });
      } catch (error) {
        const detail = error instanceof Error && 'stderr' in error ? String(error.stderr).trim() : String(error);
        throw invalidRequest(`could not remove ${record.folder}: ${detail}`);
      }
      const removed: ForkRecord = { ...record, removedAt: new Date().toISOString() };
      await checkpoints.forks.save(removed);
      return { removed: true, uncommitted, fork: forkOf(removed) };
    },
  };
}

/** Paths `git status` reports in a worktree (changes not committed on its branch). */
async function gitUncommitted(folder: string): Promise<string[]> {
  const { stdout } = await git(folder, ['status', '--porcelain=v1', '-z', '--untracked-files=all'], {
    optionalLocks: false,
  });
  const out: string[] = [];
  const parts = stdout.split('\0');
  for (let i = 0; i < parts.length; i += 1) {
    const part = parts[i] ?? '';
    if (part.length < 4) continue;
    out.push(part.slice(3));
    // A rename or copy is followed by its source path.
    if (part[0] === 'R' || part[0] === 'C') i += 1;
  }
  return out.sort();
}

/** Files of a copy that differ from the state it started from (work found nowhere else). */
async function copyChanges(
  record: ForkRecord,
  checkpoints: NonNullable<HandlerContext['environment']['checkpoints']>['service'],
): Promise<string[]> {
  const base = await checkpoints.forks.base(record);
  const now = await checkpoints.stateWithout({ threadId: record.threadId, root: record.cwd, laterTurnIds: [] });
  const out: string[] = [];
  for (const path of new Set([...base.keys(), ...now.keys()])) {
    const before = base.get(path) ?? null;
    const after = now.get(path) ?? null;
    if (before?.kind === 'dir' || after?.kind === 'dir') continue;
    if (!sameContent(before, after)) out.push(path);
  }
  return out.sort();
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}
