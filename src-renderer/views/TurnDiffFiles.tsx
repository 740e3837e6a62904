// The files of one turn's aggregated diff, each reviewable hunk by hunk (Keep / Undo hunk, with a reason
// for the model) and markable as viewed: the body of "Changes in this turn" and of an automation run in
// the review inbox.
import { BigDiffGate } from '../components/diff/BigDiff';
import { describeDiffSize, diffSize } from '../components/diff/diff-size';
import { parseMultiFileDiff } from '../../src-preload/diff/unified-diff';
import type { WeftDiffCut } from '../../src-preload/protocol';
import { Icon } from '../components/Icon';
import { CompactDiff } from '../components/items/FileChangeCell';
import { useTurnReview } from '../store/turn-review';
import { TurnHunkControls, ViewedToggle } from './TurnHunkReview';

export interface TurnDiffFile {
  path: string;
  text: string;
  hunks: ReturnType<typeof parseMultiFileDiff>[number]['hunks'];
  problem: string | undefined;
  removed: boolean;
}

/** A turn's diff as files (parse once, in a memo: the hunks' identity keeps the editors). */
export function turnDiffFiles(diff: string | null): TurnDiffFile[] {
  return parseMultiFileDiff(diff ?? '').map((file) => ({
    path: file.path,
    text: file.text,
    hunks: file.hunks,
    problem: file.problem,
    removed: file.newPath === null && file.oldPath !== null,
  }));
}

export function TurnDiffFiles({
  threadId,
  turnId,
  files,
  cut,
}: {
  threadId: string;
  turnId: string;
  files: readonly TurnDiffFile[];
  cut: WeftDiffCut | null;
}) {
  const viewed = useTurnReview(threadId, turnId).viewed;
  return (
    <>
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
    </>
  );
}
