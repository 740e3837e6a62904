// A polite live region: screen readers hear when an approval starts waiting and when a turn ends,
// without moving focus.
import { useEffect, useState } from 'react';
import { findThread, threadTitle } from '../store/selectors';
import { useApp } from '../store/app-context';

export function LiveRegion() {
  const { store } = useApp();
  const [message, setMessage] = useState('');
  useEffect(
    () =>
      store.subscribe((state, previous) => {
        const { data } = state;
        const added = data.approvals.filter((r) => !previous.data.approvals.includes(r));
        const first = added[0];
        if (first !== undefined) {
          setMessage(
            first.method === 'item/commandExecution/requestApproval'
              ? `Approval needed to run ${first.params.command}`
              : first.method === 'item/fileChange/requestApproval'
                ? 'Approval needed to change files'
                : 'The agent has a question for you',
          );
          return;
        }
        for (const [threadId, status] of Object.entries(data.lastTurnStatus)) {
          if (status === previous.data.lastTurnStatus[threadId] || status === 'inProgress') continue;
          const thread = findThread(data, threadId);
          const name = thread === undefined ? 'The turn' : `The turn in ${threadTitle(thread)}`;
          setMessage(
            status === 'failed'
              ? `${name} failed`
              : status === 'interrupted'
                ? `${name} was stopped`
                : `${name} finished`,
          );
        }
      }),
    [store],
  );
  return (
    <div className="sr-only" role="status" aria-live="polite" aria-atomic="true" data-testid="live-region">
      {message}
    </div>
  );
}
