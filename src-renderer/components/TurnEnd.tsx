// The end of a turn: its live plan, its notices (errors, retries, warnings), how it ended, and the
// turn's actions ("View changes", "Fork from here", and the checkpoint ones: undo, restore, fork into a worktree).
import { memo, useEffect, useState } from 'react';
import type { PlanView, TurnView } from '../store/state';
import { TurnCheckpointActions } from './TurnCheckpointActions';
import { useController, useWeft } from '../store/app-context';
import { boardState } from '../store/board';
import { duration } from './format';
import { Icon, Spinner } from './Icon';

function PlanChecklist({ plan }: { plan: PlanView }) {
  const done = plan.steps.filter((s) => s.status === 'completed').length;
  return (
    <section className="plan" aria-label="Plan">
      <div className="plan-head">
        <Icon name="list" size={14} />
        <span>Plan</span>
        <span className="muted">
          {done} of {plan.steps.length} done
        </span>
      </div>
      {plan.explanation !== null && plan.explanation !== '' && <p className="plan-explanation">{plan.explanation}</p>}
      <ol className="plan-steps">
        {plan.steps.map((step, i) => (
          <li key={i} className={`plan-step is-${step.status}`}>
            <span className="plan-mark" aria-hidden="true">
              {step.status === 'completed' ? (
                <Icon name="check" size={12} />
              ) : step.status === 'inProgress' ? (
                <Spinner size={12} />
              ) : null}
            </span>
            <span className="plan-text">{step.step}</span>
            <span className="sr-only">
              {step.status === 'completed' ? '(done)' : step.status === 'inProgress' ? '(in progress)' : '(pending)'}
            </span>
          </li>
        ))}
      </ol>
    </section>
  );
}

/** Seconds since `startedAt` (unix seconds), ticking once a second while shown. */
function Elapsed({ startedAt }: { startedAt: number | null }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), 1000);
    return () => window.clearInterval(timer);
  }, []);
  if (startedAt === null) return null;
  return <span className="muted">{duration(Math.max(0, now - startedAt * 1000))}</span>;
}

function endLabel(turn: TurnView): string {
  const took = turn.durationMs === null ? '' : ` in ${duration(turn.durationMs)}`;
  switch (turn.status) {
    case 'completed':
      return `Done${took}`;
    case 'interrupted':
      return `Stopped${took}`;
    case 'failed':
      return `Failed${took}`;
    case 'inProgress':
      return 'Working';
  }
}

export const TurnEnd = memo(function TurnEnd({
  threadId,
  turnId,
  canFork,
}: {
  threadId: string;
  turnId: string;
  canFork: boolean;
}) {
  const turn = useWeft((s) => s.data.conversations[threadId]?.turns[turnId]);
  const latest = useWeft((s) => s.data.conversations[threadId]?.turnIds.at(-1) === turnId);
  // A running turn that waits on the person says so, without a spinner: nothing is working meanwhile.
  const waitingFor = useWeft((s) => {
    if (s.data.conversations[threadId]?.turnIds.at(-1) !== turnId) return null;
    const state = boardState(s.data, threadId);
    return state.kind === 'needsYou' && state.why !== 'failed' ? state.why : null;
  });
  const controller = useController();
  if (turn === undefined) return null;
  const running = turn.status === 'inProgress';
  const files = turn.diffFiles;
  return (
    <div className={`cell turn-end is-${turn.status}`}>
      {turn.plan !== null && turn.plan.steps.length > 0 && <PlanChecklist plan={turn.plan} />}
      {turn.notices.map((notice, i) => (
        <div key={i} className={`notice notice-${notice.kind}`} role={notice.kind === 'error' ? 'alert' : 'status'}>
          {notice.kind === 'retry' ? <Spinner size={13} /> : <Icon name="alert" size={14} />}
          <div>
            <div>{notice.message}</div>
            {notice.details !== null && <div className="muted">{notice.details}</div>}
          </div>
        </div>
      ))}
      {turn.status === 'failed' &&
        turn.error !== null &&
        !turn.notices.some((n) => n.message === turn.error?.message) && (
          <div className="notice notice-error" role="alert">
            <Icon name="alert" size={14} />
            <div>{turn.error.message}</div>
          </div>
        )}
      <div className="turn-meta">
        {running && waitingFor !== null ? (
          <span className="working is-waiting">
            <Icon name="user" size={12} />{' '}
            {waitingFor === 'question' ? 'Waiting for your answer' : 'Waiting for your approval'}{' '}
            <Elapsed startedAt={turn.startedAt} />
          </span>
        ) : running ? (
          <span className="working">
            <Spinner size={12} /> Working <Elapsed startedAt={turn.startedAt} />
          </span>
        ) : (
          <span className={`turn-status is-${turn.status}`}>{endLabel(turn)}</span>
        )}
        <span className="turn-actions">
          {(files > 0 || (turn.diff !== null && turn.diff.trim() !== '')) && (
            <button type="button" className="link-button" onClick={() => controller.showTurnDiff(threadId, turnId)}>
              <Icon name="diff" size={13} /> View changes
              {files > 0 ? ` (${files} ${files === 1 ? 'file' : 'files'})` : ''}
            </button>
          )}
          {turn.status === 'failed' && latest && (
            <button type="button" className="btn btn-small" onClick={() => void controller.retryTurn(threadId, turnId)}>
              <Icon name="refresh" size={12} /> Retry
            </button>
          )}
          {canFork && !running && (
            <button
              type="button"
              className="link-button hover-action"
              onClick={() => void controller.fork(threadId, turnId)}
            >
              <Icon name="fork" size={13} /> Fork from here
            </button>
          )}
          {canFork && !running && <TurnCheckpointActions threadId={threadId} turnId={turnId} />}
        </span>
      </div>
    </div>
  );
});
