// The files side of `thread/fork {weftWorktree: true}`: the project as it was after the forked turn,
// in a git worktree (or a copy), which becomes the new thread's cwd; then the fork's record (where it
// lives, the state it started from) for the sidebar and "Compare with parent".
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { createForkFiles, type ForkFilesResult } from '../../checkpoints/fork-files';
import { discardForkFiles } from '../../checkpoints/fork-leftovers';
import type { Entry } from '../../checkpoints/types';
import type { RolloutWeftWorktree } from '../../../src-preload/protocol';
import { invalidParams, invalidRequest } from '../rpc-error';
import { checkpointRpcError } from './checkpoints';
import type { HandlerContext } from './context';
import { storeCallAsync } from './store-call';

export interface ForkedFiles extends ForkFilesResult {
  /** The parent's cwd and the state written into the fork. */
  parentCwd: string;
  state: ReadonlyMap<string, Entry>;
  folder: string;
  /** Names the folder and the branch, and the note of the fork being made (settled by `recordFork`). */
  shortId: string;
  /** The fork's git worktree as its session_meta keeps it (null for a copy). */
  worktree: RolloutWeftWorktree | null;
}

export async function forkFiles(
  ctx: HandlerContext,
  threadId: string,
  afterTurnId: string | null,
): Promise<ForkedFiles> {
  const checkpoints = ctx.environment.checkpoints;
  if (checkpoints === undefined)
    throw invalidRequest(
      'checkpoints are turned off ([checkpoints] enabled = false): a fork cannot take the files along',
    );
  const read = await storeCallAsync(() => ctx.store.readAsync(threadId, { includeTurns: true, turnsLimit: 100_000 }));
  const ids = read.thread.turns.map((turn) => turn.id);
  const index = afterTurnId === null ? ids.length - 1 : ids.indexOf(afterTurnId);
  if (afterTurnId !== null && index < 0)
    throw invalidParams(`weftTurnId: turn ${afterTurnId} is not in thread ${threadId}`);
  const root = ctx.manager.get(threadId)?.thread.cwd ?? read.thread.cwd;
  const shortId = randomBytes(4).toString('hex');
  const folder = join(checkpoints.worktreesDir, shortId);
  const forks = checkpoints.service.forks;
  try {
    const state = await checkpoints.service.stateWithout({ threadId, root, laterTurnIds: ids.slice(index + 1) });
    // Noted before the folder exists: a crash from here on leaves something the next start finds.
    await forks.begin({ v: 1, shortId, folder, root, pid: process.pid, startedAt: new Date().toISOString() });
    const files = await createForkFiles({
      root,
      state,
      blobs: checkpoints.service.blobs,
      worktreesDir: checkpoints.worktreesDir,
      shortId,
    });
    const made = files.kind === 'copy' ? files.cwd : folderOf(files.cwd, checkpoints.worktreesDir, shortId);
    // A fork belongs to the project its parent belongs to (a worktree thread's, a fork's first project).
    const parentWorktree = ctx.manager.get(threadId)?.thread.weftWorktree ?? read.thread.weftWorktree ?? null;
    const projectRoot = parentWorktree?.projectRoot ?? (await forks.get(threadId))?.project ?? root;
    const worktree =
      files.branch === null || files.base === null
        ? null
        : {
            path: made,
            branch: files.branch,
            base_ref: files.base.ref,
            base_commit: files.base.commit,
            project_root: projectRoot,
          };
    return { ...files, parentCwd: root, state, folder: made, shortId, worktree };
  } catch (error) {
    await discardFork(ctx, { folder, shortId, root });
    throw checkpointRpcError(error);
  }
}

/** Removes what a fork that could not be made left (its half-made folder, its branch), as a leftover. */
export async function discardFork(
  ctx: HandlerContext,
  fork: { folder: string; shortId: string; root: string },
): Promise<void> {
  const checkpoints = ctx.environment.checkpoints;
  if (checkpoints === undefined) return;
  const { forks, blobs } = checkpoints.service;
  try {
    const report = await discardForkFiles(fork, { forks, blobs });
    for (const kept of report.kept) ctx.environment.log(`weft app-server: kept ${kept.path}: ${kept.reason}`);
  } catch (error) {
    ctx.environment.log(
      `weft app-server: warning: could not remove what the failed fork left in ${fork.folder}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

function folderOf(cwd: string, worktreesDir: string, shortId: string): string {
  const folder = `${worktreesDir}/${shortId}`;
  return cwd.startsWith(folder) ? folder : cwd;
}

/** Records a new fork with files: its parent, where it lives and the state it started from. */
export async function recordFork(
  ctx: HandlerContext,
  input: { threadId: string; parentThreadId: string; files: ForkedFiles; now?: Date },
): Promise<void> {
  const checkpoints = ctx.environment.checkpoints;
  if (checkpoints === undefined) return;
  const forks = checkpoints.service.forks;
  // A fork of a fork belongs to the first project.
  const parent = await forks.get(input.parentThreadId);
  await forks.saveBase(input.threadId, input.files.cwd, input.files.state);
  await forks.save({
    v: 1,
    threadId: input.threadId,
    parentThreadId: input.parentThreadId,
    project: parent?.project ?? input.files.worktree?.project_root ?? input.files.parentCwd,
    parentCwd: input.files.parentCwd,
    cwd: input.files.cwd,
    folder: input.files.folder,
    kind: input.files.kind,
    branch: input.files.branch,
    createdAt: (input.now ?? new Date()).toISOString(),
    removedAt: null,
  });
  await forks.settle(input.files.shortId);
}
