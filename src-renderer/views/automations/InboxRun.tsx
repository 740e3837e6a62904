// One finished run in the review inbox: the automation, when, how it ended (and why, when it failed), its
// final message, the commands it ran with their exit codes, its cost, and its diff reviewable hunk by hunk
// (the turn review of "Changes in this turn"). Keep hands the worktree's work to the local checkout
// through Handoff, Discard removes the worktree (after asking; the thread is archived, not deleted),
// Continue opens the thread (a remote run's project joins the window first). Opening it marks it seen, on the server. A run on a remote environment has
// its thread and worktree there: its turn is read there (`thread/read` with `weftEnvironment`, which the
// host's environment router sends there; the threads it names are then routed there too, so the hunks'
// Undo and the Handoff act there), and Discard removes its worktree and archives its thread there before
// the decision is recorded here. Until its turn was read there its actions wait, and the run says so under
// them; an environment that could not be reached is tried again with "Try again", or the run discarded here
// only (its decision recorded here, what is there left as it is).
import { useEffect, useMemo, useState } from 'react';
import type {
  WeftAutomationInboxItem,
  WeftAutomationRun,
  WeftAutomationsInboxReadResult,
} from '../../../src-preload/protocol';
import type { Controller } from '../../store/controller';
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

/**
 * The run's turn as the thread there recorded it, for a run on environment `remote` (a run without a thread
 * has none): the same turn the server picks for a local run, its own or else the thread's last.
 */
async function readThere(
  controller: Controller,
  read: WeftAutomationsInboxReadResult,
  run: Pick<WeftAutomationRun, 'threadId' | 'turnId'>,
  remote: string,
): Promise<WeftAutomationsInboxReadResult> {
  const { threadId, turnId } = run;
  if (threadId === null) return read;
  let turns;
  try {
    ({
      thread: { turns },
    } = await controller.request('thread/read', { threadId, includeTurns: true, weftEnvironment: remote }));
  } catch (e) {
    throw new Error(`The changes could not be read from ${remote}: ${messageOf(e)}`, { cause: e });
  }
  const turn = turns.find((t) => t.id === turnId) ?? turns.at(-1);
  const diff = turn?.weftDiff ?? null;
  return { ...read, turnId: turn?.id ?? null, diff: diff === '' ? null : diff, diffCut: turn?.weftDiffCut ?? null };
}

export function InboxRun({ item, onChanged }: { item: WeftAutomationInboxItem; onChanged: () => Promise<void> }) {
  const controller = useController();
  const { automationId: id, run } = item;
  const [read, setRead] = useState<Read>({ state: 'loading' });
  const [handoff, setHandoff] = useState(false);
  // Discard, asked first: everywhere (a remote run's worktree and thread there too), or, for a remote run
  // whose environment cannot be reached, here only (the decision recorded; what is there is left).
  const [confirmDiscard, setConfirmDiscard] = useState<'everywhere' | 'here' | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // Bumped by "Try again": the run is read anew (a remote run's environment reached again).
  const [attempt, setAttempt] = useState(0);

  const { environment: remote, threadId, turnId } = run;
  useEffect(() => {
    let live = true;
    const reading = controller.request('weft/automations/inbox/read', { id, runId: run.runId });
    (remote === null
      ? reading
      : reading.then((result) => readThere(controller, result, { threadId, turnId }, remote))
    ).then(
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
  }, [controller, id, run.runId, run.seen, onChanged, remote, threadId, turnId, attempt]);
  const readAgain = (): void => {
    setRead({ state: 'loading' });
    setAttempt((n) => n + 1);
  };

  const diff = read.state === 'ready' ? read.read.diff : null;
  const files = useMemo(() => turnDiffFiles(diff), [diff]);
  const discarded = run.decision === 'discarded';
  // A remote run's thread is known to the host once its turn was read there: what acts on it waits for that.
  const reachable = remote === null || read.state === 'ready';
  // A run that changed nothing has nothing to hand off; a discarded one has no worktree left.
  const canHandOff =
    reachable && run.worktree !== null && run.threadId !== null && !discarded && run.changedFiles !== 0;

  /** Opens the run's thread; a remote run's project (on its environment) joins this window first. */
  const continueThread = async (): Promise<void> => {
    if (run.threadId === null) return;
    if (remote !== null) {
      const problem = await controller.openTypedProject(item.project, remote);
      if (problem !== null) {
        setError(`The run's project could not be opened on ${remote}: ${problem}`);
        return;
      }
    }
    openAutomations(null);
    await controller.selectThread(run.threadId);
  };

  const discard = async (hereOnly: boolean): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      // A remote run's worktree and thread are there: removed and archived there, then recorded here.
      if (!hereOnly && remote !== null && run.threadId !== null) {
        if (run.worktree !== null)
          await controller.request('weft/worktree/remove', {
            threadId: run.threadId,
            path: run.worktree,
            weftEnvironment: remote,
          });
        await controller.request('thread/archive', { threadId: run.threadId });
      }
      await controller.request('weft/automations/inbox/discard', { id, runId: run.runId });
      setConfirmDiscard(null);
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
              canHandOff
                ? remote === null
                  ? 'Hand the changes to the local checkout'
                  : `Hand the changes to the project's checkout on ${remote}`
                : 'Only the changes of a run in a worktree are handed off'
            }
            onClick={() => setHandoff(true)}
          >
            <Icon name="check" size={14} />
            Keep
          </button>
          <button
            type="button"
            className="btn"
            disabled={discarded || busy || !reachable}
            onClick={() => setConfirmDiscard('everywhere')}
          >
            <Icon name="archive" size={14} />
            Discard
          </button>
          <button
            type="button"
            className="btn"
            disabled={run.threadId === null || !reachable}
            title={remote === null ? undefined : `Opens the project on ${remote} in this window, and the run's thread`}
            onClick={() => void continueThread()}
          >
            <Icon name="arrowUp" size={14} />
            Continue
          </button>
        </div>
        {remote !== null && read.state !== 'ready' && (
          // Why the buttons are grey: a remote run is acted on there, once its turn was read there.
          <p className="inbox-run-reach muted small" role="status">
            {read.state === 'loading' ? (
              <>
                <Spinner size={12} /> Reaching {remote}… Keep, Discard and Continue wait for it.
              </>
            ) : (
              <>
                Could not reach {remote}: Keep, Discard and Continue wait for it.
                <button type="button" className="btn btn-small" onClick={readAgain}>
                  Try again
                </button>
                {!discarded && (
                  <button type="button" className="btn btn-small" onClick={() => setConfirmDiscard('here')}>
                    Discard here only
                  </button>
                )}
              </>
            )}
          </p>
        )}
      </header>
      {confirmDiscard !== null && (
        <div className="automation-confirm" role="alert">
          <span>
            {confirmDiscard === 'here'
              ? `Discard this run here only? It is marked discarded in this inbox; its thread${run.worktree === null ? '' : ', worktree and changes'} on ${remote ?? 'its environment'} are left as they are.`
              : run.worktree === null
                ? 'Discard this run? Its thread is archived; the files of the project folder are left as they are.'
                : `Discard this run? Its worktree${remote === null ? '' : ` on ${remote}`} and the changes in it are removed; the branch and the thread (archived) are kept.`}
          </span>
          <span className="spacer" />
          <button type="button" className="btn btn-small" onClick={() => setConfirmDiscard(null)}>
            Cancel
          </button>
          <button
            type="button"
            className="btn btn-small btn-danger"
            disabled={busy}
            onClick={() => void discard(confirmDiscard === 'here')}
          >
            {confirmDiscard === 'here' ? 'Discard here' : 'Discard run'}
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
        {read.state === 'ready' && files.length === 0 && <p className="muted small">The run changed no file.</p>}
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
