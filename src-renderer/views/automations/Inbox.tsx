// The review inbox: the finished runs of every automation, newest first, unread ones marked, beside the
// run chosen (the newest unread at first, or the one a notification's click opened). Narrow windows show the list above the run.
import type { WeftAutomationInboxItem } from '../../../src-preload/protocol';
import { openInboxRun, useAutomationsUi } from '../../store/automations-ui';
import { STATUS_LABELS, statusTone, whenText } from './automation-text';
import { InboxRun } from './InboxRun';

export function Inbox({
  items,
  onChanged,
}: {
  items: readonly WeftAutomationInboxItem[];
  onChanged: () => Promise<void>;
}) {
  const chosen = useAutomationsUi((s) => s.inboxRun);
  if (items.length === 0)
    return (
      <p className="muted automation-empty">
        Nothing to review. Each run of an automation lands here when it ends: its message, its changes to keep or
        discard, and the thread to continue.
      </p>
    );
  const shown = items.find((i) => i.run.runId === chosen) ?? items.find((i) => !i.run.seen) ?? items[0] ?? null;
  return (
    <div className="inbox">
      <ul className="inbox-list" aria-label="Finished runs">
        {items.map((item) => {
          const { run } = item;
          const current = shown?.run.runId === run.runId;
          return (
            <li key={run.runId}>
              <button
                type="button"
                className={`inbox-item${current ? ' is-current' : ''}${run.seen ? '' : ' is-unread'}`}
                aria-current={current ? 'true' : undefined}
                onClick={() => openInboxRun(run.runId)}
              >
                <span className="inbox-item-top">
                  {!run.seen && <span className="unread-dot" aria-label="Unread" />}
                  <span className="inbox-item-name">{item.automationName}</span>
                  <span className={`status ${statusTone(run.status)}`}>{STATUS_LABELS[run.status]}</span>
                </span>
                <span className="inbox-item-sub muted small">
                  {whenText(run.endedAt ?? run.startedAt)}
                  {run.environment !== null && ` · on ${run.environment}`}
                  {run.decision !== null && ` · ${run.decision === 'kept' ? 'kept' : 'discarded'}`}
                </span>
                {(run.reason ?? run.finalMessage) !== null && (
                  <span className="inbox-item-line small">{run.reason ?? run.finalMessage}</span>
                )}
              </button>
            </li>
          );
        })}
      </ul>
      {shown !== null && <InboxRun key={shown.run.runId} item={shown} onChanged={onChanged} />}
    </div>
  );
}
