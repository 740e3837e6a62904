// Everything one turn changed, file by file (the turn's aggregated diff).
import { useId, useMemo, useRef } from 'react';
import { hunkStats, parseFileDiff, splitDiffByFile } from '../components/diff/unified-diff';
import { Icon } from '../components/Icon';
import { CompactDiff, DiffLayoutToggle } from '../components/items/FileChangeCell';
import { useModal } from '../components/use-modal';
import { useController, useWeft } from '../store/app-context';

export function TurnDiffDialog({ threadId, turnId }: { threadId: string; turnId: string }) {
  const controller = useController();
  const diff = useWeft((s) => s.data.conversations[threadId]?.turns[turnId]?.diff ?? null);
  const titleId = useId();
  const dialog = useRef<HTMLElement>(null);
  const files = useMemo(
    () => splitDiffByFile(diff ?? '').map((section) => ({ ...section, hunks: parseFileDiff(section.text).hunks })),
    [diff],
  );

  useModal(dialog, () => controller.closeTurnDiff());

  return (
    <div className="overlay" onMouseDown={(e) => e.target === e.currentTarget && controller.closeTurnDiff()}>
      <section className="review" role="dialog" aria-modal="true" aria-labelledby={titleId} tabIndex={-1} ref={dialog}>
        <header className="review-head">
          <Icon name="diff" />
          <h2 id={titleId}>Changes in this turn</h2>
          <span className="muted">
            {files.length} {files.length === 1 ? 'file' : 'files'}
          </span>
          <span className="spacer" />
          <DiffLayoutToggle />
          <button type="button" className="icon-button" aria-label="Close" onClick={() => controller.closeTurnDiff()}>
            <Icon name="x" />
          </button>
        </header>
        <div className="review-body">
          {files.map((file, index) => {
            const stats = hunkStats(file.hunks);
            return (
              <section key={`${index}:${file.path}`} className="review-file" aria-label={`Changes to ${file.path}`}>
                <header className="review-file-head">
                  <Icon name="file" size={14} />
                  <span className="file-path">{file.path}</span>
                  <span className="file-stats">
                    <span className="added">+{stats.added}</span> <span className="removed">−{stats.removed}</span>
                  </span>
                </header>
                {file.hunks.length > 0 ? (
                  <CompactDiff hunks={file.hunks} path={file.path} maxHeight={480} label={`Changes to ${file.path}`} />
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
