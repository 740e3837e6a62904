// The panel's other views: the last turn's changes, a review's findings with the file a finding points
// at, and — outside git — the thread's checkpointed changes.
import { folderParams } from '../../store/project-key';
import { lazy, Suspense, useEffect, useMemo, useRef, useState } from 'react';
import type { CheckpointPreviewFile, ExitedReviewModeItem } from '../../../src-preload/protocol';
import { parseMultiFileDiff } from '../../../src-preload/diff/unified-diff';
import { sidesFromHunks } from '../../components/diff/hunks';
import { usePreviewTexts } from '../../components/use-preview-texts';
import { useTurnDiff } from '../../components/use-turn-diff';
import { Icon, Spinner } from '../../components/Icon';
import { FindingRow } from '../../components/items/ReviewCells';
import { useController, useWeft } from '../../store/app-context';
import { changesActions, useChanges } from '../../store/changes-store';
import { errorText } from './git-client';
import { latestReview, ReviewRun, turnIndexOf } from './ReviewRun';

const CommentableDiff = lazy(() => import('./CommentableDiff'));

function Diff(props: {
  path: string;
  original: string;
  modified: string;
  sideBySide: boolean;
  label: string;
  focus?: { lineStart: number; lineEnd: number; nonce: number } | null;
}) {
  const all = useChanges((s) => s.comments);
  const comments = useMemo(
    () => all.filter((c) => c.path === props.path && c.side === 'modified').map((c) => c.line),
    [all, props.path],
  );
  const [draft, setDraft] = useState<{ line: number; text: string } | null>(null);
  return (
    <>
      <Suspense fallback={<div className="monaco-diff monaco-diff--loading">Loading diff…</div>}>
        <CommentableDiff
          {...props}
          focus={props.focus ?? null}
          commented={comments}
          onLineClick={(_side, line) => setDraft({ line, text: '' })}
        />
      </Suspense>
      {draft !== null && (
        <form
          className="changes-comment-form"
          onSubmit={(e) => {
            e.preventDefault();
            if (draft.text.trim() === '') return;
            changesActions.addComment({
              path: props.path,
              line: draft.line,
              side: 'modified',
              text: draft.text.trim(),
            });
            setDraft(null);
          }}
        >
          <textarea
            aria-label={`Comment on ${props.path} line ${draft.line}`}
            value={draft.text}
            autoFocus
            rows={2}
            onChange={(e) => setDraft({ ...draft, text: e.target.value })}
          />
          <button type="submit" className="btn btn-small btn-primary">
            Add comment
          </button>
        </form>
      )}
    </>
  );
}

export function LastTurnView({ sideBySide }: { sideBySide: boolean }) {
  const threadId = useWeft((s) => s.ui.activeThreadId);
  const lastTurn = useWeft((s) =>
    threadId === null ? null : (s.data.conversations[threadId]?.turnIds.at(-1) ?? null),
  );
  const { diff, stale } = useTurnDiff(threadId, lastTurn);
  const files = useMemo(
    () => parseMultiFileDiff(diff ?? '').map((f) => ({ path: f.path, ...sidesFromHunks(f.hunks) })),
    [diff],
  );
  if (files.length === 0)
    return stale ? (
      <p className="muted changes-empty">Reading the last turn's changes…</p>
    ) : (
      <p className="muted changes-empty">The last turn changed no files.</p>
    );
  return (
    <ul className="changes-files">
      {files.map((f) => (
        <li key={f.path} className="changes-file">
          <div className="changes-file-row">
            <Icon name="file" size={12} /> <span className="file-path">{f.path}</span>
          </div>
          <Diff
            path={f.path}
            original={f.original}
            modified={f.modified}
            sideBySide={sideBySide}
            label={`Last turn's changes to ${f.path}`}
          />
        </li>
      ))}
    </ul>
  );
}

/** A review's findings; the file a finding points at is shown as HEAD → work tree with its lines marked. */
export function ReviewView({ cwd, sideBySide }: { cwd: string; sideBySide: boolean }) {
  const controller = useController();
  const review = useChanges((s) => s.review);
  const focus = useChanges((s) => s.focus);
  const threadId = useWeft((s) => s.ui.activeThreadId);
  const thread = useWeft((s) => (threadId === null ? undefined : s.data.conversations[threadId]));
  const run = useMemo(() => latestReview(thread), [thread]);
  const item = useWeft((s): ExitedReviewModeItem | null => {
    if (review === null) return null;
    const c = s.data.conversations[review.threadId];
    for (const turnId of c?.turnIds ?? []) {
      const found = c?.turns[turnId]?.items[review.itemId]?.item;
      if (found?.type === 'exitedReviewMode') return found;
    }
    return null;
  });
  const [sides, setSides] = useState<{ path: string; original: string; modified: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [starting, setStarting] = useState(false);

  useEffect(() => {
    if (focus === null) return;
    let live = true;
    Promise.all([
      controller.request('weft/git/diff', { ...folderParams(cwd), path: focus.path, area: 'staged' }),
      controller.request('weft/git/diff', { ...folderParams(cwd), path: focus.path, area: 'unstaged' }),
    ]).then(
      ([staged, unstaged]) =>
        live && setSides({ path: focus.path, original: staged.original ?? '', modified: unstaged.modified ?? '' }),
      (e: unknown) => live && setError(errorText(e)),
    );
    return () => {
      live = false;
    };
  }, [controller, cwd, focus]);

  // The open thread's newest review is followed (its progress, then its result), unless a finding of a
  // later or other review was opened here.
  const followRun =
    run !== null &&
    threadId !== null &&
    (review === null || review.threadId !== threadId || run.turnIndex >= turnIndexOf(thread, review.itemId));

  const start = async (): Promise<void> => {
    if (threadId === null) return;
    setStarting(true);
    setError(null);
    try {
      await controller.request('review/start', { threadId, target: { type: 'uncommittedChanges' } });
    } catch (e) {
      setError(errorText(e));
    } finally {
      setStarting(false);
    }
  };

  return (
    <div className="changes-review">
      <div className="changes-commit-row">
        <button
          type="button"
          className="btn btn-small"
          disabled={threadId === null || starting || (run?.status === 'inProgress' && run.result === null)}
          onClick={() => void start()}
          title={threadId === null ? 'Open or start a thread first' : undefined}
        >
          {starting ? <Spinner size={11} /> : <Icon name="search" size={12} />} Review uncommitted changes
        </button>
      </div>
      {error !== null && <p className="changes-error">{error}</p>}
      {followRun && threadId !== null && <ReviewRun run={run} threadId={threadId} />}
      {!followRun && item?.weftReview !== undefined && review !== null && (
        <ol className="findings">
          {item.weftReview.findings.map((f, i) => (
            <FindingRow key={i} finding={f} threadId={review.threadId} itemId={review.itemId} />
          ))}
        </ol>
      )}
      {focus !== null && sides !== null && sides.path === focus.path && (
        <section className="changes-file" aria-label={`Finding in ${focus.path}`}>
          <div className="changes-file-row">
            <Icon name="file" size={12} /> <span className="file-path">{focus.path}</span>
            <span className="muted small">
              lines {focus.lineStart}–{focus.lineEnd}
            </span>
          </div>
          <Diff
            path={focus.path}
            original={sides.original}
            modified={sides.modified}
            sideBySide={sideBySide}
            label={`Finding in ${focus.path}`}
            focus={focus}
          />
        </section>
      )}
    </div>
  );
}

/** One file the thread changed, outside git: its diff from before the thread to now. */
function CheckpointedFile({
  file,
  target,
  sideBySide,
}: {
  file: CheckpointPreviewFile;
  target: { threadId: string; beforeTurnId: string };
  sideBySide: boolean;
}) {
  const row = useRef<HTMLLIElement>(null);
  const texts = usePreviewTexts(file, target, row);
  return (
    <li ref={row} className="changes-file">
      <div className="changes-file-row">
        <Icon name="file" size={12} /> <span className="file-path">{file.path}</span>
        <span className="changes-kind">{file.change}</span>
      </div>
      {texts === null ? (
        <p className="muted">
          <Spinner size={12} /> Loading the file&apos;s texts…
        </p>
      ) : 'failed' in texts ? (
        <p className="changes-error">{texts.failed}</p>
      ) : texts.binary ? (
        <p className="muted">Binary file.</p>
      ) : (
        <Diff
          path={file.path}
          original={texts.restored ?? ''}
          modified={texts.current ?? ''}
          sideBySide={sideBySide}
          label={`Thread's changes to ${file.path}`}
        />
      )}
    </li>
  );
}

/** Outside git: what the open thread changed, from its checkpoints (file before the thread → now). */
export function CheckpointedChanges({ reason, sideBySide }: { reason: string | null; sideBySide: boolean }) {
  const controller = useController();
  const threadId = useWeft((s) => s.ui.activeThreadId);
  const firstTurn = useWeft((s) => (threadId === null ? undefined : s.data.conversations[threadId]?.turnIds[0]));
  // Asked again when the last turn changes or ends: by its id and status (a short turn may start and end
  // within one update, its status "completed" as the one before it was).
  const lastTurn = useWeft((s) => {
    const c = threadId === null ? undefined : s.data.conversations[threadId];
    const last = c?.turnIds[c.turnIds.length - 1];
    return last === undefined ? null : `${last} ${c?.turns[last]?.status ?? ''}`;
  });
  const [files, setFiles] = useState<CheckpointPreviewFile[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (threadId === null || firstTurn === undefined) return;
    let live = true;
    controller.request('weft/checkpoints/preview', { threadId, beforeTurnId: firstTurn }).then(
      (r) => live && setFiles(r.files),
      (e: unknown) => live && setError(errorText(e)),
    );
    return () => {
      live = false;
    };
  }, [controller, threadId, firstTurn, lastTurn]);
  return (
    <div className="changes-nogit">
      <p className="banner banner-info" role="note">
        Git is off for this folder{reason === null ? '' : ` (${reason})`}. Showing what this thread changed, from its
        checkpoints.
      </p>
      {error !== null && <p className="changes-error">{error}</p>}
      {(threadId === null || firstTurn === undefined || (files !== null && files.length === 0)) && (
        <p className="muted changes-empty">This thread has changed no files.</p>
      )}
      <ul className="changes-files">
        {threadId !== null &&
          firstTurn !== undefined &&
          (files ?? []).map((f) => (
            <CheckpointedFile
              key={f.path}
              file={f}
              target={{ threadId, beforeTurnId: firstTurn }}
              sideBySide={sideBySide}
            />
          ))}
      </ul>
    </div>
  );
}
