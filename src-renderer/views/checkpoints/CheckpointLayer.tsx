// The checkpoint views that float over the conversation: the restore preview, the Redo bar, and the
// fork dialogs (Compare with parent, Bring changes back, Remove worktree).
import { BringBackDialog } from './BringBackDialog';
import { ForkCompareDialog } from './ForkCompareDialog';
import { RedoBar } from './RedoBar';
import { RemoveForkDialog } from './RemoveForkDialog';
import { RestoreDialog } from './RestoreDialog';
import { useCheckpointUi } from '../../store/checkpoint-ui';

export function CheckpointLayer() {
  const restore = useCheckpointUi((s) => s.restore);
  const compare = useCheckpointUi((s) => s.compare);
  const removeFork = useCheckpointUi((s) => s.removeFork);
  const bringBack = useCheckpointUi((s) => s.bringBack);
  return (
    <>
      <RedoBar />
      {restore !== null && <RestoreDialog key={`${restore.threadId}:${restore.beforeTurnId}`} target={restore} />}
      {compare !== null && <ForkCompareDialog key={compare} threadId={compare} />}
      {bringBack !== null && <BringBackDialog key={bringBack} threadId={bringBack} />}
      {removeFork !== null && <RemoveForkDialog key={removeFork} threadId={removeFork} />}
    </>
  );
}
