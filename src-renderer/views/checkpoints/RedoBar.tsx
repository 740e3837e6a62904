// After a restore: "Redo" puts the files back as the restore found them, and the turns an undo dropped
// with them come back to the conversation. The offer ends with the next turn, whose changes would come
// first (the server refuses a redo then: the turns could no longer come back). The bar also
// names the files the restore (or the redo) could not put back, with the reason, and the commands the
// agent had left running that were stopped first.
import { useState } from 'react';
import { displayPath, type FileNotRestored, type StoppedCommand } from '../../../src-preload/protocol';
import { Icon } from '../../components/Icon';
import { useController, useWeft } from '../../store/app-context';
import {
  conflictsOf,
  messageOf,
  offerRedo,
  stoppedOf,
  useCheckpointUi,
  type RedoOffer,
} from '../../store/checkpoint-ui';

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
      const turnsBack = result.weftTurnIds?.length ?? 0;
      offerRedo({
        ...offer,
        // The turns brought back are the thread's again: the bar stays until a turn after them.
        turns: offer.turns + turnsBack,
        turnsBack,
        redone: result.weftFiles.restored.length,
        notRestored: result.weftFiles.notRestored,
        stopped: result.weftFiles.stoppedCommands,
      });
    } catch (e) {
      const named = conflictsOf(e);
      if (named !== null) setConflicts(named);
      else setError(messageOf(e));
      const stopped = stoppedOf(e);
      if (stopped.length > 0) offerRedo({ ...offer, stopped });
      setBusy(false);
    }
  };

  return (
    <div className="redo-bar" role="status" aria-label="Restore done">
      <Icon name="undo" size={14} />
      <div className="redo-bar-text">
        <span>
          {offer.redone !== null
            ? redoneText(offer.redone, offer.turnsBack ?? 0)
            : conflicts !== null
              ? `Changed since the restore: ${conflicts.map(displayPath).join(', ')}. Overwrite them?`
              : (error ?? restoredText(offer))}
        </span>
        <Details notRestored={offer.notRestored} stopped={offer.stopped} />
      </div>
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
      {conflicts === null && offer.redone === null && offer.files > 0 && (
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

/** What Redo did, for the bar: the files, and the turns that came back with them. */
function redoneText(files: number, turns: number): string {
  const filesText = files === 1 ? '1 file' : `${files} files`;
  const asThey = files === 1 ? 'as it was' : 'as they were';
  if (turns === 0) return `Put ${filesText} back ${asThey} before the restore.`;
  return `Brought back ${turns === 1 ? 'the turn' : `${turns} turns`} and ${filesText} as they were before the restore.`;
}

/** "Restored 2 files; kept 1 of yours as it is." */
function restoredText(offer: RedoOffer): string {
  const restored = `Restored ${offer.files === 0 ? 'no' : offer.files} ${offer.files === 1 ? 'file' : 'files'}`;
  if (offer.kept === 0) return `${restored}.`;
  return `${restored}; kept ${offer.kept} of yours as ${offer.kept === 1 ? 'it is' : 'they are'}.`;
}

/** The files left as they were (each with its reason) and the commands stopped before the restore. */
function Details({ notRestored, stopped }: { notRestored: FileNotRestored[]; stopped: StoppedCommand[] }) {
  if (notRestored.length === 0 && stopped.length === 0) return null;
  return (
    <>
      {notRestored.length > 0 && (
        <div className="redo-bar-list" role="group" aria-label="Not restored">
          <strong>
            Not restored ({notRestored.length} {notRestored.length === 1 ? 'file' : 'files'}):
          </strong>
          <ul>
            {notRestored.map((item) => (
              <li key={item.path}>
                <code>{displayPath(item.path)}</code> — {item.reason}
              </li>
            ))}
          </ul>
        </div>
      )}
      {stopped.length > 0 && (
        <div className="redo-bar-list" role="group" aria-label="Stopped commands">
          <strong>
            Stopped {stopped.length === 1 ? 'a command' : `${stopped.length} commands`} the agent left running, so{' '}
            {stopped.length === 1 ? 'it' : 'they'} could not change files during the restore:
          </strong>
          <ul>
            {stopped.map((command) => (
              <li key={command.sessionId}>
                <code>{command.command}</code>
              </li>
            ))}
          </ul>
        </div>
      )}
    </>
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
