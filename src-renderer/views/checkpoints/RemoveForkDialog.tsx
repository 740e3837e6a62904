// "Remove worktree": asks before removing a fork's folder, and names the work there that is found
// nowhere else (uncommitted changes in a worktree, changed files in a copy, that the parent's folder does
// not hold as they are) before it goes. A worktree's
// branch is kept; the thread stays in the list.
import { useEffect, useState } from 'react';
import type { WeftFork } from '../../../src-preload/protocol';
import { Spinner } from '../../components/Icon';
import { ReviewDialog } from '../../components/ReviewDialog';
import { useController } from '../../store/app-context';
import { messageOf, openRemoveFork } from '../../store/checkpoint-ui';

type Loaded =
  | { state: 'loading' }
  | { state: 'ready'; uncommitted: string[]; fork: WeftFork }
  | { state: 'failed'; message: string };

export function RemoveForkDialog({ threadId }: { threadId: string }) {
  const controller = useController();
  const [loaded, setLoaded] = useState<Loaded>({ state: 'loading' });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let current = true;
    controller.request('weft/forks/remove', { threadId, dryRun: true }).then(
      (result) => current && setLoaded({ state: 'ready', uncommitted: result.uncommitted, fork: result.fork }),
      (e: unknown) => current && setLoaded({ state: 'failed', message: messageOf(e) }),
    );
    return () => {
      current = false;
    };
  }, [controller, threadId]);

  const remove = async (): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      const result = await controller.request('weft/forks/remove', { threadId, force: true });
      if (result.removed) {
        await controller.refreshLists();
        openRemoveFork(null);
        return;
      }
      setError('Nothing was removed: the folder is already gone.');
    } catch (e) {
      setError(messageOf(e));
    }
    setBusy(false);
  };

  const what = loaded.state === 'ready' && loaded.fork.kind === 'copy' ? 'copy' : 'worktree';
  return (
    <ReviewDialog
      className="restore remove-fork"
      icon="archive"
      title={`Remove ${what}`}
      onClose={() => openRemoveFork(null)}
    >
      <div className="review-body">
        {loaded.state === 'loading' && (
          <p className="muted">
            <Spinner size={13} /> Looking for work that is only there…
          </p>
        )}
        {loaded.state === 'failed' && (
          <p className="settings-status settings-status-error" role="alert">
            {loaded.message}
          </p>
        )}
        {loaded.state === 'ready' && (
          <>
            <p>
              Removes the folder <code>{loaded.fork.folder}</code>
              {loaded.fork.branch !== null && (
                <>
                  ; the branch <code>{loaded.fork.branch}</code> is kept
                </>
              )}
              . The thread stays in the list.
            </p>
            {loaded.uncommitted.length > 0 ? (
              <div className="review-reason" role="alert">
                <strong>
                  {loaded.uncommitted.length === 1 ? '1 file has' : `${loaded.uncommitted.length} files have`} work
                  found nowhere else
                  {loaded.fork.kind === 'worktree' ? ' (not committed)' : ''}: removing the folder loses it.
                </strong>
                <ul>
                  {loaded.uncommitted.map((path) => (
                    <li key={path}>
                      <code>{path}</code>
                    </li>
                  ))}
                </ul>
              </div>
            ) : (
              <p className="muted">
                Nothing there is found only there: every file it changed is the same in the parent’s folder
                {loaded.fork.kind === 'worktree' ? ' or committed' : ''}.
              </p>
            )}
          </>
        )}
      </div>
      <footer className="review-foot">
        {error !== null && (
          <span className="settings-status-error" role="alert">
            {error}
          </span>
        )}
        <span className="spacer" />
        <button type="button" className="btn" data-autofocus onClick={() => openRemoveFork(null)}>
          Cancel
        </button>
        <button
          type="button"
          className="btn btn-danger"
          disabled={busy || loaded.state !== 'ready'}
          onClick={() => void remove()}
        >
          {loaded.state === 'ready' && loaded.uncommitted.length > 0
            ? `Remove and lose ${loaded.uncommitted.length} ${loaded.uncommitted.length === 1 ? 'file' : 'files'}`
            : `Remove ${what}`}
        </button>
      </footer>
    </ReviewDialog>
  );
}
