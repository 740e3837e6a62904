// "Compare with parent": every file that differs between a fork (worktree or copy) and its parent's
// project, side by side (left: the parent now; right: the fork now), each marked with the branch that
// changed it since the fork.
import { useEffect, useState } from 'react';
import type { WeftForksCompareResult } from '../../../src-preload/protocol';
import { DiffView } from '../../components/diff/DiffView';
import { Icon, Spinner } from '../../components/Icon';
import { ReviewDialog } from '../../components/ReviewDialog';
import { useController } from '../../store/app-context';
import { messageOf, openCompare } from '../../store/checkpoint-ui';

const CHANGED_IN = { fork: 'changed in the fork', parent: 'changed in the parent', both: 'changed in both' } as const;

type Loaded =
  { state: 'loading' } | { state: 'ready'; result: WeftForksCompareResult } | { state: 'failed'; message: string };

export function ForkCompareDialog({ threadId }: { threadId: string }) {
  const controller = useController();
  const [loaded, setLoaded] = useState<Loaded>({ state: 'loading' });

  useEffect(() => {
    let current = true;
    controller.request('weft/forks/compare', { threadId }).then(
      (result) => current && setLoaded({ state: 'ready', result }),
      (error: unknown) => current && setLoaded({ state: 'failed', message: messageOf(error) }),
    );
    return () => {
      current = false;
    };
  }, [controller, threadId]);

  const files = loaded.state === 'ready' ? loaded.result.files : [];
  return (
    <ReviewDialog
      className="restore"
      icon="columns"
      title="Compare with parent"
      beside={
        loaded.state === 'ready' && (
          <span className="muted">
            {files.length} {files.length === 1 ? 'file differs' : 'files differ'}
          </span>
        )
      }
      onClose={() => openCompare(null)}
    >
      {loaded.state === 'ready' && (
        <p className="restore-summary">
          Left: the parent, <code title={loaded.result.parentCwd}>{loaded.result.parentCwd}</code>; right: the fork,{' '}
          <code title={loaded.result.cwd}>{loaded.result.cwd}</code>.
        </p>
      )}
      <div className="review-body">
        {loaded.state === 'loading' && (
          <p className="muted">
            <Spinner size={13} /> Comparing the two branches…
          </p>
        )}
        {loaded.state === 'failed' && (
          <p className="settings-status settings-status-error" role="alert">
            {loaded.message}
          </p>
        )}
        {loaded.state === 'ready' && files.length === 0 && (
          <p className="muted">The fork and its parent hold the same files.</p>
        )}
        {files.map((file) => (
          <section
            key={file.path}
            className="review-file restore-file"
            aria-label={`${file.path} ${CHANGED_IN[file.changedIn]}`}
          >
            <header className="review-file-head">
              <Icon name="file" size={14} />
              <span className="file-path">{file.path}</span>
              <span className={`badge fork-changed-${file.changedIn}`}>{CHANGED_IN[file.changedIn]}</span>
            </header>
            {file.binary ? (
              <p className="restore-note muted">Binary file: the two branches' bytes differ.</p>
            ) : (
              <DiffView
                original={file.parent ?? ''}
                modified={file.fork ?? ''}
                path={file.path}
                sideBySide
                hideUnchanged
                maxHeight={360}
                label={`${file.path}: parent and fork`}
              />
            )}
          </section>
        ))}
      </div>
    </ReviewDialog>
  );
}
