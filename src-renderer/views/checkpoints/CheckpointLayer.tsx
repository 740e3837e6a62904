// The checkpoint views that float over the conversation: the restore preview and the Redo bar.
import { RedoBar } from './RedoBar';
import { RestoreDialog } from './RestoreDialog';
import { useCheckpointUi } from '../../store/checkpoint-ui';

export function CheckpointLayer() {
  const restore = useCheckpointUi((s) => s.restore);
  return (
    <>
      <RedoBar />
      {restore !== null && <RestoreDialog key={`${restore.threadId}:${restore.beforeTurnId}`} target={restore} />}
    </>
  );
}
