// Handoff: a worktree thread's work to the local checkout, or the local checkout's uncommitted changes to
// the thread's worktree. The preview first (`weft/worktree/handoff/preview`): every file with what happens
// to it; a file both sides changed in the same lines is a conflict shown side by side (the local checkout's
// version, the worktree's), and the person picks which to keep — "keep" the destination's by default, so
// nothing of theirs is replaced unless they say so. Any other file can be left out. "Move" takes what was
// handed over out of the source. A preview that no longer holds (-32010) is loaded again.
import { useCallback, useEffect, useState } from 'react';
import type {
  WeftHandoffDirection,
  WeftHandoffFile,
  WeftWorktreeHandoffPreviewResult,
  WeftWorktreeHandoffResult,
} from '../../../src-preload/protocol';
import { DiffView } from '../../components/diff/DiffView';
import { DiffLayoutToggle } from '../../components/items/FileChangeCell';
import { Icon, Spinner } from '../../components/Icon';
import { useDiffLayout } from '../../components/preferences';
import { ReviewDialog } from '../../components/ReviewDialog';
import { useController } from '../../store/app-context';
import { conflictsOf, messageOf } from '../../store/checkpoint-ui';
import { openHandoff, type HandoffTarget } from '../../store/worktree-ui';
import { handoffSummary, sideNames, statusLabel } from './handoff-text';

type Preview =
  | { state: 'loading' }
  | { state: 'ready'; result: WeftWorktreeHandoffPreviewResult }
  | { state: 'failed'; message: string };

/** Which side's version each file ends with, as the person chose (absent: the default). */
type Takes = Record<string, 'local' | 'worktree'>;

function HandoffFile({
  file,
  direction,
  take,
  setTake,
  sideBySide,
}: {
  file: WeftHandoffFile;
  direction: WeftHandoffDirection;
  take: 'local' | 'worktree' | undefined;
  setTake: (take: 'local' | 'worktree' | undefined) => void;
  sideBySide: boolean;
}) {
  const names = sideNames(direction);
  const destination = direction === 'toLocal' ? file.local : file.worktree;
  const source = direction === 'toLocal' ? file.worktree : file.local;
  const conflict = file.status === 'conflict';
  const left = take === names.destinationSide;
  const shown = conflict
    ? { original: file.local.text, modified: file.worktree.text, label: 'local checkout, then worktree' }
    : { original: destination.text, modified: file.result ?? source.text, label: 'now, then after the handoff' };
  return (
    <section
      className={`review-file handoff-file${conflict ? ' is-conflict' : ''}${left ? ' is-left' : ''}`}
      aria-label={`${file.path}: ${statusLabel(file)}`}
    >
      <header className="review-file-head">
        <Icon name="file" size={14} />
        <span className="file-path">{file.path}</span>
        <span className={`badge handoff-status handoff-${file.status}`}>{statusLabel(file)}</span>
        {conflict ? (
          <span className="segmented handoff-choice" role="group" aria-label={`Which version of ${file.path}`}>
            {(['destination', 'source'] as const).map((which) => {
              const side = which === 'destination' ? names.destinationSide : names.sourceSide;
              const chosen = (take ?? names.destinationSide) === side;
              const label = which === 'destination' ? names.keep : names.take;
              return (
                <button
                  key={which}
                  type="button"
                  aria-pressed={chosen}
                  aria-label={`${label}: ${file.path}`}
                  onClick={() => setTake(side)}
                >
                  {label}
                </button>
              );
            })}
          </span>
        ) : (
          <label className="handoff-leave">
            <input
              type="checkbox"
              checked={left}
              onChange={(e) => setTake(e.target.checked ? names.destinationSide : undefined)}
            />
            Leave out
          </label>
        )}
      </header>
      {file.reason !== null && <p className="restore-note">{file.reason}</p>}
      {file.binary ? (
        <p className="restore-note muted">Binary file: its bytes are handed over as they are.</p>
      ) : shown.original === null && shown.modified === null ? (
        <p className="restore-note muted">Too large to show.</p>
      ) : (
        <DiffView
          original={shown.original ?? ''}
          modified={shown.modified ?? ''}
          path={file.path}
          sideBySide={sideBySide}
          hideUnchanged
          maxHeight={320}
          label={`${file.path}: ${shown.label}`}
        />
      )}
    </section>
  );
}

export function HandoffDialog({
  target,
  onClose,
  onHandedOff,
}: {
  target: HandoffTarget;
  /** Closes the dialog; omitted = the worktree layer's (`openHandoff(null)`). */
  onClose?: () => void;
  /** Told after each handoff that wrote (the review inbox's Keep records it). */
  onHandedOff?: (done: WeftWorktreeHandoffResult) => void;
}) {
  const controller = useController();
  const [layout] = useDiffLayout();
  const [direction, setDirection] = useState<WeftHandoffDirection>(target.direction);
  const [preview, setPreview] = useState<Preview>({ state: 'loading' });
  const [takes, setTakes] = useState<Takes>({});
  const [move, setMove] = useState(false);
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const close = useCallback(() => (onClose === undefined ? openHandoff(null) : onClose()), [onClose]);

  const load = useCallback(
    async (way: WeftHandoffDirection) => {
      try {
        const result = await controller.request('weft/worktree/handoff/preview', {
          threadId: target.threadId,
          direction: way,
        });
        setPreview({ state: 'ready', result });
      } catch (e) {
        setPreview({ state: 'failed', message: messageOf(e) });
      }
    },
    [controller, target.threadId],
  );

  useEffect(() => {
    // eslint-disable-next-line react-hooks/set-state-in-effect -- load() sets state only after its await (react/react#34905)
    void load(direction);
  }, [load, direction]);

  const turn = (way: WeftHandoffDirection): void => {
    if (way === direction) return;
    setTakes({});
    setNotice(null);
    setError(null);
    setPreview({ state: 'loading' });
    setDirection(way);
  };

  const ready = preview.state === 'ready' ? preview.result : null;
  const files = ready?.files ?? [];
  const names = sideNames(direction);
  const writable = files.filter((f) => f.status === 'apply' || f.status === 'merge' || f.status === 'conflict');
  const takeOf = (f: WeftHandoffFile) => takes[f.path] ?? (f.status === 'conflict' ? names.destinationSide : undefined);
  const handed = writable.filter((f) => takeOf(f) !== names.destinationSide);
  const replacing = handed.filter((f) => f.status === 'conflict').length;
  const kept = writable.filter((f) => f.status === 'conflict' && takeOf(f) === names.destinationSide).length;
  const conflicts = files.filter((f) => f.status === 'conflict');
  const same = files.filter((f) => f.status === 'same');

  const handOff = async (): Promise<void> => {
    if (ready === null) return;
    setBusy(true);
    setError(null);
    try {
      const resolutions = writable.flatMap((f) => {
        const take = takeOf(f);
        return take === undefined ? [] : [{ path: f.path, take }];
      });
      const done: WeftWorktreeHandoffResult = await controller.request('weft/worktree/handoff', {
        threadId: target.threadId,
        direction,
        fingerprint: ready.fingerprint,
        resolutions,
        move,
      });
      if (done.threadCwd !== null) controller.threadMoved(target.threadId, done.threadCwd);
      setNotice(doneText(done));
      onHandedOff?.(done);
      setTakes({});
      await load(direction);
    } catch (e) {
      if (conflictsOf(e) !== null) {
        setError(`${messageOf(e)}.`);
        await load(direction);
      } else setError(messageOf(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <ReviewDialog
      className="handoff"
      icon="fork"
      title="Handoff"
      beside={
        <>
          <span className="segmented handoff-direction" role="group" aria-label="Which way">
            {(['toLocal', 'toWorktree'] as const).map((way) => (
              <button key={way} type="button" aria-pressed={direction === way} onClick={() => turn(way)}>
                {way === 'toLocal' ? 'To local' : 'To worktree'}
              </button>
            ))}
          </span>
          {ready !== null && (
            <span className="muted">
              {files.length} {files.length === 1 ? 'file' : 'files'}
            </span>
          )}
        </>
      }
      tools={<DiffLayoutToggle />}
      onClose={close}
    >
      {ready !== null && <p className="restore-summary">{handoffSummary(ready)}</p>}
      {notice !== null && (
        <p className="restore-summary handoff-notice" role="status">
          {notice}
        </p>
      )}
      {conflicts.length > 0 && (
        <div className="review-reason restore-conflicts" role="alert">
          <strong>
            {conflicts.length === 1 ? '1 file was' : `${conflicts.length} files were`} changed on both sides:{' '}
            {conflicts.map((f) => f.path).join(', ')}.
          </strong>
          <span>
            Each shows the local checkout&apos;s version on the left and the worktree&apos;s on the right. “{names.keep}
            ” leaves {names.destination}&apos;s file as it is; “{names.take}” replaces it (the replaced version is kept
            among the Changes panel&apos;s discards).
          </span>
        </div>
      )}
      <div className="review-body">
        {preview.state === 'loading' && (
          <p className="muted">
            <Spinner size={13} /> Comparing the worktree with the local checkout…
          </p>
        )}
        {preview.state === 'failed' && (
          <p className="settings-status settings-status-error" role="alert">
            {preview.message}
          </p>
        )}
        {ready !== null && writable.length === 0 && (
          <p className="muted">Nothing to hand off: {names.destination} has every change already.</p>
        )}
        {files
          .filter((f) => f.status !== 'same')
          .map((file) => (
            <HandoffFile
              key={`${direction}:${file.path}`}
              file={file}
              direction={direction}
              take={takeOf(file)}
              setTake={(take) =>
                setTakes((current) =>
                  Object.fromEntries([
                    ...Object.entries(current).filter(([path]) => path !== file.path),
                    ...(take === undefined ? [] : [[file.path, take] as const]),
                  ]),
                )
              }
              sideBySide={layout === 'split'}
            />
          ))}
        {same.length > 0 && (
          <p className="muted small">
            Already the same in {names.destination}: {same.map((f) => f.path).join(', ')}
          </p>
        )}
      </div>
      <footer className="review-foot">
        {error !== null ? (
          <span className="settings-status-error" role="alert">
            {error}
          </span>
        ) : (
          <label className="handoff-move">
            <input type="checkbox" checked={move} onChange={(e) => setMove(e.target.checked)} />
            {names.move}
          </label>
        )}
        <span className="spacer" />
        <button type="button" className="btn" onClick={close}>
          {notice === null ? 'Cancel' : 'Close'}
        </button>
        <button
          type="button"
          className={`btn ${replacing > 0 ? 'btn-danger' : 'btn-primary'}`}
          disabled={busy || ready === null || handed.length === 0}
          onClick={() => void handOff()}
        >
          {handed.length === 0
            ? 'Hand off'
            : `Hand off ${handed.length} ${handed.length === 1 ? 'file' : 'files'}${kept > 0 ? `, keep ${kept} ${names.keptWhose}` : ''}`}
        </button>
      </footer>
    </ReviewDialog>
  );
}

function doneText(done: WeftWorktreeHandoffResult): string {
  const n = done.written.length;
  const parts = [`Handed off: ${n === 1 ? '1 file' : `${n} files`} written`];
  if (done.merged.length > 0) parts.push(`${done.merged.length} merged`);
  if (done.overwritten.length > 0) parts.push(`${done.overwritten.length} replaced`);
  if (done.kept.length > 0) parts.push(`${done.kept.length} left as they were`);
  if (done.moved.length > 0) parts.push(`${done.moved.length} taken out of the source`);
  if (done.threadCwd !== null) parts.push(`the thread continues in ${done.threadCwd}`);
  const failed = done.notWritten.map((f) => `${f.path} (${f.reason})`);
  return `${parts.join(', ')}.${failed.length > 0 ? ` Not written: ${failed.join('; ')}.` : ''}`;
}
