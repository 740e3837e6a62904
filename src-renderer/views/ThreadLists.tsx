// The sidebar's thread lists: search results; or, under "Needs me", the threads that need the person in
// every open project, by project; or the shown project's pinned threads, its thread tree (forks under
// their parent) and its archived threads.
import { projectPlace } from '../store/project-key';
import { useEffect, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { baseName } from '../components/format';
import { Icon, Spinner } from '../components/Icon';
import { threadsNeedingYou, threadsOfProject } from '../store/board';
import { threadTree } from '../store/selectors';
import { useWeft } from '../store/app-context';
import { MoreThreads } from './MoreThreads';
import { NEXT_NEEDING_YOU } from './shortcuts';
import { ThreadRow } from './ThreadRow';

function useMinuteClock(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), 30_000);
    return () => window.clearInterval(timer);
  }, []);
  return now;
}

/** The threads that need the person, of every open project (the shown one first), each under its project. */
function NeedsMe({ now }: { now: number }) {
  const cwd = useWeft((s) => s.data.cwd);
  const projects = useWeft((s) => s.ui.openProjects);
  const order = [...projects.filter((p) => p === cwd), ...projects.filter((p) => p !== cwd)];
  // Selected as the store holds them (the same objects until they change), then grouped here.
  const needing = useWeft(useShallow((s) => threadsNeedingYou(s.data, order)));
  const lists = useWeft(useShallow((s) => order.map((project) => threadsOfProject(s.data, project))));
  const ids = needing.map((t) => t.id);
  const groups = lists.map((list) => list.filter((t) => ids.includes(t.id)));
  return (
    <nav className="threads" aria-label="Threads">
      {ids.length === 0 ? (
        <p className="empty-note">Nothing needs you now.</p>
      ) : (
        <p className="search-hint">{NEXT_NEEDING_YOU.hint} goes to the next one</p>
      )}
      {order.map((project, i) => {
        const threads = groups[i] ?? [];
        if (threads.length === 0) return null;
        const place = projectPlace(project);
        const on = place.environment === null ? '' : ` on ${place.environment}`;
        return (
          <div key={project} className="board-group">
            <div className="section-label" title={`${place.folder}${on}`}>
              {baseName(place.folder)}
              {place.environment !== null && <span className="project-env">{place.environment}</span>}
            </div>
            <ul className="thread-list" aria-label={`Needing you in ${baseName(place.folder)}${on}`}>
              {threads.map((thread) => (
                <ThreadRow
                  key={thread.id}
                  thread={thread}
                  depth={0}
                  archived={false}
                  now={now}
                  ofAnotherProject={project !== cwd}
                />
              ))}
            </ul>
          </div>
        );
      })}
    </nav>
  );
}

export function ThreadLists() {
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
  const needsMeOnly = useWeft((s) => s.ui.needsMeOnly);
  const [showArchived, setShowArchived] = useState(false);
  const pinned = live.filter((thread) => thread.weftPinned === true);
  const others = pinned.length === 0 ? live : live.filter((thread) => thread.weftPinned !== true);

  if (results === null && needsMeOnly) return <NeedsMe now={now} />;

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
