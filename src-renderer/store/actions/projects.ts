// The projects open in the window (the sidebar's switcher): opening one (it joins the others), showing one,
// closing one (it leaves the window; its threads go on on the server), Recent, the picker; and the shown
// project's thread lists and search. Every open project's threads are counted on the board.
import { WeftInstallableData } from '../../../src-preload/protocol';
import { RpcError } from '../../client/types';
import { threadsOfProject } from '../board';
import { projectKey, projectPlace } from '../project-key';
import { forgetProject, rememberProject, saveOpenProjects } from '../location';
import { emptyLists, setData, setUi } from '../store';
import { withoutKey } from '../thread-list';
import type { ActionContext } from './context';
import type { SettingsActions } from './settings';
import type { ThreadActions } from './threads';

export function createProjects(ctx: ActionContext, settings: SettingsActions, threads: ThreadActions) {
  const { client, store, env, get, open, batcher, lists, syncLocation } = ctx;

  /**
   * Shows an open project (and then `threadId`, when given): its lists take the sidebar, the project shown
   * before keeps its live threads among the others'. What this window holds of threads, their states and
   * the requests waiting on the person stay as they are.
   */
  const showProject = (path: string, threadId: string | null = null): void => {
    // Shown again by the person: a refusal there offers the install again.
    const there = projectPlace(path).environment;
    if (there !== null && get().ui.installOfferDismissed.includes(there))
      setUi(store, (ui) => ({ installOfferDismissed: ui.installOfferDismissed.filter((e) => e !== there) }));
    if (get().data.cwd !== path) {
      // Another machine's providers are not this project's: none are shown until its own are read.
      const sameMachine = projectPlace(path).environment === projectPlace(get().data.cwd ?? '').environment;
      batcher.flush();
      store.setState((state) => {
        const { data, ui } = state;
        const kept = data.cwd !== null && ui.openProjects.includes(data.cwd) ? { [data.cwd]: data.live } : {};
        const elsewhere = withoutKey({ ...data.elsewhere, ...kept }, path);
        const live = data.elsewhere[path] ?? [];
        return {
          data: { ...data, cwd: path, live, archived: [], forks: {}, elsewhere },
          ui: {
            ...ui,
            activeThreadId: null,
            loadingThreadId: null,
            turnDiff: null,
            ...emptyLists(),
            projectPicker: false,
            settings: settings.defaults(),
            changed: [],
            ...(sameMachine ? {} : { providers: null }),
          },
        };
      });
      syncLocation();
      // The threads of the project left behind are let go unless something goes on there.
      open.tidy();
      void lists.refresh();
      // The project left behind keeps its first page and every thread of it that needs the person.
      void lists.refreshElsewhere();
      // New threads here start with this project's config (its trusted .weft/config.toml included).
      void settings.actions.reloadDefaults();
      if (!sameMachine) void settings.actions.refreshProviders();
    }
    if (threadId !== null) void threads.actions.selectThread(threadId);
  };

  const setOpenProjects = (openProjects: string[]): void => {
    saveOpenProjects(env.storage, openProjects);
    setUi(store, { openProjects });
  };

  /** Opens a project in this window (it joins the switcher, or is shown again) and shows it. */
  const openProject = (cwd: string): void => {
    const path = cwd.trim();
    if (path === '') return;
    const { ui } = get();
    setUi(store, { recentProjects: rememberProject(env.storage, ui.recentProjects, path), projectPicker: false });
    if (!ui.openProjects.includes(path)) setOpenProjects([...ui.openProjects, path]);
    showProject(path);
  };

  /**
   * Takes a project out of the window: its threads are let go (they go on on the server, and another
   * window or a later open finds them as they are), and the requests of its threads waiting here leave this
   * window's queue (the server keeps them for whoever attaches). Showing it, the next open project is shown.
   */
  const closeProject = (path: string): void => {
    const { data, ui } = get();
    if (!ui.openProjects.includes(path)) return;
    const remaining = ui.openProjects.filter((p) => p !== path);
    const ids = new Set(threadsOfProject(data, path).map((t) => t.id));
    if (data.cwd === path) {
      const next = remaining[0];
      if (next !== undefined) showProject(next);
      else {
        store.setState((state) => ({
          data: { ...state.data, cwd: null, live: [], archived: [], forks: {} },
          ui: { ...state.ui, activeThreadId: null, loadingThreadId: null, turnDiff: null, ...emptyLists() },
        }));
        syncLocation();
      }
    }
    setOpenProjects(remaining);
    store.setState((state) => {
      const elsewhere = withoutKey(state.data.elsewhere, path);
      const approvals = state.data.approvals.filter((r) => !ids.has(r.params.threadId));
      return { data: { ...state.data, elsewhere, approvals } };
    });
    open.release(ids);
  };

  /**
   * Weft was installed on `environment` from the notice of its dropped link: the link's state there is let go
   * (the next request starts the new Weft), and the window's lists and the thread shown are read again.
   */
  const environmentInstalled = (environment: string): void => {
    setData(store, (data) => (data.link?.environment === environment ? { ...data, link: null } : data));
    if (get().ui.installOffer?.offer.environment === environment) setUi(store, { installOffer: null });
    setUi(store, (ui) => ({ installOfferDismissed: ui.installOfferDismissed.filter((e) => e !== environment) }));
    void lists.refresh();
    void lists.refreshElsewhere();
    const { data, ui } = get();
    const active = ui.activeThreadId;
    if (active !== null && data.cwd !== null && projectPlace(data.cwd).environment === environment)
      void threads.showThread(active, true);
  };

  return {
    environmentInstalled,
    /**
     * The install offered after a refused request is put away, and not offered again for that environment
     * until the person shows a project there again.
     */
    dismissInstallOffer(): void {
      setUi(store, (ui) => ({
        installOffer: null,
        installOfferDismissed:
          ui.installOffer === null
            ? ui.installOfferDismissed
            : [...ui.installOfferDismissed, ui.installOffer.offer.environment],
      }));
    },
    openProject,

    showProject,

    closeProject,

    refreshLists: lists.refresh,

    /** Fetches the next page of a list (or of the search results) whose end came near. */
    loadMore: lists.loadMore,

    /** Removes a folder from Recent (nothing on disk changes). */
    forgetProject(cwd: string): void {
      setUi(store, (ui) => ({ recentProjects: forgetProject(env.storage, ui.recentProjects, cwd) }));
    },

    /**
     * Opens a folder typed in the browser, on this machine or on a configured environment (null: this
     * machine), once the server there says it is one; otherwise says why not and leaves Recent alone.
     * Returns the problem, or null when it opened.
     */
    async openTypedProject(path: string, environment: string | null = null): Promise<string | null> {
      return (await this.openTypedProjectOr(path, environment))?.message ?? null;
    },

    /**
     * `openTypedProject`, saying also when the environment needs this Weft installed (it has none, or one
     * that cannot serve this one): the app then offers to install it.
     */
    async openTypedProjectOr(
      path: string,
      environment: string | null = null,
    ): Promise<{ message: string; install: WeftInstallableData['weftInstall'] | null } | null> {
      const typed = path.trim();
      if (typed === '') return null;
      const on = environment === null ? '' : ` on ${environment}`;
      let checked;
      try {
        checked = await client.request('weft/fs/complete', {
          path: typed,
          ...(environment === null ? {} : { weftEnvironment: environment }),
        });
      } catch (error) {
        const data = error instanceof RpcError ? WeftInstallableData.safeParse(error.data) : null;
        return {
          message: `Could not check ${typed}${on}: ${error instanceof Error ? error.message : String(error)}`,
          install: data?.success === true ? data.data.weftInstall : null,
        };
      }
      const problem = (message: string) => ({ message, install: null });
      switch (checked.kind) {
        case 'folder':
          openProject(projectKey(environment, checked.resolved));
          return null;
        case 'missing':
          return problem(`${checked.resolved} does not exist${on}.`);
        case 'file':
          return problem(`${checked.resolved} is a file${on}, not a folder.`);
        case 'unreadable':
          return problem(`${checked.resolved} cannot be read${on}.`);
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
