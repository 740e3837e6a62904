// The Changes panel: the project's uncommitted work (staged, unstaged, untracked) with diffs, staging by
// file or hunk, discard with restore, commit / amend / push, the branch; the last turn's changes; a
// review's findings. Outside git it shows the thread's checkpointed changes.
import { useEffect } from 'react';
import type { GitDiffArea, GitFileStatus } from '../../../src-preload/protocol';
import { Icon, Spinner } from '../../components/Icon';
import { DiffLayoutToggle } from '../../components/items/FileChangeCell';
import { useDiffLayout } from '../../components/preferences';
import { useWeft } from '../../store/app-context';
import { BranchMenu } from './BranchMenu';
import { changesActions, useChanges, type ChangesTab } from '../../store/changes-store';
import { CommitBox } from './CommitBox';
import { FileEntry } from './FileEntry';
import { useGitView } from './git-client';
import { CheckpointedChanges, LastTurnView, ReviewView } from './OtherViews';
import { Comments, Discards } from './SideLists';

const TABS: { id: ChangesTab; label: string }[] = [
  { id: 'changes', label: 'Uncommitted' },
  { id: 'lastTurn', label: 'Last turn' },
  { id: 'review', label: 'Review' },
];

function Group({
  title,
  area,
  files,
  cwd,
  git,
  sideBySide,
}: {
  title: string;
  area: GitDiffArea;
  files: GitFileStatus[];
  cwd: string;
  git: ReturnType<typeof useGitView>;
  sideBySide: boolean;
}) {
  if (files.length === 0) return null;
  return (
    <section className="changes-group" aria-label={title}>
      <h3>
        {title} <span className="muted">({files.length})</span>
      </h3>
      <ul className="changes-files">
        {files.map((f) => (
          <FileEntry key={`${area}:${f.path}`} cwd={cwd} file={f} area={area} git={git} sideBySide={sideBySide} />
        ))}
      </ul>
    </section>
  );
}

/** `cwd`: the project key of the folder shown (a folder here, or `NAME:/folder` on an environment). */
export function ChangesPanel({ cwd }: { cwd: string }) {
  const tab = useChanges((s) => s.tab);
  const [layout] = useDiffLayout();
  const sideBySide = layout === 'split';
  // The status is read again whenever a turn of the open thread ends (the agent may have changed files).
  const turnKey = useWeft((s) => {
    const id = s.ui.activeThreadId;
    const c = id === null ? undefined : s.data.conversations[id];
    const last = c?.turnIds[c.turnIds.length - 1];
    return `${id ?? ''}:${last ?? ''}:${last === undefined ? '' : (c?.turns[last]?.status ?? '')}`;
  });
  const git = useGitView(cwd, turnKey);
  const status = git.status;

  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      if (
        e.key === 'Escape' &&
        !e.defaultPrevented &&
        !(e.target instanceof HTMLElement && e.target.closest('form, [role="alertdialog"]'))
      )
        changesActions.close();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const files = status?.files ?? [];
  return (
    <aside className="side-panel changes-panel" role="region" aria-label="Changes">
      <header className="changes-head">
        <Icon name="diff" />
        <h2>Changes</h2>
        {status?.enabled === true && <BranchMenu cwd={cwd} git={git} />}
        {git.busy !== null && (
          <span className="muted small" role="status">
            <Spinner size={11} /> {git.busy}…
          </span>
        )}
        <span className="spacer" />
        <DiffLayoutToggle />
        <button type="button" className="icon-button" aria-label="Refresh changes" onClick={() => void git.reload()}>
          <Icon name="refresh" />
        </button>
        <button type="button" className="icon-button" aria-label="Close changes" onClick={() => changesActions.close()}>
          <Icon name="x" />
        </button>
      </header>
      <nav className="changes-tabs" role="tablist" aria-label="Changes views">
        {TABS.map((t) => (
          <button
            key={t.id}
            type="button"
            role="tab"
            aria-selected={tab === t.id}
            className={`changes-tab ${tab === t.id ? 'is-active' : ''}`}
            onClick={() => changesActions.setTab(t.id)}
          >
            {t.label}
            {t.id === 'changes' && files.length > 0 ? <span className="count">{files.length}</span> : null}
          </button>
        ))}
      </nav>
      <div className="changes-body">
        {git.error !== null && (
          <p className="changes-error" role="alert">
            {git.error}
          </p>
        )}
        {status === null && git.error === null && (
          <p className="muted">
            <Spinner size={12} /> Reading the repository…
          </p>
        )}
        {tab === 'changes' && status !== null && !status.enabled && (
          <CheckpointedChanges reason={status.reason} sideBySide={sideBySide} />
        )}
        {tab === 'changes' && status?.enabled === true && (
          <>
            {files.length === 0 && <p className="muted changes-empty">No uncommitted changes.</p>}
            <Group
              title="Staged"
              area="staged"
              files={files.filter((f) => f.staged !== null)}
              cwd={cwd}
              git={git}
              sideBySide={sideBySide}
            />
            <Group
              title="Unstaged"
              area="unstaged"
              files={files.filter((f) => f.unstaged !== null)}
              cwd={cwd}
              git={git}
              sideBySide={sideBySide}
            />
            <Group
              title="Untracked"
              area="untracked"
              files={files.filter((f) => f.untracked)}
              cwd={cwd}
              git={git}
              sideBySide={sideBySide}
            />
            <Discards cwd={cwd} git={git} />
            <Comments />
            <CommitBox cwd={cwd} git={git} />
          </>
        )}
        {tab === 'lastTurn' && <LastTurnView sideBySide={sideBySide} />}
        {tab === 'review' && <ReviewView cwd={cwd} sideBySide={sideBySide} />}
        {tab !== 'changes' && <Comments />}
      </div>
    </aside>
  );
}

/** The header button that opens and closes the panel. */
export function ChangesButton() {
  const open = useChanges((s) => s.open);
  return (
    <button
      type="button"
      className={`btn btn-small ${open ? 'is-active' : ''}`}
      aria-pressed={open}
      onClick={() => (open ? changesActions.close() : changesActions.open())}
    >
      <Icon name="diff" size={12} /> Changes
    </button>
  );
}
