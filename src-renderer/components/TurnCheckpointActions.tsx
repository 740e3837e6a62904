// A finished turn's checkpoint actions: "Undo this turn" on the latest, "Restore to here" on earlier
// ones (both open the preview), and "Fork into worktree" (a new thread in its own copy of the project as
// it was after this turn).
import { Icon } from './Icon';
import { useController, useWeft } from '../store/app-context';
import { openRestore } from '../store/checkpoint-ui';

export function TurnCheckpointActions({ threadId, turnId }: { threadId: string; turnId: string }) {
  const controller = useController();
  const turnIds = useWeft((s) => s.data.conversations[threadId]?.turnIds);
  const busy = useWeft((s) => {
    const conversation = s.data.conversations[threadId];
    return conversation?.turnIds.some((id) => conversation.turns[id]?.status === 'inProgress') ?? true;
  });
  const ephemeral = useWeft((s) => s.data.live.find((thread) => thread.id === threadId)?.ephemeral === true);
  if (turnIds === undefined || busy || ephemeral) return null;
  const index = turnIds.indexOf(turnId);
  if (index < 0) return null;
  const next = turnIds[index + 1];
  return (
    <>
      {next === undefined ? (
        <button
          type="button"
          className="link-button hover-action"
          onClick={() => openRestore({ threadId, beforeTurnId: turnId, kind: 'undo', dropped: 1 })}
        >
          <Icon name="undo" size={13} /> Undo this turn
        </button>
      ) : (
        <button
          type="button"
          className="link-button hover-action"
          onClick={() =>
            openRestore({ threadId, beforeTurnId: next, kind: 'restore', dropped: turnIds.length - index - 1 })
          }
        >
          <Icon name="undo" size={13} /> Restore to here
        </button>
      )}
      <button
        type="button"
        className="link-button hover-action"
        onClick={() => void controller.fork(threadId, turnId, { worktree: true })}
      >
        <Icon name="fork" size={13} /> Fork into worktree
      </button>
    </>
  );
}
