// The project (the folder threads work in): opening one, Recent, the picker; and its thread lists and
// search in the sidebar.
import { forgetProject, rememberProject } from '../location';
import { emptyAppData } from '../state';
import { emptyLists, setUi } from '../store';
import type { ActionContext } from './context';
import type { SettingsActions } from './settings';
import type { ThreadActions } from './threads';

export function createProjects(ctx: ActionContext, settings: SettingsActions, threads: ThreadActions) {
  const { client, store, env, get, open, lists, syncLocation } = ctx;

  const openProject = (cwd: string): void => {
    const path = cwd.trim();
    if (path === '') return;
    const recentProjects = rememberProject(env.storage, get().ui.recentProjects, path);
    store.setState((state) => ({
      data: emptyAppData(path),
      ui: {
        ...state.ui,
        activeThreadId: null,
        ...emptyLists(),
        recentProjects,
        projectPicker: false,
        settings: settings.defaults(),
        changed: [],
      },
    }));
    syncLocation();
    // The threads of the project left behind are let go (none is shown now).
    open.tidy();
    void lists.refresh();
  };

  return {
    openProject,

    refreshLists: lists.refresh,

    /** Fetches the next page of a list (or of the search results) whose end came near. */
    loadMore: lists.loadMore,

    /** Removes a folder from Recent (nothing on disk changes). */
    forgetProject(cwd: string): void {
      setUi(store, (ui) => ({ recentProjects: forgetProject(env.storage, ui.recentProjects, cwd) }));
    },

    /**
     * Opens a folder typed in the browser once the server says it is one; otherwise says why not and
     * leaves Recent alone. Returns the problem, or null when it opened.
     */
    async openTypedProject(path: string): Promise<string | null> {
      const typed = path.trim();
      if (typed === '') return null;
      let checked;
      try {
        checked = await client.request('weft/fs/complete', { path: typed });
      } catch (error) {
        return `Could not check ${typed}: ${error instanceof Error ? error.message : String(error)}`;
      }
      switch (checked.kind) {
        case 'folder':
          openProject(checked.resolved);
          return null;
        case 'missing':
          return `${checked.resolved} does not exist.`;
        case 'file':
          return `${checked.resolved} is a file, not a folder.`;
        case 'unreadable':
          return `${checked.resolved} cannot be read.`;
      }
    },

    setProjectPicker(isOpen: boolean): void {
      setUi(store, { projectPicker: isOpen });
    },

    search: lists.search,

    moveSearchChoice(by: number): void {
      const { searchResults, searchChosen } = get().ui;
      if (searchResults === null || searchResults.length === 0) return;
      const next = Math.min(searchResults.length - 1, Math.max(0, searchChosen + by));
      if (next !== searchChosen) setUi(store, { searchChosen: next });
    },

    async openSearchResult(term: string): Promise<void> {
      // Enter right after typing: the search the box is waiting to send goes first.
      if (term !== get().ui.searchTerm) await lists.search(term);
      const { searchResults, searchChosen } = get().ui;
      const thread = searchResults?.[searchChosen];
      if (thread !== undefined) await threads.actions.selectThread(thread.id);
    },
  };
}
