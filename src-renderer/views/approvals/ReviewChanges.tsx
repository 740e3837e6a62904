// "Review changes": every file of a proposed patch in a Monaco diff with full-file context (the current
// file read through `fs/readFile`), and Weft's per-hunk review: decline single hunks, say why, accept the
// rest.
import { useCallback, useEffect, useId, useMemo, useRef, useState } from 'react';
import type { ReactNode } from 'react';
import { useModal } from '../../components/use-modal';
import type { FileChangeItem, FileUpdateChange } from '../../../src-preload/protocol';
import type { IncomingServerRequest } from '../../client/types';
import { BigDiffGate } from '../../components/diff/BigDiff';
import { diffSize } from '../../components/diff/diff-size';
import { DiffView } from '../../components/diff/DiffView';
import type { DiffZone, LineMark } from '../../components/diff/MonacoDiff';
import { hunkStats, parseFileDiff } from '../../../src-preload/diff/unified-diff';
import { applyHunks, lastChangeLine, newRange, oldEnd, sidesFromHunks } from '../../components/diff/hunks';
import type { Hunk } from '../../components/diff/hunks';
import { relativePath } from '../../components/format';
import { Icon, Spinner } from '../../components/Icon';
import { changeKindLabel, DiffLayoutToggle } from '../../components/items/FileChangeCell';
import { useDiffLayout } from '../../components/preferences';
import { forgetReviewVerdicts, loadReviewVerdicts, saveReviewVerdicts } from '../../store/saved-drafts';
import { useController, useWeft } from '../../store/app-context';
import { acceptedCount, buildPatchAnswer, hunkKey } from './patch-answer';
import type { HunkVerdict } from './patch-answer';

type PatchRequest = Extract<IncomingServerRequest, { method: 'item/fileChange/requestApproval' }>;

interface Sides {
  original: string;
  modified: string;
  /** False when the current file could not be read or no longer matches: only the hunks are shown. */
  fullContext: boolean;
}

function useFileSides(change: FileUpdateChange, hunks: Hunk[]): Sides | null {
  const controller = useController();
  const [sides, setSides] = useState<Sides | null>(null);
  useEffect(() => {
    let current = true;
    const load = async (): Promise<void> => {
      const original = change.kind.type === 'add' ? '' : await controller.readTextFile(change.path);
      const modified = original === null ? null : applyHunks(original, hunks);
      if (!current) return;
      if (original !== null && modified !== null) setSides({ original, modified, fullContext: true });
      else setSides({ ...sidesFromHunks(hunks), fullContext: false });
    };
    void load();
    return () => {
      current = false;
    };
  }, [change, hunks, controller]);
  return sides;
}

interface FileReviewProps {
  change: FileUpdateChange;
  cwd: string | null;
  verdicts: ReadonlyMap<string, HunkVerdict>;
  setVerdict: (key: string, verdict: HunkVerdict) => void;
  collapseUnchanged: boolean;
  /** Whether a declined hunk asks why (the agent is told); false where no agent reads the answer. */
  askWhy: boolean;
}

function FileReview({ change, cwd, verdicts, setVerdict, collapseUnchanged, askWhy }: FileReviewProps) {
  const hunks = useMemo(() => parseFileDiff(change.diff).hunks, [change.diff]);
  const size = useMemo(() => diffSize(hunks, change.weftDiffCut), [hunks, change.weftDiffCut]);
  const shown = relativePath(change.path, cwd);
  const stats = size.cut ? size : hunkStats(hunks);
  const kind = changeKindLabel(change);
  const hidden = size.hunks - size.shownHunks;

  return (
    <section className="review-file" aria-label={`Changes to ${shown}`}>
      <header className="review-file-head">
        <span className={`kind kind-${kind.letter}`} title={kind.word}>
          {kind.letter}
        </span>
        <span className="file-path">{shown}</span>
        <span className="file-stats">
          <span className="added">+{stats.added}</span> <span className="removed">−{stats.removed}</span>
        </span>
      </header>
      {hidden > 0 && (
        <p className="muted small review-note">
          {hidden.toLocaleString('en-US')} of its {size.hunks.toLocaleString('en-US')} hunks are not shown here: they
          follow Accept or Decline.
        </p>
      )}
      {/* A big diff is summarised first: the file is read and diffed only once it is opened. */}
      <BigDiffGate size={size} text={change.diff} label={`Proposed changes to ${shown}`}>
        {() => (
          <FileReviewDiff
            change={change}
            hunks={hunks}
            shown={shown}
            verdicts={verdicts}
            setVerdict={setVerdict}
            collapseUnchanged={collapseUnchanged}
            askWhy={askWhy}
          />
        )}
      </BigDiffGate>
    </section>
  );
}

/** The file's diff with full context (the current file read through `fs/readFile`) and a verdict per hunk. */
function FileReviewDiff({
  change,
  hunks,
  shown,
  verdicts,
  setVerdict,
  collapseUnchanged,
  askWhy,
}: Omit<FileReviewProps, 'cwd'> & { hunks: Hunk[]; shown: string }) {
  const [layout] = useDiffLayout();
  const sides = useFileSides(change, hunks);
  const marks = useMemo<LineMark[]>(() => {
    const out: LineMark[] = [];
    hunks.forEach((hunk, index) => {
      if (verdicts.get(hunkKey(change.path, index))?.declined !== true) return;
      const range = newRange(hunk);
      out.push({ side: 'modified', start: range.start, end: range.end, className: 'hunk-declined' });
      if (hunk.oldLines > 0)
        out.push({
          side: 'original',
          start: hunk.oldStart,
          end: oldEnd(hunk),
          className: 'hunk-declined',
        });
    });
    return out;
  }, [hunks, verdicts, change.path]);

  const zones = useMemo<DiffZone[]>(
    () =>
      hunks.map((hunk, index) => ({
        key: String(index),
        afterLine: lastChangeLine(hunk),
        afterOriginalLine: oldEnd(hunk),
        content: (
          <HunkControls
            index={index}
            hunk={hunk}
            shown={shown}
            verdict={verdicts.get(hunkKey(change.path, index)) ?? NO_VERDICT}
            onChange={(verdict) => setVerdict(hunkKey(change.path, index), verdict)}
            askWhy={askWhy}
          />
        ),
      })),
    [hunks, verdicts, change.path, shown, setVerdict, askWhy],
  );

  if (sides === null) {
    return (
      <div className="monaco-diff monaco-diff--loading">
        <Spinner size={14} /> Reading {shown}…
      </div>
    );
  }
  return (
    <>
      {!sides.fullContext && (
        <p className="muted small review-note">
          Showing the changed lines only (the file could not be read as it was).
        </p>
      )}
      <DiffView
        original={sides.original}
        modified={sides.modified}
        path={change.path}
        sideBySide={layout === 'split'}
        hideUnchanged={collapseUnchanged || !sides.fullContext}
        maxHeight={REVIEW_MAX_HEIGHT}
        marks={marks}
        label={`Proposed changes to ${shown}`}
        zones={zones}
      />
    </>
  );
}

const NO_VERDICT: HunkVerdict = { declined: false, comment: '' };

/**
 * Past this height a file's diff scrolls inside itself; below it the editor is as tall as its content,
 * so the mouse wheel over it scrolls the review instead.
 */
const REVIEW_MAX_HEIGHT = 6000;

/** Which lines a hunk covers, for people: the new side's, or the old side's when it only removes. */
export function hunkLines(hunk: Hunk): string {
  if (hunk.newLines === 0) {
    const end = Math.max(oldEnd(hunk), hunk.oldStart);
    return hunk.oldStart === end ? `removes line ${hunk.oldStart}` : `removes lines ${hunk.oldStart}–${end}`;
  }
  const range = newRange(hunk);
  return range.start === range.end ? `line ${range.start}` : `lines ${range.start}–${range.end}`;
}

interface HunkControlsProps {
  index: number;
  hunk: Hunk;
  shown: string;
  verdict: HunkVerdict;
  onChange: (verdict: HunkVerdict) => void;
  askWhy: boolean;
}

/** Accept / Decline for one hunk, and why it was declined; shown under the hunk inside the diff. */
function HunkControls({ index, hunk, shown, verdict, onChange, askWhy }: HunkControlsProps) {
  const stats = hunkStats([hunk]);
  const heading = hunk.header.replace(/^@@[^@]*@@\s?/, '');
  const name = `hunk ${index + 1} of ${shown}`;
  return (
    <div className={`hunk-zone ${verdict.declined ? 'is-declined' : ''}`}>
      <div className="hunk-row">
        <span className="hunk-name">Hunk {index + 1}</span>
        <span className="muted">
          {hunkLines(hunk)}
          {heading !== '' ? ` · ${heading}` : ''}
        </span>
        <span className="file-stats">
          <span className="added">+{stats.added}</span> <span className="removed">−{stats.removed}</span>
        </span>
        <span className="spacer" />
        <div className="verdict" role="group" aria-label={`Verdict on ${name}`}>
          <button
            type="button"
            className={`btn btn-small ${verdict.declined ? '' : 'btn-accepted'}`}
            aria-pressed={!verdict.declined}
            aria-label={`Accept ${name}`}
            onClick={() => onChange({ ...verdict, declined: false })}
          >
            <Icon name="check" size={12} />
            Accept
          </button>
          <button
            type="button"
            className={`btn btn-small ${verdict.declined ? 'btn-declined' : ''}`}
            aria-pressed={verdict.declined}
            aria-label={`Decline ${name}`}
            onClick={() => onChange({ ...verdict, declined: true })}
          >
            <Icon name="x" size={12} />
            {verdict.declined ? 'Declined' : 'Decline'}
          </button>
        </div>
      </div>
      {verdict.declined && askWhy && (
        <textarea
          className="text-input hunk-comment"
          rows={2}
          aria-label={`Why decline ${name}`}
          placeholder="Why? The agent is told, with the hunk it should not make."
          value={verdict.comment}
          onChange={(e) => onChange({ ...verdict, comment: e.target.value })}
        />
      )}
    </div>
  );
}

/** The dialog's frame around a patch: shared by a patch approval and "Bring changes back". */
export interface PatchReviewDialogProps {
  title: string;
  /** null while the patch is loading. */
  changes: readonly FileUpdateChange[] | null;
  cwd: string | null;
  verdicts: ReadonlyMap<string, HunkVerdict>;
  setVerdict: (key: string, verdict: HunkVerdict) => void;
  /** Esc and the close button. */
  onClose: () => void;
  closeLabel: string;
  closeTitle?: string;
  /** Shown above the files (why the patch is proposed, what accepting grants). */
  intro?: ReactNode;
  /** What Accept would do, left of the buttons. */
  summary: ReactNode;
  /** The footer's buttons. */
  actions: ReactNode;
  loadingText: string;
  /** Whether a declined hunk asks why (default: yes, the agent is told). */
  askWhy?: boolean;
}

export function PatchReviewDialog({
  title,
  changes,
  cwd,
  verdicts,
  setVerdict,
  onClose,
  closeLabel,
  closeTitle,
  intro,
  summary,
  actions,
  loadingText,
  askWhy = true,
}: PatchReviewDialogProps) {
  const [collapseUnchanged, setCollapseUnchanged] = useState(true);
  const titleId = useId();
  const dialog = useRef<HTMLElement>(null);
  useModal(dialog, onClose);
  const files = changes ?? [];

  return (
    <div className="overlay">
      <section className="review" role="dialog" aria-modal="true" aria-labelledby={titleId} tabIndex={-1} ref={dialog}>
        <header className="review-head">
          <Icon name="diff" />
          <h2 id={titleId}>{title}</h2>
          <span className="muted">
            {files.length} {files.length === 1 ? 'file' : 'files'}
          </span>
          <span className="spacer" />
          <label className="check">
            <input
              type="checkbox"
              checked={collapseUnchanged}
              onChange={(e) => setCollapseUnchanged(e.target.checked)}
            />
            Collapse unchanged lines
          </label>
          <DiffLayoutToggle />
          <button type="button" className="icon-button" aria-label={closeLabel} title={closeTitle} onClick={onClose}>
            <Icon name="x" />
          </button>
        </header>
        {intro}
        <div className="review-body">
          {changes === null ? (
            <div className="tool-empty">
              <Spinner size={14} /> {loadingText}
            </div>
          ) : (
            changes.map((change) => (
              <FileReview
                key={change.path}
                change={change}
                cwd={cwd}
                verdicts={verdicts}
                setVerdict={setVerdict}
                collapseUnchanged={collapseUnchanged}
                askWhy={askWhy}
              />
            ))
          )}
        </div>
        <footer className="review-foot">
          <span className="muted">{summary}</span>
          <span className="spacer" />
          {actions}
        </footer>
      </section>
    </div>
  );
}

export function ReviewChanges({ request }: { request: PatchRequest }) {
  const controller = useController();
  const cwd = useWeft((s) => s.data.cwd);
  const { threadId, turnId, itemId, reason, grantRoot } = request.params;
  const entry = useWeft((s) => s.data.conversations[threadId]?.turns[turnId]?.items[itemId]);
  const item: FileChangeItem | null = entry?.item.type === 'fileChange' ? entry.item : null;
  const changes = useMemo(() => item?.changes ?? [], [item]);
  // Kept until the request is answered: switching threads or reloading the page loses nothing.
  const [verdicts, setVerdicts] = useState<ReadonlyMap<string, HunkVerdict>>(() =>
    loadReviewVerdicts(threadId, itemId),
  );

  const setVerdict = useCallback(
    (key: string, verdict: HunkVerdict): void => {
      setVerdicts((old) => {
        const next = new Map(old).set(key, verdict);
        saveReviewVerdicts(threadId, itemId, next);
        return next;
      });
    },
    [threadId, itemId],
  );
  const counts = acceptedCount(changes, verdicts);
  const answer = (decision: 'accept' | 'acceptForSession' | 'decline'): void => {
    controller.answerPatch(request, buildPatchAnswer(changes, verdicts, decision));
    forgetReviewVerdicts(threadId, itemId);
  };

  return (
    <PatchReviewDialog
      title="Review changes"
      changes={item === null ? null : changes}
      cwd={cwd}
      verdicts={verdicts}
      setVerdict={setVerdict}
      // Esc closes it without answering: the request stays pending and the conversation offers it again.
      onClose={() => controller.setReviewAside(request.id, true)}
      closeLabel="Close (the changes keep waiting)"
      closeTitle="Close (Esc); the changes keep waiting for your review"
      loadingText="Loading the proposed changes…"
      intro={
        ((reason ?? '') !== '' || (grantRoot ?? '') !== '') && (
          <div className="review-reason">
            {reason !== null && reason !== undefined && reason !== '' && <p>{reason}</p>}
            {grantRoot !== null && grantRoot !== undefined && grantRoot !== '' && (
              <p>
                Accepting for the session also allows writes under <code>{grantRoot}</code>.
              </p>
            )}
          </div>
        )
      }
      summary={
        counts.accepted === counts.total
          ? `Accept applies all ${counts.total} ${counts.total === 1 ? 'hunk' : 'hunks'}.`
          : `Accept applies ${counts.accepted} of ${counts.total} hunks; the agent is told which were declined and why.`
      }
      actions={
        <>
          <button type="button" className="btn" onClick={() => answer('decline')}>
            Decline
          </button>
          <button type="button" className="btn" onClick={() => answer('acceptForSession')}>
            Accept for session
          </button>
          <button type="button" className="btn btn-primary" onClick={() => answer('accept')}>
            Accept
          </button>
        </>
      }
    />
  );
}
