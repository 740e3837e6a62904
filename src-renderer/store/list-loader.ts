// The sidebar's lists, from `thread/list` a page at a time: the project's live and archived threads, the
// next page when the end of a list comes near (`loadMore`), and search results. Threads of the project's
// forks that work in their own folder (a git worktree or a copy, see `weft/forks/list`) belong to the
// project: every list and every search names the project's folder and those folders (`cwd` takes a list).
import type { Thread, ThreadListParams, WeftFork } from '../../src-preload/protocol';
import type { WeftClient } from '../client/types';
import { folderParams, projectPlace } from './project-key';
import type { AppData } from './state';
import { setData, setUi } from './store';
import type { AppStore, SearchCursor } from './store';
import { appendList, byUpdatedDesc, listed, setElsewhere, setList } from './thread-list';

/** Threads per `thread/list` request (the server's maximum). */
export const LIST_PAGE = 100;

export type Attempt = <T>(what: string, run: () => Promise<T>) => Promise<T | undefined>;

interface Page {
  data: Thread[];
  nextCursor: string | null;
  indexing: boolean;
  /** A search's matching text by thread id (`weftSnippets`). */
  snippets: Record<string, string>;
}

/** The folders whose threads the project lists: its own, then its forks' (one string when alone). */
export function projectFolders(cwd: string, forks: AppData['forks']): string | string[] {
  const folders = [...new Set([cwd, ...Object.values(forks).map((fork) => fork.cwd)])];
  return folders.length === 1 ? cwd : folders;
}

/**
 * What `thread/list` names of a project (its key, see `project-key.ts`): its folders (its own and its forks'
 * with files, which are on the same machine), on its environment.
 */
export function projectScope(key: string, forks: AppData['forks']): Pick<ThreadListParams, 'cwd' | 'weftEnvironment'> {
  const { environment, folder } = projectPlace(key);
  const cwd = projectFolders(folder, forks);
  return environment === null ? { cwd } : { cwd, weftEnvironment: environment };
}

export function createListLoader(client: WeftClient, store: AppStore, attempt: Attempt) {
  let searchSeq = 0;
  /** Lists whose next page is being fetched (one at a time each). */
  const loadingMore = new Set<'live' | 'archived' | 'results'>();
  const get = () => store.getState();

  const page = async (what: string, params: ThreadListParams, cursor: string | null): Promise<Page | undefined> => {
    const result = await attempt(what, () =>
      client.request('thread/list', { ...params, limit: LIST_PAGE, ...(cursor === null ? {} : { cursor }) }),
    );
    if (result === undefined) return undefined;
    return {
      data: result.data,
      nextCursor: result.nextCursor,
      indexing: result.weftIndexing === true,
      snippets: result.weftSnippets ?? {},
    };
  };

  /** Pages from the first until at least `atLeast` threads came (or the list ended). */
  const pages = async (what: string, params: ThreadListParams, atLeast: number): Promise<Page | undefined> => {
    const first = await page(what, params, null);
    if (first === undefined) return undefined;
    const all = { ...first, data: [...first.data] };
    while (all.nextCursor !== null && all.data.length < atLeast) {
      const next = await page(what, params, all.nextCursor);
      if (next === undefined) break;
      all.data.push(...next.data);
      all.nextCursor = next.nextCursor;
    }
    return all;
  };

  /** The project's forks with files, by thread id (none when they cannot be listed). */
  const listForks = async (cwd: string): Promise<Record<string, WeftFork>> => {
    const result = await attempt('Could not list the forks', () =>
      client.request('weft/forks/list', folderParams(cwd)),
    );
    return Object.fromEntries((result?.data ?? []).map((fork) => [fork.threadId, fork]));
  };

  /** Lists both lists again from their start, as far down as each was loaded. */
  const refresh = async (): Promise<void> => {
    const cwd = get().data.cwd;
    if (cwd === null) return;
    // The threads listed before anything was asked: one added later may be newer than the server's lists.
    const before = new Set([...get().data.live, ...get().data.archived].map((t) => t.id));
    // Forks into a worktree or a copy work elsewhere but belong to this project's tree.
    const forks = await listForks(cwd);
    const scope = projectScope(cwd, forks);
    const shown = get().data;
    const [live, archived] = await Promise.all([
      pages('Could not list the threads', { ...scope, archived: false, sortKey: 'updated_at' }, shown.live.length),
      pages(
        'Could not list the archived threads',
        { ...scope, archived: true, sortKey: 'updated_at' },
        shown.archived.length,
      ),
    ]);
    if (get().data.cwd !== cwd) return;
    setData(store, (data) => {
      // A thread that came into the lists while they were being read (started meanwhile, its answer first)
      // stays: the lists the server sent were taken before it.
      const listedNow = new Set([...(live?.data ?? []), ...(archived?.data ?? [])].map((t) => t.id));
      const withMeanwhile = (which: 'live' | 'archived', sent: readonly Thread[]): readonly Thread[] => {
        const meanwhile = data[which].filter((t) => !before.has(t.id) && !listedNow.has(t.id));
        return meanwhile.length === 0 ? sent : byUpdatedDesc([...sent, ...meanwhile]);
      };
      let next: AppData = { ...data, forks };
      if (live !== undefined) next = setList(next, 'live', withMeanwhile('live', live.data));
      if (archived !== undefined) next = setList(next, 'archived', withMeanwhile('archived', archived.data));
      return next;
    });
    setUi(store, (ui) => ({
      listsLoaded: true,
      indexing: live?.indexing === true || archived?.indexing === true,
      listCursors: {
        live: live === undefined ? ui.listCursors.live : live.nextCursor,
        archived: archived === undefined ? ui.listCursors.archived : archived.nextCursor,
      },
    }));
  };

  /**
   * The first page of each other open project's live threads, with every one of its threads that needs the
   * person however old (`weftNeedsYou`, from the server's index): the board counts them and "Needs me" and
   * the next-needing-you key reach them; the project's own lists come when it is shown. A project closed
   * meanwhile is left out.
   */
  const refreshElsewhere = async (): Promise<void> => {
    await Promise.all(
      Object.keys(get().data.elsewhere).map(async (project) => {
        const [first, needing] = await Promise.all([
          page(
            `Could not list the threads of ${project}`,
            { ...projectScope(project, {}), archived: false, sortKey: 'updated_at' },
            null,
          ),
          page(
            `Could not list the threads of ${project} that need you`,
            { ...projectScope(project, {}), archived: false, sortKey: 'updated_at', weftNeedsYou: true },
            null,
          ),
        ]);
        if (first === undefined) return;
        const onFirst = new Set(first.data.map((t) => t.id));
        const older = (needing?.data ?? []).filter((t) => !onFirst.has(t.id));
        const threads = older.length === 0 ? first.data : byUpdatedDesc([...first.data, ...older]);
        setData(store, (data) => setElsewhere(data, project, threads));
      }),
    );
  };

  /**
   * The next page of a list, appended to it (nothing when it is whole or a page is on its way). When the
   * list is listed again from its start while the page is on its way (a new index became whole), that page
   * belongs to the old list and is dropped, and the page after the new list's end is asked for instead: the
   * end of the list is still in view, and nothing else would ask again.
   */
  const loadMoreOf = async (which: 'live' | 'archived'): Promise<void> => {
    if (loadingMore.has(which)) return;
    loadingMore.add(which);
    try {
      for (;;) {
        const { data, ui } = get();
        const cursor = ui.listCursors[which];
        if (data.cwd === null || cursor === null) return;
        const cwd = data.cwd;
        const next = await page(
          which === 'live' ? 'Could not list more threads' : 'Could not list more archived threads',
          { ...projectScope(cwd, data.forks), archived: which === 'archived', sortKey: 'updated_at' },
          cursor,
        );
        if (next === undefined || get().data.cwd !== cwd) return;
        if (get().ui.listCursors[which] !== cursor) continue;
        setData(store, (current) => appendList(current, which, next.data));
        setUi(store, (now) => ({ listCursors: { ...now.listCursors, [which]: next.nextCursor } }));
        return;
      }
    } finally {
      loadingMore.delete(which);
    }
  };

  /**
   * One page of search results where `cursor` says (live threads first, then archived ones), with what
   * comes after it: the archived threads' first page is fetched at once when the live ones end here.
   */
  const searchPage = async (
    cwd: string,
    term: string,
    cursor: SearchCursor,
  ): Promise<{ data: Thread[]; snippets: Record<string, string>; next: SearchCursor | null } | undefined> => {
    const scope = projectScope(cwd, get().data.forks);
    const params = (archived: boolean): ThreadListParams => ({ ...scope, searchTerm: term, archived });
    const found = await page('Search failed', params(cursor.archived), cursor.cursor);
    if (found === undefined) return undefined;
    const { snippets } = found;
    if (found.nextCursor !== null)
      return { data: found.data, snippets, next: { archived: cursor.archived, cursor: found.nextCursor } };
    if (cursor.archived) return { data: found.data, snippets, next: null };
    const archived = await page('Search failed', params(true), null);
    if (archived === undefined) return { data: found.data, snippets, next: null };
    return {
      data: [...found.data, ...archived.data],
      snippets: { ...snippets, ...archived.snippets },
      next: archived.nextCursor === null ? null : { archived: true, cursor: archived.nextCursor },
    };
  };

  const search = async (term: string): Promise<void> => {
    const seq = ++searchSeq;
    setUi(store, { searchTerm: term });
    const cwd = get().data.cwd;
    if (term.trim() === '' || cwd === null) {
      setUi(store, { searchResults: null, searchCursor: null, searchSnippets: {}, searchChosen: 0 });
      return;
    }
    const found = await searchPage(cwd, term.trim(), { archived: false, cursor: null });
    if (seq !== searchSeq) return;
    setUi(store, {
      searchResults: (found?.data ?? []).map(listed),
      searchCursor: found?.next ?? null,
      searchSnippets: found?.snippets ?? {},
      searchChosen: 0,
    });
  };

  /** The next page of search results, appended (nothing when they are all shown). */
  const loadMoreResults = async (): Promise<void> => {
    const { data, ui } = get();
    const cursor = ui.searchCursor;
    if (data.cwd === null || cursor === null || ui.searchResults === null || loadingMore.has('results')) return;
    const seq = searchSeq;
    loadingMore.add('results');
    try {
      const found = await searchPage(data.cwd, ui.searchTerm.trim(), cursor);
      if (found === undefined || seq !== searchSeq) return;
      setUi(store, (now) => {
        const shown = new Set((now.searchResults ?? []).map((t) => t.id));
        const added = found.data.filter((t) => !shown.has(t.id)).map(listed);
        return {
          searchResults: [...(now.searchResults ?? []), ...added],
          searchCursor: found.next,
          searchSnippets: { ...now.searchSnippets, ...found.snippets },
        };
      });
    } finally {
      loadingMore.delete('results');
    }
  };

  return {
    listForks,
    refresh,
    refreshElsewhere,
    search,
    /** Fetches the next page of a list whose end came near. */
    loadMore(which: 'live' | 'archived' | 'results'): Promise<void> {
      return which === 'results' ? loadMoreResults() : loadMoreOf(which);
    },
  };
}
