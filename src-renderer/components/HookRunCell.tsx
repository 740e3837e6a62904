// One hook run in the conversation, compact: the event, how it ended, how long it took, the exit code, and
// what it said (a block's reason, why it failed). The command and its output are in the row's details.
import { memo } from 'react';
import type { HookRunSummary } from '../../src-preload/protocol';
import { useWeft } from '../store/app-context';
import { Icon, Spinner } from './Icon';

function eventLabel(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}

const STATUS_LABEL: Record<HookRunSummary['status'], string> = {
  running: 'Running',
  completed: 'Completed',
  failed: 'Failed',
  blocked: 'Blocked',
  stopped: 'Stopped',
};

export const HookRunCell = memo(function HookRunCell({ run }: { run: HookRunSummary }) {
  const said = run.entries.map((e) => e.text).join(' · ');
  const facts = [
    run.durationMs === null || run.durationMs === undefined ? null : `${run.durationMs} ms`,
    run.weftExitCode === null || run.weftExitCode === undefined ? null : `exit ${run.weftExitCode}`,
  ].filter((f): f is string => f !== null);
  return (
    <details className={`hook-run is-${run.status}`} data-hook-run={run.id}>
      <summary>
        {run.status === 'running' ? (
          <Spinner size={12} />
        ) : (
          <Icon name={run.status === 'completed' ? 'check' : 'shield'} size={13} />
        )}
        <span className="hook-run-title">
          hook: {eventLabel(run.eventName)} <strong>{STATUS_LABEL[run.status]}</strong>
        </span>
        {facts.length > 0 && <span className="muted">{facts.join(' · ')}</span>}
        {said !== '' && <span className="hook-run-said">{said}</span>}
      </summary>
      <dl className="hook-run-details">
        <dt>Command</dt>
        <dd>
          <code>{run.weftCommand ?? '(not told)'}</code>
        </dd>
        <dt>From</dt>
        <dd>{run.sourcePath}</dd>
        {run.weftOutput !== null && run.weftOutput !== undefined && run.weftOutput !== '' && (
          <>
            <dt>Output</dt>
            <dd>
              <pre>{run.weftOutput}</pre>
            </dd>
          </>
        )}
      </dl>
    </details>
  );
});

/** The conversation's row of a turn's hook run (`index` of the turn's runs), where it ran among the items. */
export const HookRow = memo(function HookRow({
  threadId,
  turnId,
  index,
}: {
  threadId: string;
  turnId: string;
  index: number;
}) {
  const run = useWeft((s) => s.data.conversations[threadId]?.turns[turnId]?.hooks[index]?.run);
  if (run === undefined) return null;
  return (
    <div className="cell hook-runs">
      <HookRunCell run={run} />
    </div>
  );
});
