// A call of a sub-agent tool (spawn, send, wait, close, resume): which sub-agents, what was sent, and how
// each stood when the call ended. A sub-agent's name opens its thread.
import { useShallow } from 'zustand/react/shallow';
import type { CollabAgentState, CollabAgentToolCallItem } from '../../../src-preload/protocol';
import { useController, useWeft } from '../../store/app-context';
import { agentLabel, findThread } from '../../store/selectors';
import { Icon, Spinner } from '../Icon';

const VERBS: Record<CollabAgentToolCallItem['tool'], { running: string; done: string }> = {
  spawnAgent: { running: 'Starting a sub-agent', done: 'Started sub-agent' },
  sendInput: { running: 'Sending a message to', done: 'Sent a message to' },
  wait: { running: 'Waiting for', done: 'Waited for' },
  closeAgent: { running: 'Closing', done: 'Closed' },
  resumeAgent: { running: 'Resuming', done: 'Resumed' },
};

const STATE_TEXT: Record<CollabAgentState['status'], { label: string; tone: string }> = {
  pendingInit: { label: 'Starting', tone: 'running' },
  running: { label: 'Running', tone: 'running' },
  completed: { label: 'Done', tone: 'ok' },
  errored: { label: 'Failed', tone: 'failed' },
  interrupted: { label: 'Stopped', tone: 'muted' },
  shutdown: { label: 'Closed', tone: 'muted' },
  notFound: { label: 'Not found', tone: 'failed' },
};

const CALL_STATUS: Record<CollabAgentToolCallItem['status'], { label: string; tone: string }> = {
  inProgress: { label: 'Running', tone: 'running' },
  completed: { label: 'Done', tone: 'ok' },
  failed: { label: 'Failed', tone: 'failed' },
  interrupted: { label: 'Stopped', tone: 'muted' },
};

export function CollabCell({ item }: { item: CollabAgentToolCallItem }) {
  const controller = useController();
  const labels = useWeft(useShallow((s) => item.receiverThreadIds.map((id) => agentLabel(findThread(s.data, id), id))));
  const running = item.status === 'inProgress';
  const verb = running ? VERBS[item.tool].running : VERBS[item.tool].done;
  const states = item.receiverThreadIds.flatMap((id, i) => {
    const state = item.agentsStates[id];
    return state === undefined ? [] : [{ id, label: labels[i] ?? id, state }];
  });
  return (
    <div className={`cell cell-collab is-${item.status}`} data-tool={item.tool}>
      <div className="collab-head">
        <Icon name="user" size={14} />
        <span className="collab-what">
          {verb}{' '}
          {item.receiverThreadIds.map((id, i) => (
            <span key={id}>
              {i > 0 && ', '}
              <button type="button" className="link-button" onClick={() => void controller.selectThread(id)}>
                {labels[i] ?? id}
              </button>
            </span>
          ))}
        </span>
        {running ? (
          <Spinner size={12} />
        ) : (
          <span className={`status status-${CALL_STATUS[item.status].tone}`}>{CALL_STATUS[item.status].label}</span>
        )}
      </div>
      {item.prompt !== null && item.prompt !== '' && <blockquote className="collab-prompt">{item.prompt}</blockquote>}
      {!running && states.length > 0 && (
        <ul className="collab-states" aria-label="Sub-agents">
          {states.map(({ id, label, state }) => (
            <li key={id}>
              <span className="collab-name">{label}</span>
              <span className={`status status-${STATE_TEXT[state.status].tone}`}>{STATE_TEXT[state.status].label}</span>
              {state.message !== null && state.message !== '' && (
                <span className="collab-message">{state.message}</span>
              )}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
