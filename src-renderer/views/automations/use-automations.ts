// The automations and the review inbox as the server has them, loaded when a view needs them and again
// each time a run ends (`weft/automations/runEnded`, kept in `data.endedRuns`) or the view asks.
import { useCallback, useEffect, useState } from 'react';
import type { WeftAutomationEntry, WeftAutomationInboxItem } from '../../../src-preload/protocol';
import { useController, useWeft } from '../../store/app-context';
import { messageOf } from '../../store/checkpoint-ui';
import { useAutomationsUi } from '../../store/automations-ui';

export interface Loaded<T> {
  /** null while the first load is under way. */
  value: T | null;
  error: string | null;
  reload: () => Promise<void>;
}

function useLoaded<T>(load: () => Promise<T>): Loaded<T> {
  const ended = useWeft((s) => s.data.endedRuns.length);
  const [value, setValue] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const reload = useCallback(async () => {
    try {
      setValue(await load());
      setError(null);
    } catch (e) {
      setError(messageOf(e));
    }
  }, [load]);
  useEffect(() => {
    // eslint-disable-next-line react-hooks/set-state-in-effect -- reload() sets state only after its await (react/react#34905)
    void reload();
  }, [reload, ended]);
  return { value, error, reload };
}

export function useAutomationEntries(): Loaded<WeftAutomationEntry[]> {
  const controller = useController();
  const load = useCallback(async () => (await controller.request('weft/automations/list', {})).data, [controller]);
  return useLoaded(load);
}

/** The inbox's items, newest first; how many are unread is kept for the sidebar's count too. */
export function useInbox(): Loaded<WeftAutomationInboxItem[]> {
  const controller = useController();
  const load = useCallback(async () => {
    const { items, unseen } = await controller.request('weft/automations/inbox/list', {});
    useAutomationsUi.setState({ unseen });
    return items;
  }, [controller]);
  return useLoaded(load);
}

/** How many inbox items are unread (null until known), for the sidebar. */
export function useInboxUnseen(): number | null {
  const controller = useController();
  const ended = useWeft((s) => s.data.endedRuns.length);
  const connected = useWeft((s) => s.ui.connection.phase === 'open');
  useEffect(() => {
    if (!connected) return;
    controller.request('weft/automations/inbox/list', {}).then(
      ({ unseen }) => useAutomationsUi.setState({ unseen }),
      () => undefined,
    );
  }, [controller, ended, connected]);
  return useAutomationsUi((s) => s.unseen);
}
