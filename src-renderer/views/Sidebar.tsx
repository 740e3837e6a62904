// The sidebar: the open projects (the switcher), "New thread", search, the board's filter (All / Needs
// me), the thread lists, Automations and their inbox, Settings.
import { useEffect, useRef, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { Icon } from '../components/Icon';
import { threadsNeedingYou } from '../store/board';
import { useController, useWeft } from '../store/app-context';
import { ProjectSwitcher } from './ProjectSwitcher';
import { NEXT_NEEDING_YOU } from './shortcuts';
import { ThreadLists } from './ThreadLists';
import { openAutomations, useAutomationsUi } from '../store/automations-ui';
import { useInboxUnseen } from './automations/use-automations';

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

/**
 * All threads, or only those that need the person (in every open project), with how many do; its tooltip
 * names the shortcut to the next one.
 */
function BoardFilter() {
  const controller = useController();
  const needsMeOnly = useWeft((s) => s.ui.needsMeOnly);
  const count = useWeft(useShallow((s) => threadsNeedingYou(s.data, s.ui.openProjects).map((t) => t.id))).length;
  return (
    <div className="board-filter" role="group" aria-label="Which threads">
      <button type="button" aria-pressed={!needsMeOnly} onClick={() => controller.setNeedsMeOnly(false)}>
        All
      </button>
      <button
        type="button"
        aria-pressed={needsMeOnly}
        aria-keyshortcuts={NEXT_NEEDING_YOU.aria}
        title={`Only the threads that need you, in every open project (${NEXT_NEEDING_YOU.hint} goes to the next one)`}
        onClick={() => controller.setNeedsMeOnly(true)}
      >
        Needs me
        <span className={`count ${count > 0 ? 'is-some' : ''}`}>{count}</span>
      </button>
    </div>
  );
}

/** The Automations screen and its review inbox, with how many runs wait unread. */
function AutomationsLinks() {
  const screen = useAutomationsUi((s) => s.screen);
  const unseen = useInboxUnseen();
  return (
    <>
      <button
        type="button"
        className="sidebar-settings"
        aria-current={screen === 'automations' ? 'page' : undefined}
        onClick={() => openAutomations('automations')}
      >
        <Icon name="clock" size={14} />
        Automations
      </button>
      <button
        type="button"
        className="sidebar-settings"
        aria-current={screen === 'inbox' ? 'page' : undefined}
        onClick={() => openAutomations('inbox')}
      >
        <Icon name="list" size={14} />
        Inbox
        {unseen !== null && unseen > 0 && (
          <span className="count is-some" aria-label={`${unseen} unread`}>
            {unseen}
          </span>
        )}
      </button>
    </>
  );
}

export function Sidebar({ onHide }: { onHide: () => void }) {
  const controller = useController();
  return (
    <aside className="sidebar">
      <ProjectSwitcher onHide={onHide} />
      <button type="button" className="new-thread" onClick={() => controller.newThread()}>
        <Icon name="plus" size={14} />
        New thread
      </button>
      <SearchBox />
      <BoardFilter />
      <ThreadLists />
      <div className="sidebar-foot">
        <AutomationsLinks />
        <button type="button" className="sidebar-settings" onClick={() => controller.openSettings()}>
          <Icon name="settings" size={14} />
          Settings
        </button>
      </div>
    </aside>
  );
}
