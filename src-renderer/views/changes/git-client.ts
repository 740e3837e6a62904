// The Changes panel's requests, with git's errors kept verbatim (they name the command that failed).
import { folderParams } from '../../store/project-key';
import { useCallback, useEffect, useState } from 'react';
import type { WeftGitStatusResult } from '../../../src-preload/protocol';
import { useController } from '../../store/app-context';

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export interface GitView {
  status: WeftGitStatusResult | null;
  error: string | null;
  busy: string | null;
  /** Runs one change (stage, commit…) and reloads the status; its error is shown in the panel. */
  run(label: string, work: () => Promise<unknown>): Promise<boolean>;
  reload(): Promise<void>;
  /** Bumped after every change: diffs reload on it. */
  version: number;
}

export function useGitView(cwd: string, reloadKey: unknown): GitView {
  const controller = useController();
  const [status, setStatus] = useState<WeftGitStatusResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [version, setVersion] = useState(0);

  const reload = useCallback(async () => {
    try {
      setStatus(await controller.request('weft/git/status', folderParams(cwd)));
      setVersion((v) => v + 1);
    } catch (e) {
      setError(errorText(e));
    }
  }, [controller, cwd]);

  useEffect(() => {
    // eslint-disable-next-line react-hooks/set-state-in-effect -- reload() sets state only after its await (react/react#34905)
    void reload();
  }, [reload, reloadKey]);

  const run = useCallback(
    async (label: string, work: () => Promise<unknown>): Promise<boolean> => {
      setBusy(label);
      setError(null);
      try {
        await work();
        return true;
      } catch (e) {
        setError(errorText(e));
        return false;
      } finally {
        setBusy(null);
        await reload();
      }
    },
    [reload],
  );

  return { status, error, busy, run, reload, version };
}
