// One finished run in the review inbox: the automation, when, how it ended (and why, when it failed), its
// final message, the commands it ran with their exit codes, its cost, and its diff reviewable hunk by hunk
// (the turn review of "Changes in this turn"). Keep hands the worktree's work to the local checkout
// through Handoff, Discard removes the worktree (after asking; the thread is archived, not deleted),
// Continue opens the thread. Opening it marks it seen, on the server. A run on a remote environment has
// its thread, worktree and diff there: it is shown with its facts, and what needs them is done there.
import { useEffect, useMemo, useState } from 'react';
import type { WeftAutomationInboxItem, WeftAutomationsInboxReadResult } from '../../../src-preload/protocol';
import { DiffLayoutToggle } from '../../components/items/FileChangeCell';
import { Icon, Spinner } from '../../components/Icon';
import { Markdown } from '../../components/markdown/Markdown';
import { useController } from '../../store/app-context';
import { openAutomations } from '../../store/automations-ui';
import { messageOf } from '../../store/checkpoint-ui';
import { TurnDiffFiles, turnDiffFiles } from '../TurnDiffFiles';
import { HandoffDialog } from '../worktrees/HandoffDialog';
import { runFacts, STATUS_LABELS, statusTone, TRIGGER_LABELS, whenText } from './automation-text';

type Read =
  | { state: 'loading' }
  | { state: 'ready'; read: WeftAutomationsInboxReadResult }
  | { state: 'failed'; message: string };

export function InboxRun({ item, onChanged }: { item: WeftAutomationInboxItem; onChanged: () => Promise<void> }) {
  const controller = useController();
  const { automationId: id, run } = item;
  const [read, setRead] = useState<Read>({ state: 'loading' });
  const [handoff, setHandoff] = useState(false);
  const [confirmDiscard, setConfirmDiscard] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    controller.request('weft/automations/inbox/read', { id, runId: run.runId }).then(
      (result) => live && setRead({ state: 'ready', read: result }),
      (e: unknown) => live && setRead({ state: 'failed', message: messageOf(e) }),
    );
    if (!run.seen)
      void controller
        .request('weft/automations/inbox/markSeen', { id, runId: run.runId })
        .then(onChanged, () => undefined);
    return () => {
      live = false;
    };
  }, [controller, id, run.runId, run.seen, onChanged]);

  const diff = read.state === 'ready' ? read.read.diff : null;
  const files = useMemo(() => turnDiffFiles(diff), [diff]);
  const discarded = run.decision === 'discarded';
  const remote = run.environment;
  const there =
    remote === null
      ? undefined
      : `The run's thread and worktree are on ${remote}: open them with weft serve --env ${remote}`;
  // A run that changed nothing has nothing to hand off; a discarded one has no worktree left.
  const canHandOff =
    remote === null && run.worktree !== null && run.threadId !== null && !discarded && run.changedFiles !== 0;

  const discard = async (): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      await controller.request('weft/automations/inbox/discard', { id, runId: run.runId });
      setConfirmDiscard(false);
      await onChanged();
    } catch (e) {
      setError(messageOf(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <article className="inbox-run" aria-label={`${item.automationName}, ${whenText(run.endedAt ?? run.startedAt)}`}>
      <header className="inbox-run-head">
        <div className="inbox-run-title">
          <h2>{item.automationName}</h2>
          <span className={`status ${statusTone(run.status)}`}>{STATUS_LABELS[run.status]}</span>
          {run.decision !== null && <span className="badge">{run.decision === 'kept' ? 'Kept' : 'Discarded'}</span>}
        </div>
        <p className="muted small">
          {whenText(run.endedAt ?? run.startedAt)} · {TRIGGER_LABELS[run.trigger]} ·{' '}
          {item.environment === 'worktree' ? 'in a worktree' : 'in the project folder'}
          {remote === null ? '' : ` on ${remote}`}
          {runFacts(run) === '' ? '' : ` · ${runFacts(run)}`}
        </p>
        <div className="inbox-run-actions" role="group" aria-label="What to do with this run">
          <button
            type="button"
            className="btn btn-primary"
            disabled={!canHandOff || busy}
            title={
              there ??
              (canHandOff
                ? 'Hand the changes to the local checkout'
                : 'Only the changes of a run in a worktree are handed off')
            }
            onClick={() => setHandoff(true)}
          >
            <Icon name="check" size={14} />
            Keep
          </button>
          <button
            type="button"
            className="btn"
            disabled={discarded || busy || remote !== null}
            title={there}
            onClick={() => setConfirmDiscard(true)}
          >
            <Icon name="archive" size={14} />
            Discard
          </button>
          <button
            type="button"
            className="btn"
            disabled={run.threadId === null || remote !== null}
            title={there}
            onClick={() => {
              openAutomations(null);
              void controller.selectThread(run.threadId ?? '');
            }}
          >
            <Icon name="arrowUp" size={14} />
            Continue
          </button>
        </div>
      </header>
      {confirmDiscard && (
        <div className="automation-confirm" role="alert">
          <span>
            {run.worktree === null
              ? 'Discard this run? Its thread is archived; the files of the project folder are left as they are.'
              : 'Discard this run? Its worktree and the changes in it are removed; the branch and the thread (archived) are kept.'}
          </span>
          <span className="spacer" />
          <button type="button" className="btn btn-small" onClick={() => setConfirmDiscard(false)}>
            Cancel
          </button>
          <button type="button" className="btn btn-small btn-danger" disabled={busy} onClick={() => void discard()}>
            Discard run
          </button>
        </div>
      )}
      {error !== null && (
        <p className="settings-status settings-status-error" role="alert">
          {error}
        </p>
      )}
      {run.reason !== null && (
        <div className="review-reason" role="note">
          <strong>{run.status === 'interrupted' ? 'Stopped' : 'Failed'}:</strong> <span>{run.reason}</span>
        </div>
      )}
      {run.finalMessage !== null && (
        <section className="inbox-section" aria-label="Final message">
          <h3>Final message</h3>
          <Markdown text={run.finalMessage} final className="markdown" />
        </section>
      )}
      {run.commands.length > 0 && (
        <section className="inbox-section" aria-label="Commands run">
          <h3>Commands run</h3>
          <ul className="inbox-commands">
            {run.commands.map((c, i) => (
              <li key={i}>
                <code>{c.command}</code>
                <span className={`status ${c.exitCode === 0 ? 'status-ok' : 'status-failed'}`}>
                  {c.exitCode === null ? 'did not finish' : `exit ${c.exitCode}`}
                </span>
              </li>
            ))}
          </ul>
        </section>
      )}
      <section className="inbox-section" aria-label="Changes">
        <div className="inbox-section-head">
          <h3>Changes</h3>
          <span className="spacer" />
          {files.length > 0 && <DiffLayoutToggle />}
        </div>
        {read.state === 'loading' && <Spinner size={13} label="Loading the changes" />}
        {read.state === 'failed' && (
          <p className="settings-status settings-status-error" role="alert">
            {read.message}
          </p>
        )}
        {read.state === 'ready' && remote !== null && (
          <p className="muted small">
            {run.changedFiles === 0
              ? 'The run changed no file.'
              : `Its changes${run.changedFiles === null ? '' : ` (${run.changedFiles} ${run.changedFiles === 1 ? 'file' : 'files'})`} are in the run's thread on ${remote}.`}
          </p>
        )}
        {read.state === 'ready' && remote === null && files.length === 0 && (
          <p className="muted small">The run changed no file.</p>
        )}
        {read.state === 'ready' && files.length > 0 && run.threadId !== null && read.read.turnId !== null && (
          <TurnDiffFiles threadId={run.threadId} turnId={read.read.turnId} files={files} cut={read.read.diffCut} />
        )}
      </section>
      {handoff && run.threadId !== null && (
        <HandoffDialog
          target={{ threadId: run.threadId, direction: 'toLocal' }}
          onClose={() => setHandoff(false)}
          onHandedOff={() =>
            void controller
              .request('weft/automations/inbox/keep', { id, runId: run.runId })
              .then(onChanged, (e: unknown) => setError(messageOf(e)))
          }
        />
      )}
    </article>
  );
}
