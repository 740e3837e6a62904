// The preview of a restore ("Undo this turn", "Restore to here"): every file that would change, with a
// diff of its current text against the text it goes back to; files someone changed after the agent are
// conflicts, and for each the user picks "Keep mine" (that file is left as it is, `weftKeepFiles`) or
// "Overwrite" (their version is checkpointed first, so Redo brings it back); every other file is restored.
import { useCallback, useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { displayPath, type CheckpointPreviewFile, type StoppedCommand } from '../../../src-preload/protocol';
import { DiffView } from '../../components/diff/DiffView';
import { DiffLayoutToggle } from '../../components/items/FileChangeCell';
import { Icon, Spinner } from '../../components/Icon';
import { useDiffLayout } from '../../components/preferences';
import { useModal } from '../../components/use-modal';
import { usePreviewTexts } from '../../components/use-preview-texts';
import { useController, useWeft } from '../../store/app-context';
import {
  closeRestore,
  conflictsOf,
  messageOf,
  offerRedo,
  stoppedOf,
  type RestoreTarget,
} from '../../store/checkpoint-ui';

/** What the user chose for a conflicting file. */
type Choice = 'keep' | 'overwrite';

type Preview =
  | { state: 'loading' }
  | { state: 'ready'; files: CheckpointPreviewFile[]; notUndoable: string[] }
  | { state: 'failed'; message: string };

const CHANGE_LABELS: Record<CheckpointPreviewFile['change'], string> = {
  add: 'comes back',
  update: 'goes back',
  delete: 'is removed',
};

function FilePreview({
  file,
  target,
  sideBySide,
}: {
  file: CheckpointPreviewFile;
  target: RestoreTarget;
  sideBySide: boolean;
}) {
  const section = useRef<HTMLElement>(null);
  const texts = usePreviewTexts(file, target, section);
  let body: ReactNode;
  if (texts === null) {
    body = (
      <p className="restore-note muted">
        <Spinner size={13} /> Loading the file&apos;s texts…
      </p>
    );
  } else if ('failed' in texts) {
    body = <p className="restore-note">The texts could not be shown: {texts.failed}</p>;
  } else if (texts.binary) {
    body = <p className="restore-note muted">Binary file: its bytes go back as they were.</p>;
  } else if (texts.current !== null || texts.restored !== null) {
    body = (
      <DiffView
        original={texts.current ?? ''}
        modified={texts.restored ?? ''}
        path={displayPath(file.path)}
        sideBySide={sideBySide}
        hideUnchanged
        maxHeight={360}
        label={`${displayPath(file.path)}: now and after the restore`}
      />
    );
  } else {
    body = <p className="restore-note muted">Too large to show.</p>;
  }
  return (
    <section
      ref={section}
      className={`review-file restore-file${file.conflict ? ' is-conflict' : ''}`}
      aria-label={`${displayPath(file.path)} ${CHANGE_LABELS[file.change]}`}
    >
      <header className="review-file-head">
        <Icon name="file" size={14} />
        <span className="file-path">{displayPath(file.path)}</span>
        <span className={`badge restore-change restore-${file.change}`}>{CHANGE_LABELS[file.change]}</span>
        {file.conflict && <span className="badge badge-waiting">changed since the agent</span>}
      </header>
      {file.unrestorable !== null && <p className="restore-note">{file.unrestorable}</p>}
      {typeof file.background === 'string' && (
        <p className="restore-note">
          {displayPath(file.path)} was {file.background}. Restoring it may take back that command&apos;s work.
        </p>
      )}
      {body}
    </section>
  );
}

export function RestoreDialog({ target }: { target: RestoreTarget }) {
  const controller = useController();
  const turnCount = useWeft((s) => s.data.conversations[target.threadId]?.turnIds.length ?? 0);
  const [layout] = useDiffLayout();
  const [preview, setPreview] = useState<Preview>({ state: 'loading' });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // Commands a refused restore stopped before comparing the files: they stay stopped, so say so.
  const [stopped, setStopped] = useState<StoppedCommand[]>([]);
  // Conflicts start as "Keep mine": nothing the user wrote is overwritten unless they say so.
  const [choices, setChoices] = useState<Record<string, Choice>>({});
  const titleId = useId();
  const dialog = useRef<HTMLElement>(null);
  useModal(dialog, () => closeRestore());

  const load = useCallback(async () => {
    try {
      const result = await controller.request('weft/checkpoints/preview', {
        threadId: target.threadId,
        beforeTurnId: target.beforeTurnId,
      });
      setPreview({
        state: 'ready',
        files: result.files,
        notUndoable: (result.notUndoable ?? []).map((turn) => turn.message),
      });
    } catch (e) {
      setPreview({ state: 'failed', message: messageOf(e) });
    }
  }, [controller, target.threadId, target.beforeTurnId]);

  useEffect(() => {
    // eslint-disable-next-line react-hooks/set-state-in-effect -- load() sets state only after its await (react/react#34905)
    void load();
  }, [load]);

  const restore = async (keep: string[], force: boolean): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      const result = await controller.request('thread/revert', {
        threadId: target.threadId,
        beforeTurnId: target.beforeTurnId,
        weftRestoreFiles: true,
        weftForce: force,
        ...(keep.length > 0 ? { weftKeepFiles: keep } : {}),
      });
      const weftFiles = result.weftFiles ?? null;
      const files = weftFiles === null ? 0 : weftFiles.restored.length;
      const keptFiles = weftFiles?.kept?.length ?? 0;
      const notRestored = weftFiles?.notRestored ?? [];
      const stopped = weftFiles?.stoppedCommands ?? [];
      offerRedo(
        files > 0 || keptFiles > 0 || notRestored.length > 0 || stopped.length > 0
          ? {
              threadId: target.threadId,
              files,
              kept: keptFiles,
              notRestored,
              stopped,
              turns: Math.max(0, turnCount - target.dropped),
              redone: null,
            }
          : null,
      );
      closeRestore();
    } catch (e) {
      const halted = stoppedOf(e);
      if (halted.length > 0) setStopped((current) => [...current, ...halted]);
      // Someone changed a file between the preview and now: show the conflicts as they are now.
      if (conflictsOf(e) !== null) await load();
      else setError(messageOf(e));
      setBusy(false);
    }
  };

  const files = preview.state === 'ready' ? preview.files : [];
  const conflicts = files.filter((file) => file.conflict);
  const choiceOf = (path: string): Choice => choices[path] ?? 'keep';
  const kept = conflicts.filter((file) => choiceOf(file.path) === 'keep').map((file) => file.path);
  const overwriting = conflicts.length - kept.length;
  // What the button promises is what the bar will count: files that can be restored and are not kept.
  const restoring = files.filter((file) => file.unrestorable === null && !kept.includes(file.path)).length;
  const summary =
    target.kind === 'undo'
      ? 'The files go back to how they were before this turn, and the conversation drops it.'
      : `The files go back to how they were right after this turn, and the conversation drops the ${target.dropped === 1 ? 'turn' : `${target.dropped} turns`} after it.`;
  return (
    <div className="overlay" onMouseDown={(e) => e.target === e.currentTarget && closeRestore()}>
      <section
        className="review restore"
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        tabIndex={-1}
        ref={dialog}
      >
        <header className="review-head">
          <Icon name="undo" />
          <h2 id={titleId}>{target.kind === 'undo' ? 'Undo this turn' : 'Restore to here'}</h2>
          {preview.state === 'ready' && (
            <span className="muted">
              {files.length} {files.length === 1 ? 'file' : 'files'}
            </span>
          )}
          <span className="spacer" />
          <DiffLayoutToggle />
          <button type="button" className="icon-button" aria-label="Close" onClick={() => closeRestore()}>
            <Icon name="x" />
          </button>
        </header>
        <p className="restore-summary">{summary} Left: the file now; right: after the restore.</p>
        {preview.state === 'ready' && preview.notUndoable.length > 0 && (
          <div className="review-reason restore-conflicts" role="alert">
            {preview.notUndoable.map((message) => (
              <p key={message}>{message}</p>
            ))}
          </div>
        )}
        {stopped.length > 0 && (
          <p className="restore-summary" role="status">
            Stopped {stopped.length === 1 ? 'a command' : `${stopped.length} commands`} the agent left running, so{' '}
            {stopped.length === 1 ? 'it' : 'they'} cannot change files during the restore:{' '}
            {stopped.map((command) => command.command).join('; ')}
          </p>
        )}
        {conflicts.length > 0 && (
          <div className="review-reason restore-conflicts" role="alert">
            <strong>
              {conflicts.length === 1 ? '1 file was' : `${conflicts.length} files were`} changed after the agent left{' '}
              {conflicts.length === 1 ? 'it' : 'them'}:
            </strong>
            <ul>
              {conflicts.map((file) => (
                <li key={file.path} className="restore-conflict">
                  <code>{displayPath(file.path)}</code>
                  <span className="segmented" role="group" aria-label={`What to do with ${displayPath(file.path)}`}>
                    {(['keep', 'overwrite'] as const).map((choice) => (
                      <button
                        key={choice}
                        type="button"
                        aria-pressed={choiceOf(file.path) === choice}
                        aria-label={`${choice === 'keep' ? 'Keep mine' : 'Overwrite'}: ${displayPath(file.path)}`}
                        onClick={() => setChoices((current) => ({ ...current, [file.path]: choice }))}
                      >
                        {choice === 'keep' ? 'Keep mine' : 'Overwrite'}
                      </button>
                    ))}
                  </span>
                </li>
              ))}
            </ul>
            <span>
              “Keep mine” leaves that file as you have it; “Overwrite” saves your version as a checkpoint first: Redo
              brings it back.
            </span>
          </div>
        )}
        <div className="review-body">
          {preview.state === 'loading' && (
            <p className="muted">
              <Spinner size={13} /> Comparing the files with the checkpoints…
            </p>
          )}
          {preview.state === 'failed' && (
            <p className="settings-status settings-status-error" role="alert">
              {preview.message}
            </p>
          )}
          {preview.state === 'ready' && files.length === 0 && (
            <p className="muted">No file changes to put back: only the conversation goes back.</p>
          )}
          {files.map((file) => (
            <FilePreview key={file.path} file={file} target={target} sideBySide={layout === 'split'} />
          ))}
        </div>
        <footer className="review-foot">
          {error !== null ? (
            <span className="settings-status-error" role="alert">
              {error}
            </span>
          ) : (
            <span className="muted">Nothing in git changes: no index, stash or branch is touched.</span>
          )}
          <span className="spacer" />
          <button type="button" className="btn" onClick={() => closeRestore()}>
            Cancel
          </button>
          <button
            type="button"
            className={`btn ${overwriting > 0 ? 'btn-danger' : 'btn-primary'}`}
            disabled={busy || preview.state !== 'ready'}
            data-autofocus
            onClick={() => void restore(kept, overwriting > 0)}
          >
            {restoring === 0 ? 'Go back' : `Restore ${restoring} ${restoring === 1 ? 'file' : 'files'}`}
            {kept.length > 0 && `, keep ${kept.length} of mine`}
          </button>
        </footer>
      </section>
    </div>
  );
}
