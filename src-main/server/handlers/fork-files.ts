// The files side of `thread/fork {weftWorktree: true}`: the project as it was after the forked turn,
// in a git worktree (or a copy), which becomes the new thread's cwd.
import { randomBytes } from 'node:crypto';
import { createForkFiles, type ForkFilesResult } from '../../checkpoints/fork-files';
import { invalidParams, invalidRequest } from '../rpc-error';
import { checkpointRpcError } from './checkpoints';
import type { HandlerContext } from './context';
import { storeCall } from './store-call';

export async function forkFiles(ctx: HandlerContext, threadId: string, afterTurnId: string | null): Promise<ForkFilesResult> {
  const checkpoints = ctx.environment.checkpoints;
  if (checkpoints === undefined) throw invalidRequest('checkpoints are turned off ([checkpoints] enabled = false): a fork cannot take the files along');
  const read = storeCall(() => ctx.store.read(threadId, { includeTurns: true, turnsLimit: 100_000 }));
  const ids = read.thread.turns.map((turn) => turn.id);
  const index = afterTurnId === null ? ids.length - 1 : ids.indexOf(afterTurnId);
  if (afterTurnId !== null && index < 0) throw invalidParams(`weftTurnId: turn ${afterTurnId} is not in thread ${threadId}`);
  const root = ctx.manager.get(threadId)?.thread.cwd ?? read.thread.cwd;
  try {
    const state = await checkpoints.service.stateWithout({ threadId, root, laterTurnIds: ids.slice(index + 1) });
    return await createForkFiles({ root, state, blobs: checkpoints.service.blobs, worktreesDir: checkpoints.worktreesDir, shortId: randomBytes(4).toString('hex') });
  } catch (error) {
    throw checkpointRpcError(error);
  }
}
