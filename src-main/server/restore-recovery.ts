// Start-up repair of an Undo that a crash cut short. A thread revert with files is journalled together:
// the files first, then the rollout's rollback of the turns. A host (app server, `weft serve`, the desktop
// app, `weft exec`) calls this before it answers anyone: the files of a journal that was applying are
// finished, then the turns it reverts are dropped, so the thread and the files agree again.
import type { CheckpointService } from '../checkpoints/service';
import type { ThreadStore } from '../store/thread-store';
import { errorMessage } from '../util/errors';

/** Threads with more turns than this are rare; the revert is found among their newest turns. */
const MAX_TURNS = 100_000;

export interface RecoveryStore {
  store: ThreadStore;
  /** Called once the recovery is done with it (a store opened for the recovery alone is closed). */
  release(): Promise<void>;
}

/**
 * Finishes the restores and thread reverts that processes which died left half done. `openStore` is
 * called only when a thread's turns are still to be dropped. Problems are logged; the journal of a
 * revert that could not be written stays for the next start.
 */
export async function finishInterruptedRestores(
  checkpoints: Pick<CheckpointService, 'recover' | 'finishRevert'>,
  openStore: () => RecoveryStore,
  log: (line: string) => void,
): Promise<void> {
  const { pending, warnings } = await checkpoints.recover();
  for (const warning of warnings) log(`weft: warning: ${warning}`);
  if (pending.length === 0) return;
  const { store, release } = openStore();
  try {
    for (const { journal, root, thread } of pending) {
      try {
        const read = store.read(thread.threadId, { includeTurns: true, turnsLimit: MAX_TURNS });
        const ids = read.thread.turns.map((turn) => turn.id);
        const index = ids.indexOf(thread.beforeTurnId);
        // Absent: the rollback was written before the crash. More turns than the revert saw: the thread
        // went on since (a start that could not drop them), and only the person can say what to drop.
        if (index >= 0 && ids.length - index === thread.turns) {
          await store.rollback(thread.threadId, thread.turns);
          log(
            `weft: finished an undo that was interrupted: the files in ${root} are restored and thread ${thread.threadId} went back to before turn ${thread.beforeTurnId}`,
          );
        } else if (index >= 0)
          log(
            `weft: warning: an interrupted undo restored the files in ${root}, but thread ${thread.threadId} has new turns since; turn ${thread.beforeTurnId} and the later ones were kept (revert them from the thread if you want)`,
          );
        await checkpoints.finishRevert(journal);
      } catch (error) {
        log(
          `weft: warning: the interrupted undo of thread ${thread.threadId} restored its files in ${root} but could not drop its turns (${errorMessage(error)}); it is tried again at the next start`,
        );
      }
    }
  } finally {
    await release();
  }
}
