// Everything one turn changed, file by file (the turn's aggregated diff).
import { useEffect, useId, useMemo, useRef } from 'react';
import { DiffView } from '../components/diff/DiffView';
import { hunkStats, parseFileDiff, sidesFromHunks, splitDiffByFile } from '../components/diff/unified-diff';
import { Icon } from '../components/Icon';
import { DiffLayoutToggle } from '../components/items/FileChangeCell';
import { useDiffLayout } from '../components/preferences';
import { useController, useWeft } from './context';

export function TurnDiffDialog({ threadId, turnId }: { threadId: string; turnId: string }) {
  const controller = useController();
  const diff = useWeft((s) => s.data.conversations[threadId]?.turns[turnId]?.diff ?? null);
  const [layout] = useDiffLayout();
  const titleId = useId();
  const dialog = useRef<HTMLElement>(null);
  const files = useMemo(() => splitDiffByFile(diff ?? '').map((section) => ({ ...section, hunks: parseFileDiff(section.text).hunks })), [diff]);

  useEffect(() => {
    dialog.current?.focus();
    const onKey = (event: KeyboardEvent): void => {
      if (event.key === 'Escape') controller.closeTurnDiff();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [controller]);

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
          {files.map((file) => {
            const sides = sidesFromHunks(file.hunks);
            const stats = hunkStats(file.hunks);
            return (
              <section key={file.path} className="review-file" aria-label={`Changes to ${file.path}`}>
                <header className="review-file-head">
                  <Icon name="file" size={14} />
                  <span className="file-path">{file.path}</span>
                  <span className="file-stats">
                    <span className="added">+{stats.added}</span> <span className="removed">−{stats.removed}</span>
                  </span>
                </header>
                <DiffView original={sides.original} modified={sides.modified} path={file.path} sideBySide={layout === 'split'} hideUnchanged maxHeight={480} label={`Changes to ${file.path}`} />
              </section>
            );
          })}
        </div>
      </section>
    </div>
  );
}
