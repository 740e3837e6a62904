// After a restore: "Redo" puts the files back as the restore found them (the conversation stays where
// the restore left it). The offer ends with the next turn, whose changes would come first.
import { useState } from 'react';
import { Icon } from '../../components/Icon';
import { useController, useWeft } from '../../store/app-context';
import { conflictsOf, messageOf, offerRedo, useCheckpointUi, type RedoOffer } from '../../store/checkpoint-ui';

function Bar({ offer }: { offer: RedoOffer }) {
  const controller = useController();
  const [busy, setBusy] = useState(false);
  const [conflicts, setConflicts] = useState<string[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  const redo = async (force: boolean): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      const result = await controller.request('weft/checkpoints/redo', { threadId: offer.threadId, weftForce: force });
      setBusy(false);
      offerRedo({ ...offer, redone: result.weftFiles.restored.length });
    } catch (e) {
      const named = conflictsOf(e);
      if (named !== null) setConflicts(named);
      else setError(messageOf(e));
      setBusy(false);
    }
  };

  return (
    <div className="redo-bar" role="status" aria-label="Restore done">
      <Icon name="undo" size={14} />
      <span>
        {offer.redone !== null
          ? `Put ${offer.redone} ${offer.redone === 1 ? 'file' : 'files'} back as they were before the restore.`
          : conflicts !== null
            ? `Changed since the restore: ${conflicts.join(', ')}. Overwrite them?`
            : (error ?? `Restored ${offer.files} ${offer.files === 1 ? 'file' : 'files'}.`)}
      </span>
      <span className="spacer" />
      {conflicts !== null && (
        <>
          <button type="button" className="btn btn-small" onClick={() => setConflicts(null)}>
            Keep mine
          </button>
          <button type="button" className="btn btn-small btn-danger" disabled={busy} onClick={() => void redo(true)}>
            Overwrite
          </button>
        </>
      )}
      {conflicts === null && offer.redone === null && (
        <button type="button" className="btn btn-small" disabled={busy} onClick={() => void redo(false)}>
          <Icon name="redo" size={12} /> Redo
        </button>
      )}
      <button type="button" className="icon-button" aria-label="Dismiss" onClick={() => offerRedo(null)}>
        <Icon name="x" size={14} />
      </button>
    </div>
  );
}

export function RedoBar() {
  const offer = useCheckpointUi((s) => s.redo);
  const active = useWeft((s) => s.ui.activeThreadId);
  const turns = useWeft((s) => (offer === null ? 0 : (s.data.conversations[offer.threadId]?.turnIds.length ?? 0)));
  if (offer === null || offer.threadId !== active || turns !== offer.turns) return null;
  // A new offer starts with a fresh bar (no conflicts or errors of the last one).
  return <Bar key={`${offer.threadId}:${offer.turns}:${offer.files}`} offer={offer} />;
}
