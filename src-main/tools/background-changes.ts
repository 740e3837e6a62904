/**
 * Whose are the changes made while a command runs in the background (started by `exec_command`, still
 * running after its call returned)? A look cannot tell which process wrote a file, so the rule goes by
 * time: what changed between tool calls belongs to the turn of the earliest such command (it is the only
 * thing that ran), and what changed during a call belongs to that call's turn, with the record naming the
 * commands of other turns that were running too (an undo that takes such a change back without their
 * turn says so by name).
 */
import type { BackgroundCommand, FileCheckpoints } from './file-checkpoints';

/** A command running in the background, or one that ended since the last look. */
export interface BackgroundSession {
  sessionId: number;
  /** The turn that started it. */
  turnId: string;
  command: string;
  exited: boolean;
}

/** The exec engine's view of its background commands. */
export interface BackgroundSessions {
  /** Commands kept running after their call, and those that ended since `forgetExited` last saw them; oldest first. */
  backgroundSessions(): BackgroundSession[];
  /** Forgets the commands among `sessionIds` that have ended (a look after their end has seen all they did). */
  forgetExited(sessionIds: readonly number[]): void;
}

/** The turn whose background command owns changes made between calls: that of the oldest one. */
export function ownerOf(sessions: readonly BackgroundSession[]): string | null {
  return sessions[0]?.turnId ?? null;
}

/** The commands of turns other than `turnId` among `sessions`, still running. */
export function othersRunning(sessions: readonly BackgroundSession[], turnId: string): BackgroundCommand[] {
  return sessions
    .filter((s) => !s.exited && s.turnId !== turnId)
    .map((s) => ({ turnId: s.turnId, command: s.command }));
}

/**
 * Records what changed since the last look as the turn of the oldest background command, outside any
 * tool call (before a restore looks at the workspace, say). Nothing when no command ran in the background.
 */
export async function recordBackgroundChanges(
  checkpoints: Pick<FileCheckpoints, 'recordBetweenCalls'>,
  sessions: BackgroundSessions,
  threadId: string,
  root: string,
): Promise<void> {
  const seen = sessions.backgroundSessions();
  const owner = ownerOf(seen);
  if (owner === null) return;
  await checkpoints.recordBetweenCalls(root, { threadId, turnId: owner });
  sessions.forgetExited(seen.filter((s) => s.exited).map((s) => s.sessionId));
}
