// The automations, one row each: name, project, trigger, next run, enabled; Run now, Edit, Remove, and the
// history of its runs (each with why it failed). A file that cannot be used is listed with its problem.
import { useEffect, useState } from 'react';
import type { WeftAutomationEntry, WeftAutomationRun } from '../../../src-preload/protocol';
import { baseName } from '../../components/format';
import { Icon, Spinner } from '../../components/Icon';
import { useController } from '../../store/app-context';
import { openAutomations } from '../../store/automations-ui';
import { messageOf } from '../../store/checkpoint-ui';
import {
  nextRunText,
  runFacts,
  STATUS_LABELS,
  statusTone,
  TRIGGER_LABELS,
  triggerText,
  whenText,
} from './automation-text';

function RunHistory({ id }: { id: string }) {
  const controller = useController();
  const [runs, setRuns] = useState<WeftAutomationRun[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    controller.request('weft/automations/runs', { id }).then(
      (r) => live && setRuns([...r.runs].reverse()),
      (e: unknown) => live && setError(messageOf(e)),
    );
    return () => {
      live = false;
    };
  }, [controller, id]);
  if (error !== null)
    return (
      <p className="settings-status settings-status-error" role="alert">
        {error}
      </p>
    );
  if (runs === null) return <Spinner size={13} label="Loading the runs" />;
  if (runs.length === 0) return <p className="muted small">No runs yet.</p>;
  return (
    <ol className="automation-runs" aria-label="Runs">
      {runs.map((run) => (
        <li key={run.runId} className="automation-run">
          <span className={`status ${statusTone(run.status)}`}>{STATUS_LABELS[run.status]}</span>
          <span>{whenText(run.startedAt)}</span>
          <span className="muted small">{TRIGGER_LABELS[run.trigger]}</span>
          <span className="muted small">{runFacts(run)}</span>
          {run.decision !== null && <span className="badge">{run.decision === 'kept' ? 'Kept' : 'Discarded'}</span>}
          {run.threadId !== null && (
            <button
              type="button"
              className="link-button"
              onClick={() => {
                openAutomations(null);
                void controller.selectThread(run.threadId ?? '');
              }}
            >
              Open thread
            </button>
          )}
          {run.reason !== null && <p className="automation-run-reason">{run.reason}</p>}
        </li>
      ))}
    </ol>
  );
}

function AutomationRow({
  entry,
  onEdit,
  onChanged,
}: {
  entry: WeftAutomationEntry;
  onEdit: () => void;
  onChanged: () => Promise<void>;
}) {
  const controller = useController();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [history, setHistory] = useState(false);
  const [confirmRemove, setConfirmRemove] = useState(false);
  const a = entry.automation;
  const act = async (work: () => Promise<unknown>): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      await work();
      await onChanged();
    } catch (e) {
      setError(messageOf(e));
    } finally {
      setBusy(false);
    }
  };
  if (a === null)
    return (
      <li className="automation-row is-broken">
        <div className="automation-main">
          <Icon name="alert" size={14} />
          <strong>{entry.id}</strong>
          <span className="muted small">{entry.file}</span>
        </div>
        <p className="automation-run-reason">{entry.problem}</p>
      </li>
    );
  const running = entry.lastRun?.status === 'running';
  return (
    <li className="automation-row" aria-label={a.name}>
      <div className="automation-main">
        <label className="automation-enabled" title={a.enabled ? 'Enabled: runs on its trigger' : 'Disabled'}>
          <input
            type="checkbox"
            checked={a.enabled}
            disabled={busy}
            aria-label={`Enabled: ${a.name}`}
            onChange={(e) =>
              void act(() =>
                controller.request('weft/automations/update', { id: entry.id, changes: { enabled: e.target.checked } }),
              )
            }
          />
        </label>
        <div className="automation-what">
          <strong className="automation-name">{a.name}</strong>
          <span className="muted small automation-facts">
            <span title={a.project}>{baseName(a.project)}</span>
            <span aria-hidden="true"> · </span>
            <span>
              {a.environment === 'worktree' ? 'worktree' : 'local'}
              {a.remote === null ? '' : ` on ${a.remote}`}
            </span>
            <span aria-hidden="true"> · </span>
            <code>{triggerText(a.trigger)}</code>
          </span>
        </div>
        <div className="automation-when">
          <span className="muted small">Next run</span>
          <span>{nextRunText(a, entry.nextRunAt)}</span>
        </div>
        <div className="automation-last">
          {entry.lastRun === null ? (
            <span className="muted small">Never run</span>
          ) : (
            <span className={`status ${statusTone(entry.lastRun.status)}`}>
              {running && <Spinner size={10} />}
              {STATUS_LABELS[entry.lastRun.status]}
            </span>
          )}
        </div>
        <div className="automation-actions">
          <button
            type="button"
            className="btn btn-small"
            disabled={busy || running}
            onClick={() => void act(() => controller.request('weft/automations/runNow', { id: entry.id }))}
          >
            Run now
          </button>
          <button type="button" className="btn btn-small" onClick={onEdit}>
            Edit
          </button>
          <button type="button" className="btn btn-small" aria-expanded={history} onClick={() => setHistory((h) => !h)}>
            History
          </button>
          <button
            type="button"
            className="icon-button"
            aria-label={`Remove ${a.name}`}
            title="Remove"
            onClick={() => setConfirmRemove(true)}
          >
            <Icon name="x" size={14} />
          </button>
        </div>
      </div>
      {confirmRemove && (
        <div className="automation-confirm" role="alert">
          <span>Remove “{a.name}” and its history? The threads and worktrees of its runs stay.</span>
          <span className="spacer" />
          <button type="button" className="btn btn-small" onClick={() => setConfirmRemove(false)}>
            Keep it
          </button>
          <button
            type="button"
            className="btn btn-small btn-danger"
            disabled={busy}
            onClick={() => void act(() => controller.request('weft/automations/remove', { id: entry.id }))}
          >
            Remove
          </button>
        </div>
      )}
      {error !== null && (
        <p className="settings-status settings-status-error" role="alert">
          {error}
        </p>
      )}
      {history && <RunHistory key={entry.lastRun?.runId ?? 'none'} id={entry.id} />}
    </li>
  );
}

export function AutomationList({
  entries,
  onEdit,
  onChanged,
}: {
  entries: readonly WeftAutomationEntry[];
  onEdit: (entry: WeftAutomationEntry) => void;
  onChanged: () => Promise<void>;
}) {
  if (entries.length === 0)
    return (
      <p className="muted automation-empty">
        No automations yet. An automation runs a prompt in a project on a schedule, each run in a worktree of its own,
        and its result waits in the inbox for you.
      </p>
    );
  return (
    <ul className="automation-list">
      {entries.map((entry) => (
        <AutomationRow key={entry.id} entry={entry} onEdit={() => onEdit(entry)} onChanged={onChanged} />
      ))}
    </ul>
  );
}
