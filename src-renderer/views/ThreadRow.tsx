// One thread in the sidebar: its name (or first message), how long ago it changed, its state on the board
// (running and doing what, needing you, done, failed; unread marked; a sub-agent with its nickname) and, for a fork with its own files,
// where it lives (branch `weft/<id>` or a copy); a menu with Rename, Pin / Unpin, Mark as unread, Fork,
// Archive / Unarchive, and for such a fork Open in worktree, Compare with parent, Bring changes back,
// Remove worktree.
import { projectKey, threadFolderKey } from '../store/project-key';
import { memo, useEffect, useId, useRef, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { Thread } from '../../src-preload/protocol';
import { baseName, relativeTime } from '../components/format';
import { Icon } from '../components/Icon';
import { useKeepInSight } from '../components/use-keep-in-sight';
import { MenuButton } from '../components/Menu';
import type { MenuItem } from '../components/Menu';
import { boardState, isUnread } from '../store/board';
import { agentLabel, findThread, threadTitle } from '../store/selectors';
import { BoardBadge } from './BoardBadge';
import { openBringBack, openCompare, openRemoveFork } from '../store/checkpoint-ui';
import { openHandoff } from '../store/worktree-ui';
import { useApp, useWeft } from '../store/app-context';
import { newDraft } from '../store/draft';
import { setData } from '../store/store';
import { upsertThread } from '../store/thread-list';

export interface ThreadRowProps {
  thread: Thread;
  depth: number;
  archived: boolean;
  now: number;
  /** In search results: the search, the matching text, and whether ↓ / ↑ point at this row. */
  search?: { term: string; snippet: string | null; selected: boolean };
  /** Opening the row shows its project first (a thread of another open project, under "Needs me"). */
  ofAnotherProject?: boolean;
}

export const ThreadRow = memo(function ThreadRow({
  thread,
  depth,
  archived,
  now,
  search,
  ofAnotherProject = false,
}: ThreadRowProps) {
  const { controller, store } = useApp();
  const active = useWeft((s) => s.ui.activeThreadId === thread.id);
  const state = useWeft(useShallow((s) => boardState(s.data, thread.id)));
  const unread = useWeft((s) => isUnread(s.data, thread.id));
  // Under "Needs me" a thread of another project is listed under its project's name already.
  const elsewhere = useWeft((s) => !ofAnotherProject && s.data.cwd !== null && threadFolderKey(thread) !== s.data.cwd);
  const fork = useWeft((s) => s.data.forks[thread.id]);
  const handsOff = useWeft(
    (s) =>
      fork !== undefined &&
      thread.weftWorktree !== undefined &&
      findThread(s.data, fork.parentThreadId)?.weftWorktree === undefined,
  );
  const [renaming, setRenaming] = useState(false);
  const row = useRef<HTMLLIElement>(null);
  // The open thread is always in sight in the list, however it was opened (a link, a fork, a reload) and
  // after the window was made smaller.
  const selected = search?.selected === true;
  useKeepInSight(row, active || selected);
  const titleId = useId();
  const metaId = useId();
  const snippetId = useId();
  const title = threadTitle(thread);
  // A sub-agent sits under the thread that spawned it, named by its nickname.
  const agent = thread.parentThreadId !== undefined && thread.parentThreadId !== null;

  // Pinned threads are listed first (the sidebar's "Pinned"); the answer is the thread as it is now.
  const setPinned = async (pinned: boolean): Promise<void> => {
    try {
      const result = await controller.request('weft/thread/pin', { threadId: thread.id, pinned });
      setData(store, (data) => upsertThread(newDraft(), data, result.thread));
    } catch (error) {
      controller.toast(
        `Could not ${pinned ? 'pin' : 'unpin'} the thread: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  };
  const pinned = thread.weftPinned === true;

  const pin: MenuItem = { label: pinned ? 'Unpin' : 'Pin', icon: 'pin', onSelect: () => void setPinned(!pinned) };
  // The thread shown is read as it is shown: marking it unread is for the others.
  const markUnread: MenuItem[] =
    active || unread
      ? []
      : [{ label: 'Mark as unread', icon: 'sparkle', onSelect: () => void controller.markUnread(thread.id) }];
  const items: MenuItem[] = [
    { label: 'Rename', icon: 'pencil', onSelect: () => setRenaming(true) },
    ...(archived ? [] : [pin]),
    ...markUnread,
    { label: 'Fork', icon: 'fork', onSelect: () => void controller.fork(thread.id) },
    archived
      ? { label: 'Unarchive', icon: 'archive', onSelect: () => void controller.unarchive(thread.id) }
      : { label: 'Archive', icon: 'archive', onSelect: () => void controller.archive(thread.id) },
  ];
  if (fork !== undefined && !fork.removed) {
    const what = fork.kind === 'worktree' ? 'worktree' : 'copy';
    items.push(
      {
        label: `Open in ${what}`,
        icon: 'folder',
        // The fork's folder becomes the project, with the fork's thread open in it.
        onSelect: () => {
          controller.openProject(projectKey(thread.weftEnvironment, fork.cwd));
          void controller.selectThread(thread.id);
        },
      },
      { label: 'Compare with parent', icon: 'columns', onSelect: () => openCompare(thread.id) },
      {
        label: 'Bring changes back',
        icon: 'undo',
        // A fork in a git worktree of a thread of the project's own folder hands its work off like any
        // worktree thread; a copy (no git), or a fork of a worktree thread, gets its patch reviewed.
        onSelect: () =>
          handsOff ? openHandoff({ threadId: thread.id, direction: 'toLocal' }) : openBringBack(thread.id),
      },
      { label: `Remove ${what}`, icon: 'archive', danger: true, onSelect: () => openRemoveFork(thread.id) },
    );
  }
  // A worktree thread is marked with its branch (a fork with files says where it lives below).
  const worktree = fork === undefined ? (thread.weftWorktree ?? null) : null;
  const where =
    fork === undefined
      ? null
      : fork.removed
        ? 'folder removed'
        : fork.branch !== null
          ? `on ${fork.branch}`
          : `copy ${baseName(fork.folder)}`;

  return (
    <li
      ref={row}
      className={`thread-row ${active ? 'is-active' : ''} ${depth > 0 ? 'is-fork' : ''} ${agent ? 'is-agent' : ''} ${selected ? 'is-selected' : ''} ${unread ? 'is-unread' : ''}`}
      style={{ paddingLeft: 6 + depth * 14 }}
    >
      {depth > 0 && <span className="fork-line" aria-hidden="true" />}
      {renaming ? (
        <RenameField
          initial={thread.name ?? title}
          onDone={(name) => {
            setRenaming(false);
            if (name !== null && name.trim() !== '' && name.trim() !== title) void controller.rename(thread.id, name);
          }}
        />
      ) : (
        <button
          type="button"
          className="thread-button"
          aria-current={active ? 'page' : undefined}
          aria-labelledby={titleId}
          aria-describedby={search?.snippet == null ? metaId : `${snippetId} ${metaId}`}
          onClick={() => (ofAnotherProject ? controller.showThreadOf(thread) : void controller.selectThread(thread.id))}
        >
          <span className="thread-title" id={titleId}>
            {agent && (
              <span className="thread-agent" title="Sub-agent">
                <Icon name="user" size={10} />
                {agentLabel(thread, thread.id)}
              </span>
            )}
            {title}
          </span>

          {search !== undefined && search.snippet !== null && (
            <span className="thread-snippet" id={snippetId}>
              <Highlighted text={search.snippet} term={search.term} />
            </span>
          )}
          <span className="thread-meta" id={metaId}>
            {unread && <span className="sr-only">Unread. </span>}
            <BoardBadge state={state} />
            {worktree !== null ? (
              <span className="thread-where thread-worktree" title={`Worktree ${worktree.path}`}>
                <Icon name="fork" size={10} />
                <span className="sr-only">worktree on </span>
                <span>{worktree.branch}</span>
              </span>
            ) : where !== null ? (
              <span className={`thread-where${fork?.removed === true ? ' is-removed' : ''}`} title={thread.cwd}>
                {where}
              </span>
            ) : (
              elsewhere && (
                <span className="thread-where" title={thread.cwd}>
                  in {baseName(thread.cwd)}
                </span>
              )
            )}
            <span className="thread-time">{relativeTime(thread.updatedAt, now)}</span>
          </span>
        </button>
      )}
      {!renaming && <MenuButton label={`Actions for ${title}`} items={items} className="thread-menu" />}
    </li>
  );
});

/** `text` with the words of `term` marked (case-insensitive). */
function Highlighted({ text, term }: { text: string; term: string }) {
  const words = (term.match(/[\p{L}\p{N}\p{M}]+/gu) ?? []).map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  if (words.length === 0) return <>{text}</>;
  const parts = text.split(new RegExp(`(${words.join('|')})`, 'giu'));
  return <>{parts.map((part, i) => (i % 2 === 1 ? <mark key={i}>{part}</mark> : part))}</>;
}

function RenameField({ initial, onDone }: { initial: string; onDone: (name: string | null) => void }) {
  const [value, setValue] = useState(initial);
  const input = useRef<HTMLInputElement>(null);
  const done = useRef(false);
  useEffect(() => {
    input.current?.focus();
    input.current?.select();
  }, []);
  const finish = (name: string | null): void => {
    if (done.current) return;
    done.current = true;
    onDone(name);
  };
  return (
    <input
      ref={input}
      className="text-input rename-input"
      aria-label="Thread name"
      value={value}
      onChange={(e) => setValue(e.target.value)}
      onKeyDown={(e) => {
        if (e.key === 'Enter') finish(value);
        if (e.key === 'Escape') finish(null);
      }}
      onBlur={() => finish(value)}
    />
  );
}
