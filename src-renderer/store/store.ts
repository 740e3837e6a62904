// The zustand store: protocol-fed `data` (changed only through the reducers) and `ui` state (selection,
// pickers, connection, toasts). Thin by design: the controller does the talking, reducers do the math.
import { createStore } from 'zustand/vanilla';
import type { StoreApi } from 'zustand/vanilla';
import type {
  AskForApproval,
  ModelInfo,
  ReasoningEffort,
  SandboxMode,
  Thread,
  WeftInstallOffer,
  WeftProviderListResult,
} from '../../src-preload/protocol';
import type { ConnectionState } from '../client/types';
import { emptyAppData } from './state';
import type { AppData } from './state';

/** The pickers under the composer. null = the thread's (or config's) current value. */
export interface Settings {
  model: string | null;
  effort: ReasoningEffort | null;
  approvalPolicy: AskForApproval | null;
  sandbox: SandboxMode | null;
}

export type SettingKey = keyof Settings;

/** A section Settings can open at: its keys (providers) or the MCP servers. */
export type SettingsSection = 'providers' | 'mcp';

/** `info` goes by itself after a few seconds; `error` stays until dismissed. */
export type ToastKind = 'info' | 'error';

export interface Toast {
  id: number;
  message: string;
  kind: ToastKind;
}

export interface UiState {
  connection: ConnectionState;
  /** The remote environment the server relays to (`initialize`'s `weftEnvironment`); null: this machine. */
  environment: string | null;
  /** The thread shown; null = a new, not yet started thread. */
  activeThreadId: string | null;
  /** A thread whose turns are being fetched. */
  loadingThreadId: string | null;
  searchTerm: string;
  /** Results of the current search; null when the search box is empty. */
  searchResults: Thread[] | null;
  /** Where the search results go on; null when they are all shown. */
  searchCursor: SearchCursor | null;
  /** For results matched in their messages: a line of the matching text, by thread id. */
  searchSnippets: Record<string, string>;
  /** The result ↓ / ↑ point at and Enter opens (an index into `searchResults`). */
  searchChosen: number;
  listsLoaded: boolean;
  /** Where each thread list goes on (a `thread/list` cursor); null when the list is whole. */
  listCursors: { live: string | null; archived: string | null };
  /** The server is building a new thread index: the lists are partial until it says they are whole. */
  indexing: boolean;
  models: ModelInfo[];
  settings: Settings;
  /** Settings the person changed since the last turn started; only these are sent as overrides. */
  changed: SettingKey[];
  toasts: Toast[];
  /** The turn whose aggregated diff is open in a dialog. */
  turnDiff: { threadId: string; turnId: string } | null;
  recentProjects: string[];
  /** The projects open in the sidebar's switcher, in its order (the one shown among them). */
  openProjects: string[];
  /** The thread list shows only the threads that need the person, of every open project ("Needs me"). */
  needsMeOnly: boolean;
  /** The project picker is open. */
  projectPicker: boolean;
  /** The Settings dialog is open (on this section, when one was asked for). */
  settingsOpen: { section: SettingsSection | null } | null;
  /** Providers and whether each has a key; null until the server answered. */
  providers: WeftProviderListResult | null;
  /** Messages sent into a running turn that the conversation does not show yet (see `steering`). */
  steering: SteeringMessage[];
  /** Patch reviews closed with Esc, still waiting: the conversation offers to open them again (request ids). */
  reviewsSetAside: string[];
  /** Where the next new thread works: the project's folder, or a git worktree of its own. */
  newThreadPlace: NewThreadPlace;
  /**
   * A request for an environment was refused because its Weft is missing or cannot serve this one: the
   * install offered (with why), until it is done or dismissed; null: none.
   */
  installOffer: { offer: WeftInstallOffer; message: string } | null;
  /**
   * Environments whose install offer the person put away: not offered again by the next refused request
   * (the window's own list refreshes would bring it straight back), until they show a project there again.
   */
  installOfferDismissed: readonly string[];
}

/**
 * `worktree`: the new thread gets a git worktree; `carryChanges`: with the project's uncommitted changes;
 * `ways`: how many worktree threads the first message starts ("try N ways", 1 to 4; only with `worktree`).
 */
export interface NewThreadPlace {
  worktree: boolean;
  carryChanges: boolean;
  ways: number;
}

/** The most threads "try N ways" starts at once. */
export const MAX_WAYS = 4;

/** The next page of search results: of the live threads, or of the archived ones (null: their first). */
export interface SearchCursor {
  archived: boolean;
  cursor: string | null;
}

/**
 * A message added to a running turn, shown at once until the conversation holds it: the turn takes it at
 * its next model request. `before` counts the thread's user messages with this text when it was sent.
 */
export interface SteeringMessage {
  id: number;
  threadId: string;
  text: string;
  before: number;
}

export interface StoreState {
  data: AppData;
  ui: UiState;
}

export type AppStore = StoreApi<StoreState>;

export const emptySettings: Settings = { model: null, effort: null, approvalPolicy: null, sandbox: null };

/** The thread lists and search of no project yet: where a newly opened project starts too. */
export function emptyLists(): Pick<
  UiState,
  'searchTerm' | 'searchResults' | 'searchCursor' | 'searchSnippets' | 'searchChosen' | 'listsLoaded' | 'listCursors'
> {
  return {
    searchTerm: '',
    searchResults: null,
    searchCursor: null,
    searchSnippets: {},
    searchChosen: 0,
    listsLoaded: false,
    listCursors: { live: null, archived: null },
  };
}

export function initialUi(recentProjects: string[] = [], openProjects: string[] = []): UiState {
  return {
    connection: { phase: 'connecting' },
    environment: null,
    activeThreadId: null,
    loadingThreadId: null,
    ...emptyLists(),
    indexing: false,
    models: [],
    settings: emptySettings,
    changed: [],
    toasts: [],
    turnDiff: null,
    recentProjects,
    openProjects,
    needsMeOnly: false,
    projectPicker: false,
    settingsOpen: null,
    providers: null,
    installOffer: null,
    installOfferDismissed: [],
    steering: [],
    reviewsSetAside: [],
    newThreadPlace: { worktree: false, carryChanges: false, ways: 1 },
  };
}

/**
 * The store of a page showing `cwd` among the `openProjects` of its sidebar (the shown one is added when
 * missing): the other projects' lists start empty, to be listed once the connection is up.
 */
export function createAppStore(
  cwd: string | null,
  recentProjects: string[] = [],
  openProjects: string[] = [],
): AppStore {
  const open = cwd === null || openProjects.includes(cwd) ? openProjects : [...openProjects, cwd];
  const data = {
    ...emptyAppData(cwd),
    elsewhere: Object.fromEntries(open.filter((p) => p !== cwd).map((p) => [p, []])),
  };
  return createStore<StoreState>()(() => ({ data, ui: initialUi(recentProjects, open) }));
}

/** Applies `change` to the ui slice; keeps the state object when nothing changed. */
export function setUi(store: AppStore, change: Partial<UiState> | ((ui: UiState) => Partial<UiState>)): void {
  store.setState((state) => {
    const patch = typeof change === 'function' ? change(state.ui) : change;
    return { ui: { ...state.ui, ...patch } };
  });
}

export function setData(store: AppStore, reduce: (data: AppData) => AppData): void {
  store.setState((state) => {
    const data = reduce(state.data);
    return data === state.data ? state : { data };
  });
}
