// Everything one turn changed, file by file (the turn's aggregated diff), to review after it landed:
// each hunk kept or undone (with a reason for the model), each file marked viewed (see TurnHunkReview).
import { useId, useMemo, useRef } from 'react';
import { BigDiffGate } from '../components/diff/BigDiff';
import { describeDiffSize, diffSize } from '../components/diff/diff-size';
import { parseMultiFileDiff } from '../../src-preload/diff/unified-diff';
import { Icon } from '../components/Icon';
import { CompactDiff, DiffLayoutToggle } from '../components/items/FileChangeCell';
import { useModal } from '../components/use-modal';
import { useController, useWeft } from '../store/app-context';
import { useTurnReview } from '../store/turn-review';
import { TurnHunkControls, ViewedToggle } from './TurnHunkReview';

export function TurnDiffDialog({ threadId, turnId }: { threadId: string; turnId: string }) {
  const controller = useController();
  const diff = useWeft((s) => s.data.conversations[threadId]?.turns[turnId]?.diff ?? null);
  const cut = useWeft((s) => s.data.conversations[threadId]?.turns[turnId]?.diffCut ?? null);
  const titleId = useId();
  const dialog = useRef<HTMLElement>(null);
  const files = useMemo(
    () =>
      parseMultiFileDiff(diff ?? '').map((file) => ({
        path: file.path,
        text: file.text,
        hunks: file.hunks,
        problem: file.problem,
        removed: file.newPath === null && file.oldPath !== null,
      })),
    [diff],
  );

  const viewed = useTurnReview(threadId, turnId).viewed;

  useModal(dialog, () => controller.closeTurnDiff());

  return (
    <div className="overlay" onMouseDown={(e) => e.target === e.currentTarget && controller.closeTurnDiff()}>
      <section className="review" role="dialog" aria-modal="true" aria-labelledby={titleId} tabIndex={-1} ref={dialog}>
        <header className="review-head">
          <Icon name="diff" />
          <h2 id={titleId}>Changes in this turn</h2>
          <span className="muted">
            {cut === null
              ? `${files.length} ${files.length === 1 ? 'file' : 'files'}`
              : describeDiffSize(diffSize([], cut)).totals}
          </span>
          <span className="spacer" />
          <DiffLayoutToggle />
          <button type="button" className="icon-button" aria-label="Close" onClick={() => controller.closeTurnDiff()}>
            <Icon name="x" />
          </button>
        </header>
        <div className="review-body">
          {cut !== null && (
            <p className="muted small review-note">
              {describeDiffSize(diffSize([], cut)).shown} The files on disk hold every change.
            </p>
          )}
          {files.map((file, index) => {
            // Each file is sized by its own hunks; past the size where Monaco struggles it is summarised.
            const size = diffSize(file.hunks, undefined);
            const folded = viewed.includes(file.path);
            return (
              <section key={`${index}:${file.path}`} className="review-file" aria-label={`Changes to ${file.path}`}>
                <header className="review-file-head">
                  <Icon name="file" size={14} />
                  <span className="file-path">{file.path}</span>
                  <span className="file-stats">
                    <span className="added">+{size.added}</span> <span className="removed">−{size.removed}</span>
                  </span>
                  <span className="spacer" />
                  <ViewedToggle threadId={threadId} turnId={turnId} path={file.path} />
                </header>
                {folded ? null : file.hunks.length > 0 ? (
                  <BigDiffGate size={size} text={file.text} label={`Changes to ${file.path}`}>
                    {() => (
                      <CompactDiff
                        hunks={file.hunks}
                        path={file.path}
                        maxHeight={480}
                        label={`Changes to ${file.path}`}
                        hunkZones={
                          // A file the turn removed comes back only with the whole turn's undo.
                          file.removed
                            ? undefined
                            : file.hunks.map((hunk, index) => (
                                <TurnHunkControls
                                  key={hunk.header}
                                  threadId={threadId}
                                  turnId={turnId}
                                  path={file.path}
                                  index={index}
                                  hunk={hunk}
                                />
                              ))
                        }
                      />
                    )}
                  </BigDiffGate>
                ) : file.problem !== undefined ? (
                  <div className="tool-empty">Not shown: {file.problem}</div>
                ) : (
                  <div className="tool-empty">Binary file</div>
                )}
              </section>
            );
          })}
        </div>
      </section>
    </div>
  );
}
