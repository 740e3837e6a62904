// One changed file in one area (staged, unstaged, untracked): its buttons, and once opened its diff
// with each hunk's buttons right under that hunk, and inline comments. A new file's hunks are its blocks between blank lines (see
// `splitNewFile` on the server): staging one puts the file in the index with those lines only.
import { folderParams } from '../../store/project-key';
import { useEffect, useMemo, useState } from 'react';
import type { GitDiffArea, GitFileStatus, GitHunk, WeftGitDiffResult } from '../../../src-preload/protocol';
import { DiffView } from '../../components/diff/DiffView';
import type { LineMark } from '../../components/diff/MonacoDiff';
import { parseFileDiff } from '../../../src-preload/diff/unified-diff';
import { lastChangeLine } from '../../components/diff/hunks';
import { Icon } from '../../components/Icon';
import { useController } from '../../store/app-context';
import { changesActions, useChanges } from '../../store/changes-store';
import { errorText, type GitView } from './git-client';

/**
 * Past this height a file's diff scrolls inside itself; below it the editor is as tall as its content, so
 * the mouse wheel over it scrolls the panel, and every hunk's buttons are reached that way.
 */
const DIFF_MAX_HEIGHT = 6000;

function kindLabel(file: GitFileStatus, area: GitDiffArea): string {
  if (area === 'untracked') return 'new';
  const kind = area === 'staged' ? file.staged : file.unstaged;
  return kind ?? '';
}

export function FileEntry({
  cwd,
  file,
  area,
  git,
  sideBySide,
}: {
  cwd: string;
  file: GitFileStatus;
  area: GitDiffArea;
  git: GitView;
  sideBySide: boolean;
}) {
  const controller = useController();
  const [open, setOpen] = useState(false);
  const [diff, setDiff] = useState<WeftGitDiffResult | null>(null);
  const [diffError, setDiffError] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<number | 'file' | null>(null);
  const [draft, setDraft] = useState<{ side: 'original' | 'modified'; line: number; text: string } | null>(null);
  const allComments = useChanges((s) => s.comments);
  const commented = useMemo(
    () => allComments.filter((c) => c.path === file.path && c.side === 'modified').map((c) => c.line),
    [allComments, file.path],
  );
  const path = file.path;
  // Each hunk's buttons go under its last changed line (not its trailing context, which may border a
  // folded run of unchanged lines). A new file's blocks have no context: their own ends are used.
  const changeEnds = useMemo(() => {
    if (diff === null || area === 'untracked') return [];
    const parsed = parseFileDiff(diff.diff).hunks;
    return parsed.length === diff.hunks.length ? parsed.map(lastChangeLine) : [];
  }, [diff, area]);
  const marks = useMemo<LineMark[]>(
    () => commented.map((line) => ({ side: 'modified', start: line, end: line, className: 'diff-commented' })),
    [commented],
  );

  useEffect(() => {
    if (!open) return;
    let live = true;
    controller.request('weft/git/diff', { ...folderParams(cwd), path, area }).then(
      (d) => live && setDiff(d),
      (e: unknown) => live && setDiffError(errorText(e)),
    );
    return () => {
      live = false;
    };
  }, [open, controller, cwd, path, area, git.version]);

  const whole = { ...folderParams(cwd), path };
  const hunkParams = (i: number) => ({ ...folderParams(cwd), path, hunks: [i], expectedDiff: diff?.diff ?? null });
  const discard = (target: number | 'file') =>
    git
      .run(`Discard ${path}`, () =>
        controller.request('weft/git/discard', target === 'file' ? whole : hunkParams(target)),
      )
      .then(() => setConfirming(null));

  return (
    <li className="changes-file">
      <div className="changes-file-row">
        <button
          type="button"
          className="changes-file-name"
          aria-expanded={open}
          aria-label={`${open ? 'Hide' : 'Show'} diff of ${path}`}
          onClick={() => setOpen(!open)}
        >
          <Icon name={open ? 'chevronDown' : 'chevronRight'} size={12} />
          <span className="file-path">{path}</span>
          <span className={`changes-kind kind-${kindLabel(file, area)}`}>{kindLabel(file, area)}</span>
        </button>
        {area === 'staged' ? (
          <button
            type="button"
            className="btn btn-small"
            aria-label={`Unstage ${path}`}
            disabled={git.busy !== null}
            onClick={() => void git.run(`Unstage ${path}`, () => controller.request('weft/git/unstage', whole))}
          >
            Unstage
          </button>
        ) : (
          <>
            <button
              type="button"
              className="btn btn-small btn-danger-ghost"
              aria-label={`Discard ${path}`}
              disabled={git.busy !== null}
              onClick={() => setConfirming('file')}
            >
              Discard
            </button>
            <button
              type="button"
              className="btn btn-small"
              aria-label={`Stage ${path}`}
              disabled={git.busy !== null}
              onClick={() => void git.run(`Stage ${path}`, () => controller.request('weft/git/stage', whole))}
            >
              Stage
            </button>
          </>
        )}
      </div>
      {confirming !== null && (
        <div className="changes-confirm" role="alertdialog" aria-label={`Discard changes to ${path}?`}>
          <span>
            Discard{' '}
            {confirming === 'file'
              ? area === 'untracked'
                ? 'this new file'
                : 'the unstaged changes'
              : `hunk ${confirming + 1}`}{' '}
            of <code>{path}</code>? Weft keeps them: <em>Restore</em> puts them back.
          </span>
          <button type="button" className="btn btn-small btn-danger-ghost" onClick={() => void discard(confirming)}>
            Discard
          </button>
          <button type="button" className="btn btn-small" onClick={() => setConfirming(null)}>
            Cancel
          </button>
        </div>
      )}
      {open && (
        <div className="changes-file-body">
          {diffError !== null && <p className="changes-error">{diffError}</p>}
          {diff !== null && diff.binary && <p className="muted">Binary file: no text diff.</p>}
          {diff !== null && !diff.binary && (
            <>
              <div className="changes-diff">
                <DiffView
                  original={diff.original ?? ''}
                  modified={diff.modified ?? ''}
                  path={path}
                  sideBySide={sideBySide}
                  hideUnchanged
                  maxHeight={DIFF_MAX_HEIGHT}
                  marks={marks}
                  label={`${area} changes to ${path}`}
                  zones={diff.hunks.map((h) => ({
                    key: String(h.index),
                    afterLine: changeEnds[h.index] ?? (h.newLines > 0 ? h.newStart + h.newLines - 1 : h.newStart),
                    afterOriginalLine: h.oldStart + Math.max(h.oldLines, 1) - 1,
                    content: (
                      <HunkButtons
                        hunk={h}
                        path={path}
                        area={area}
                        busy={git.busy !== null}
                        onStage={() =>
                          void git.run(`Stage hunk`, () => controller.request('weft/git/stage', hunkParams(h.index)))
                        }
                        onUnstage={() =>
                          void git.run(`Unstage hunk`, () =>
                            controller.request('weft/git/unstage', hunkParams(h.index)),
                          )
                        }
                        onDiscard={() => setConfirming(h.index)}
                      />
                    ),
                  }))}
                  onLineClick={(side, line) => setDraft({ side, line, text: '' })}
                />
              </div>
              <p className="muted small">Click a line number to comment on that line.</p>
              {draft !== null && (
                <form
                  className="changes-comment-form"
                  onSubmit={(e) => {
                    e.preventDefault();
                    if (draft.text.trim() === '') return;
                    changesActions.addComment({ path, line: draft.line, side: draft.side, text: draft.text.trim() });
                    setDraft(null);
                  }}
                >
                  <label>
                    Comment on {path} line {draft.line}
                    <textarea
                      aria-label={`Comment on ${path} line ${draft.line}`}
                      value={draft.text}
                      autoFocus
                      rows={2}
                      onChange={(e) => setDraft({ ...draft, text: e.target.value })}
                    />
                  </label>
                  <button type="submit" className="btn btn-small btn-primary">
                    Add comment
                  </button>
                  <button type="button" className="btn btn-small" onClick={() => setDraft(null)}>
                    Cancel
                  </button>
                </form>
              )}
            </>
          )}
        </div>
      )}
    </li>
  );
}

interface HunkButtonsProps {
  hunk: GitHunk;
  path: string;
  area: GitDiffArea;
  busy: boolean;
  onStage: () => void;
  onUnstage: () => void;
  onDiscard: () => void;
}

/** Stage / Unstage / Discard for one hunk; shown in the diff under the hunk. */
function HunkButtons({ hunk, path, area, busy, onStage, onUnstage, onDiscard }: HunkButtonsProps) {
  const name = `hunk ${hunk.index + 1} of ${path}`;
  return (
    <div className="hunk-zone changes-hunk-zone">
      <div className="hunk-row">
        <span className="hunk-name">Hunk {hunk.index + 1}</span>
        <code className="muted">{hunk.header}</code>
        <span className="spacer" />
        {area === 'staged' ? (
          <button
            type="button"
            className="btn btn-small"
            aria-label={`Unstage ${name}`}
            disabled={busy}
            onClick={onUnstage}
          >
            Unstage hunk
          </button>
        ) : (
          <>
            {/* A new file's blocks are staged one by one; it is discarded as a whole. */}
            {area !== 'untracked' && (
              <button
                type="button"
                className="btn btn-small btn-danger-ghost"
                aria-label={`Discard ${name}`}
                disabled={busy}
                onClick={onDiscard}
              >
                Discard hunk
              </button>
            )}
            <button
              type="button"
              className="btn btn-small"
              aria-label={`Stage ${name}`}
              disabled={busy}
              onClick={onStage}
            >
              Stage hunk
            </button>
          </>
        )}
      </div>
    </div>
  );
}
