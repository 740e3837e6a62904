// Sends a turn's aggregated diff (`turn/diff/updated`, Codex's notification: threadId, turnId, diff).
import type { TurnDiffTracker } from './turn-diff';
import type { ToolContext } from './types';

/**
 * Sends the turn's diff as it stands; unless `always`, only when it differs from the one last sent (a
 * command that changed nothing the diff shows sends nothing).
 */
export async function sendTurnDiff(ctx: ToolContext, turnDiff: TurnDiffTracker, always: boolean): Promise<void> {
  const { diff, cut } = await turnDiff.diff();
  if (!always && diff === (turnDiff.lastSent ?? '')) return;
  turnDiff.lastSent = diff;
  ctx.emit({
    method: 'turn/diff/updated',
    params: {
      threadId: ctx.threadId,
      turnId: ctx.turnId,
      diff,
      ...(cut === undefined ? {} : { weftDiffCut: cut }),
    },
  });
}
