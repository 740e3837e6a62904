// Everything one turn changed, file by file (the turn's aggregated diff), to review after it landed:
// each hunk kept or undone (with a reason for the model), each file marked viewed (see TurnHunkReview).
import { useId, useMemo, useRef } from 'react';
import { describeDiffSize, diffSize } from '../components/diff/diff-size';
import { Icon } from '../components/Icon';
import { DiffLayoutToggle } from '../components/items/FileChangeCell';
import { useModal } from '../components/use-modal';
import { useTurnDiff } from '../components/use-turn-diff';
import { useController } from '../store/app-context';
import { TurnDiffFiles, turnDiffFiles } from './TurnDiffFiles';

export function TurnDiffDialog({ threadId, turnId }: { threadId: string; turnId: string }) {
  const controller = useController();
  const { diff, cut } = useTurnDiff(threadId, turnId);
  const titleId = useId();
  const dialog = useRef<HTMLElement>(null);
  const files = useMemo(() => turnDiffFiles(diff), [diff]);

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
          <TurnDiffFiles threadId={threadId} turnId={turnId} files={files} cut={cut} />
        </div>
      </section>
    </div>
  );
}
