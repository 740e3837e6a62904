// "Try N ways", compared: the threads of one group (`Thread.weftGroupId`) side by side, one column each —
// how its turn stands, what it changed (files, lines added and removed), the tests it ran with their exit
// codes, its last message — with Open (the thread) and Handoff (its work to the local checkout). It reads
// `weft/worktree/compare` again whenever one of the group's turns starts or ends.
import { useEffect, useState } from 'react';
import type { Thread, WeftWorktreeCompareEntry } from '../../../src-preload/protocol';
import { Icon, Spinner } from '../../components/Icon';
import { ReviewDialog } from '../../components/ReviewDialog';
import { useController, useWeft } from '../../store/app-context';
import { messageOf } from '../../store/checkpoint-ui';
import { openHandoff, openWays } from '../../store/worktree-ui';

type Loaded =
  { state: 'loading' } | { state: 'ready'; threads: WeftWorktreeCompareEntry[] } | { state: 'failed'; message: string };

const STATUS: Record<NonNullable<WeftWorktreeCompareEntry['turnStatus']>, string> = {
  inProgress: 'Running',
  completed: 'Done',
  interrupted: 'Stopped',
  failed: 'Failed',
};

/** The group's threads, oldest first (ids are time-ordered), as the lists hold them. */
function groupThreads(live: readonly Thread[], archived: readonly Thread[], groupId: string): Thread[] {
  return [...live, ...archived].filter((t) => t.weftGroupId === groupId).sort((a, b) => (a.id < b.id ? -1 : 1));
}

function WayColumn({ entry, way }: { entry: WeftWorktreeCompareEntry; way: number }) {
  const controller = useController();
  const status = entry.turnStatus === null ? 'Not started' : STATUS[entry.turnStatus];
  return (
    <section className="way" aria-label={`Way ${way}`}>
      <header className="way-head">
        <h3>Way {way}</h3>
        <span className={`badge way-status way-${entry.turnStatus ?? 'none'}`}>
          {entry.turnStatus === 'inProgress' && <Spinner size={10} />} {status}
        </span>
      </header>
      {entry.branch !== null && (
        <p className="way-branch" title={entry.worktree ?? undefined}>
          <Icon name="fork" size={11} /> {entry.branch}
        </p>
      )}
      {entry.problem !== null && <p className="restore-note">{entry.problem}</p>}
      <section className="way-section" aria-label="Changes">
        <h4>
          Changes{' '}
          <span className="way-stat">
            <span className="way-add">+{entry.insertions}</span> <span className="way-del">−{entry.deletions}</span> in{' '}
            {entry.files.length} {entry.files.length === 1 ? 'file' : 'files'}
          </span>
        </h4>
        <ul className="way-files">
          {entry.files.map((f) => (
            <li key={f.path}>
              <code>{f.path}</code>
              <span className="way-stat">
                {f.insertions === null ? (
                  'binary'
                ) : (
                  <>
                    <span className="way-add">+{f.insertions}</span> <span className="way-del">−{f.deletions}</span>
                  </>
                )}
              </span>
            </li>
          ))}
        </ul>
      </section>
      <section className="way-section" aria-label="Tests">
        <h4>Tests</h4>
        {entry.tests.length === 0 ? (
          <p className="muted small">No test run.</p>
        ) : (
          <ul className="way-tests">
            {entry.tests.map((t, i) => {
              const passed = t.status === 'completed' && t.exitCode === 0;
              return (
                <li key={i} className={passed ? 'is-passed' : 'is-failed'}>
                  <Icon name={passed ? 'check' : 'x'} size={12} />
                  <code>{t.command}</code>
                  <span className="way-stat">{t.exitCode === null ? t.status : `exit ${t.exitCode}`}</span>
                </li>
              );
            })}
          </ul>
        )}
      </section>
      <section className="way-section way-message" aria-label="Last message">
        <h4>Last message</h4>
        <p>{entry.finalMessage ?? <span className="muted">None yet.</span>}</p>
      </section>
      <footer className="way-foot">
        <button
          type="button"
          className="btn btn-small"
          onClick={() => {
            openWays(null);
            void controller.selectThread(entry.threadId);
          }}
        >
          Open
        </button>
        <button
          type="button"
          className="btn btn-small btn-primary"
          disabled={entry.turnStatus === 'inProgress' || entry.worktree === null}
          aria-label={`Handoff way ${way} to local`}
          onClick={() => {
            openWays(null);
            openHandoff({ threadId: entry.threadId, direction: 'toLocal' });
          }}
        >
          Handoff to local…
        </button>
      </footer>
    </section>
  );
}

export function CompareWaysDialog({ groupId }: { groupId: string }) {
  const controller = useController();
  const [loaded, setLoaded] = useState<Loaded>({ state: 'loading' });
  // The group's ids and how each one's turn stands: a change is a reason to compare again.
  const key = useWeft((s) =>
    groupThreads(s.data.live, s.data.archived, groupId)
      .map((t) => `${t.id}:${s.data.lastTurnStatus[t.id] ?? ''}:${s.data.statuses[t.id]?.type ?? ''}`)
      .join(','),
  );

  useEffect(() => {
    const threadIds = key === '' ? [] : key.split(',').map((part) => part.split(':')[0] ?? '');
    if (threadIds.length === 0) return;
    let current = true;
    controller.request('weft/worktree/compare', { threadIds }).then(
      (result) => current && setLoaded({ state: 'ready', threads: result.threads }),
      (error: unknown) => current && setLoaded({ state: 'failed', message: messageOf(error) }),
    );
    return () => {
      current = false;
    };
  }, [controller, key]);

  const threads = loaded.state === 'ready' ? loaded.threads : [];
  return (
    <ReviewDialog
      className="compare-ways"
      icon="columns"
      title="Compare ways"
      beside={loaded.state === 'ready' && <span className="muted">{threads.length} threads, one message</span>}
      onClose={() => openWays(null)}
    >
      <p className="restore-summary">
        Each way works in a worktree of its own. Pick the one you like and hand its work off to your local checkout; the
        others stay where they are.
      </p>
      <div className="review-body ways">
        {loaded.state === 'loading' && (
          <p className="muted">
            <Spinner size={13} /> Comparing the worktrees…
          </p>
        )}
        {loaded.state === 'failed' && (
          <p className="settings-status settings-status-error" role="alert">
            {loaded.message}
          </p>
        )}
        {threads.map((entry, i) => (
          <WayColumn key={entry.threadId} entry={entry} way={i + 1} />
        ))}
      </div>
    </ReviewDialog>
  );
}
