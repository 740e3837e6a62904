// The sidebar: the project, "New thread", search, the pinned threads, the thread tree (forks under their
// parent), and the archived threads.
import { useEffect, useRef, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { baseName } from '../components/format';
import { Icon, Spinner } from '../components/Icon';
import { threadTree } from '../store/selectors';
import { useApp, useController, useWeft } from '../store/app-context';
import { MoreThreads } from './MoreThreads';
import { ThreadRow } from './ThreadRow';

/** How the platform writes the Ctrl/Cmd modifier in shortcut hints. */
export const SHORTCUT_MOD = /Mac|iP/.test(navigator.platform) ? '⌘' : 'Ctrl+';

function useMinuteClock(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), 30_000);
    return () => window.clearInterval(timer);
  }, []);
  return now;
}

function SearchBox() {
  const controller = useController();
  const term = useWeft((s) => s.ui.searchTerm);
  const [value, setValue] = useState(term);
  // The search term changed elsewhere (cleared, or set by another window): the box shows it.
  const [shownTerm, setShownTerm] = useState(term);
  if (shownTerm !== term) {
    setShownTerm(term);
    setValue(term);
  }
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (value === term) return;
    const timer = window.setTimeout(() => void controller.search(value), 200);
    return () => window.clearTimeout(timer);
  }, [value, term, controller]);
  useEffect(() => {
    const onKey = (event: KeyboardEvent): void => {
      if ((event.metaKey || event.ctrlKey) && event.key.toLowerCase() === 'k') {
        event.preventDefault();
        input.current?.focus();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  return (
    <div className="search">
      <Icon name="search" size={14} />
      <input
        ref={input}
        type="search"
        aria-label="Search threads"
        placeholder="Search threads"
        value={value}
        onChange={(e) => setValue(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Escape' && value !== '') {
            e.preventDefault();
            setValue('');
          } else if (e.key === 'Enter' && value.trim() !== '') {
            e.preventDefault();
            void controller.openSearchResult(value);
          } else if ((e.key === 'ArrowDown' || e.key === 'ArrowUp') && value.trim() !== '') {
            e.preventDefault();
            controller.moveSearchChoice(e.key === 'ArrowDown' ? 1 : -1);
          }
        }}
      />
      <kbd className="shortcut" aria-hidden="true">
        {/Mac|iP/.test(navigator.platform) ? '⌘K' : 'Ctrl K'}
      </kbd>
    </div>
  );
}

function ThreadLists() {
  const now = useMinuteClock();
  const live = useWeft((s) => s.data.live);
  const archived = useWeft((s) => s.data.archived);
  const results = useWeft((s) => s.ui.searchResults);
  const snippets = useWeft((s) => s.ui.searchSnippets);
  const chosen = useWeft((s) => s.ui.searchChosen);
  const moreResults = useWeft((s) => s.ui.searchCursor !== null);
  const moreLive = useWeft((s) => s.ui.listCursors.live !== null);
  const moreArchived = useWeft((s) => s.ui.listCursors.archived !== null);
  const term = useWeft((s) => s.ui.searchTerm);
  const loaded = useWeft((s) => s.ui.listsLoaded);
  const indexing = useWeft((s) => s.ui.indexing);
  const archivedIds = useWeft(useShallow((s) => s.data.archived.map((t) => t.id)));
  const [showArchived, setShowArchived] = useState(false);
  const pinned = live.filter((thread) => thread.weftPinned === true);
  const others = pinned.length === 0 ? live : live.filter((thread) => thread.weftPinned !== true);

  if (results !== null) {
    return (
      <nav className="threads" aria-label="Threads">
        <div className="section-label">Results for “{term}”</div>
        {results.length > 0 && <p className="search-hint">↓ ↑ to choose, Enter to open</p>}
        {results.length === 0 ? (
          <p className="empty-note">No threads match.</p>
        ) : (
          <ul className="thread-list">
            {results.map((thread, i) => (
              <ThreadRow
                key={thread.id}
                thread={thread}
                depth={0}
                archived={archivedIds.includes(thread.id)}
                now={now}
                search={{ term, snippet: snippets[thread.id] ?? null, selected: i === chosen }}
              />
            ))}
            {moreResults && <MoreThreads list="results" shown={results.length} />}
          </ul>
        )}
      </nav>
    );
  }

  return (
    <nav className="threads" aria-label="Threads">
      {loaded && pinned.length > 0 && (
        <>
          <div className="section-label">Pinned</div>
          <ul className="thread-list" aria-label="Pinned threads">
            {pinned.map((thread) => (
              <ThreadRow key={thread.id} thread={thread} depth={0} archived={false} now={now} />
            ))}
          </ul>
        </>
      )}
      <div className="section-label">Threads</div>
      {loaded && indexing && (
        <div className="empty-note" role="status">
          <Spinner size={12} /> Indexing threads…
        </div>
      )}
      {!loaded ? (
        <div className="empty-note">
          <Spinner size={12} /> Loading…
        </div>
      ) : live.length === 0 && indexing ? null : live.length === 0 ? (
        <p className="empty-note">
          {archived.length > 0 ? 'No active threads.' : 'No threads yet. Start one with a message.'}
        </p>
      ) : (
        <ul className="thread-list">
          {threadTree(others).map((node) => (
            <ThreadRow key={node.thread.id} thread={node.thread} depth={node.depth} archived={false} now={now} />
          ))}
          {moreLive && <MoreThreads list="live" shown={live.length} />}
        </ul>
      )}
      {archived.length > 0 && (
        <div className="archived">
          <button
            type="button"
            className="section-toggle"
            aria-expanded={showArchived}
            onClick={() => setShowArchived(!showArchived)}
          >
            <Icon name={showArchived ? 'chevronDown' : 'chevronRight'} size={12} />
            Archived
            <span className="count">
              {archived.length}
              {moreArchived ? '+' : ''}
            </span>
          </button>
          {showArchived && (
            <ul className="thread-list" aria-label="Archived threads">
              {archived.map((thread) => (
                <ThreadRow key={thread.id} thread={thread} depth={0} archived now={now} />
              ))}
              {moreArchived && <MoreThreads list="archived" shown={archived.length} />}
            </ul>
          )}
        </div>
      )}
    </nav>
  );
}

export function Sidebar({ onHide }: { onHide: () => void }) {
  const { controller, desktop } = useApp();
  const cwd = useWeft((s) => s.data.cwd);
  const openFolder = async (): Promise<void> => {
    if (desktop === null) controller.setProjectPicker(true);
    else await desktop.openProject(null);
  };
  return (
    <aside className="sidebar">
      <div className="sidebar-head">
        <div className="project" title={cwd ?? undefined}>
          <span className="project-icon" aria-hidden="true">
            <Icon name="folder" size={14} />
          </span>
          <span className="project-text">
            <span className="project-name">{cwd === null ? 'No project' : baseName(cwd)}</span>
            {/* The path is ellipsized from the left (rtl); the marks keep its slashes in place. */}
            <span className="project-path">{cwd === null ? '' : `\u200E${cwd}\u200E`}</span>
          </span>
        </div>
        <button
          type="button"
          className="icon-button"
          aria-label="Open folder"
          title="Open folder"
          onClick={() => void openFolder()}
        >
          <Icon name="folder" />
        </button>
        <button
          type="button"
          className="icon-button"
          aria-label="Hide sidebar"
          aria-keyshortcuts="Control+B"
          title={`Hide sidebar (${SHORTCUT_MOD}B)`}
          onClick={onHide}
        >
          <Icon name="sidebar" />
        </button>
      </div>
      <button type="button" className="new-thread" onClick={() => controller.newThread()}>
        <Icon name="plus" size={14} />
        New thread
      </button>
      <SearchBox />
      <ThreadLists />
      <div className="sidebar-foot">
        <button type="button" className="sidebar-settings" onClick={() => controller.openSettings()}>
          <Icon name="settings" size={14} />
          Settings
        </button>
      </div>
    </aside>
  );
}
