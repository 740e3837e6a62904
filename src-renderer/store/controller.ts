// The app's actions: everything the UI asks of Weft goes through here, and everything Weft says comes in
// here (notifications batched per frame into the reducers, server requests into the approval queue).
import type {
  AskForApproval,
  CommandExecutionApprovalDecision,
  FileChangeRequestApprovalResult,
  ReasoningEffort,
  SandboxMode,
  ServerNotification,
  Thread,
  ThreadStartResult,
  UserInput,
} from '../../src-preload/protocol';
import {
  AskForApproval as AskForApprovalSchema,
  ReasoningEffort as ReasoningEffortSchema,
  SandboxMode as SandboxModeSchema,
} from '../../src-preload/protocol';
import type { IncomingServerRequest, WeftClient } from '../client/types';
import { addServerRequest, clearServerRequests, removeServerRequest } from './approvals';
import { conversationFromThread, keepingOlderTurns, withOlderTurns } from './conversation';
import { createFrameBatcher } from './frame-batcher';
import { createListLoader } from './list-loader';
import type { FrameScheduler } from './frame-batcher';
import { forgetProject, readLocation, rememberProject, withLocation } from './location';
import type { KeyValueStorage } from './location';
import { createOpenThreads } from './open-threads';
import { reduceNotifications } from './reduce';
import { isArchived, runningTurn, sandboxModeOf, sandboxPolicyOf, userMessagesWith } from './selectors';
import { emptyAppData } from './state';
import { emptySettings, setData, setUi } from './store';
import type { AppStore, SettingKey, Settings, SettingsSection, ToastKind } from './store';
import { listed, markUnarchived, upsertThread } from './thread-list';
import { newDraft } from './draft';
import { turnReview } from './turn-review';

export interface ControllerEnv {
  scheduler: FrameScheduler;
  /** The page address now. */
  href(): string;
  /** Replaces the page address without reloading. */
  replaceHref(href: string): void;
  storage: KeyValueStorage | null;
}

/** Turns loaded per "Show earlier turns". */
const OLDER_TURNS_PAGE = 50;

export type Controller = ReturnType<typeof createController>;

export function createController(client: WeftClient, store: AppStore, env: ControllerEnv) {
  const disposers: (() => void)[] = [];
  const open = createOpenThreads(client, store);
  const batcher = createFrameBatcher<ServerNotification>(env.scheduler, (batch) => {
    setData(store, (data) => reduceNotifications(data, batch));
    // A thread left while a turn ran is let go once the turn has ended and nothing waits on the person.
    open.heard(batch);
    open.tidy();
  });
  let toastId = 0;
  let steeringId = 0;
  let selectSeq = 0;
  /** Threads whose older turns are being loaded (one page at a time). */
  const loadingOlder = new Set<string>();
  let defaults: Settings = emptySettings;

  const get = () => store.getState();

  const toast = (message: string, kind: ToastKind = 'error'): void => {
    toastId += 1;
    const id = toastId;
    setUi(store, (ui) => ({ toasts: [...ui.toasts, { id, message, kind }].slice(-3) }));
  };

  const attempt = async <T>(what: string, run: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await run();
    } catch (error) {
      toast(`${what}: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    }
  };

  const syncLocation = (): void => {
    const { data, ui } = get();
    const next = withLocation(env.href(), { cwd: data.cwd, threadId: ui.activeThreadId });
    if (next !== env.href()) env.replaceHref(next);
  };

  const settingsFrom = (
    result: Partial<
      Pick<ThreadStartResult, 'model' | 'approvalPolicy' | 'weftApprovalPolicy' | 'sandbox' | 'reasoningEffort'>
    >,
  ): Settings => ({
    model: result.model ?? get().ui.settings.model,
    effort: ReasoningEffortSchema.safeParse(result.reasoningEffort).data ?? get().ui.settings.effort,
    approvalPolicy:
      result.weftApprovalPolicy ??
      AskForApprovalSchema.safeParse(result.approvalPolicy).data ??
      get().ui.settings.approvalPolicy,
    sandbox: result.sandbox === undefined ? get().ui.settings.sandbox : sandboxModeOf(result.sandbox),
  });

  const lists = createListLoader(client, store, attempt);
  const refreshLists = lists.refresh;

  const refreshProviders = async (): Promise<void> => {
    const providers = await client.request('weft/provider/list', { cwd: get().data.cwd }).catch(() => null);
    if (providers !== null) setUi(store, { providers });
  };

  const loadDefaults = async (): Promise<void> => {
    const models = await attempt('Could not list the models', () => client.request('model/list', {}));
    if (models !== undefined) setUi(store, { models: models.data });
    const config = await client.request('config/read', { cwd: get().data.cwd }).catch(() => undefined);
    const value = (key: string): unknown => config?.config[key];
    const model = value('model');
    const effort = ReasoningEffortSchema.safeParse(value('model_reasoning_effort'));
    const policy = AskForApprovalSchema.safeParse(value('approval_policy'));
    const sandbox = SandboxModeSchema.safeParse(value('sandbox_mode'));
    const fallbackModel = models?.data.find((m) => m.isDefault === true)?.id ?? models?.data[0]?.id ?? null;
    defaults = {
      model: typeof model === 'string' ? model : fallbackModel,
      effort: effort.success ? effort.data : null,
      approvalPolicy: policy.success ? policy.data : null,
      sandbox: sandbox.success ? sandbox.data : null,
    };
    if (get().ui.activeThreadId === null && get().ui.changed.length === 0) setUi(store, { settings: defaults });
  };

  /**
   * Shows a thread: one this window still holds (subscribed, its conversation live) at once; any other
   * is resumed (which subscribes to it) or, archived, read. `reload`: resume it whatever is held (after a
   * reconnect). The thread shown before is let go unless something goes on there (see open-threads.ts).
   */
  const showThread = async (threadId: string, reload: boolean): Promise<void> => {
    const seq = ++selectSeq;
    const before = get().ui.activeThreadId;
    setUi(store, { activeThreadId: threadId, loadingThreadId: threadId, turnDiff: null });
    syncLocation();
    open.shown(threadId);
    open.tidy();
    if (!reload && open.holds(threadId) && get().data.conversations[threadId] !== undefined) {
      const kept = open.settingsOf(threadId);
      setUi(store, (ui) =>
        before === threadId
          ? { loadingThreadId: null }
          : { loadingThreadId: null, settings: kept ?? ui.settings, changed: [] },
      );
      return;
    }
    let thread: Thread | undefined;
    let resumedCursor: string | null = null;
    let settings: Settings | null = null;
    if (isArchived(get().data, threadId)) {
      const read = await attempt('Could not open the thread', () =>
        client.request('thread/read', { threadId, includeTurns: true }),
      );
      thread = read?.thread;
    } else {
      const resumed = await attempt('Could not open the thread', () => client.request('thread/resume', { threadId }));
      thread = resumed?.thread;
      resumedCursor = resumed?.weftOlderTurnsCursor ?? null;
      if (resumed !== undefined) {
        settings = settingsFrom(resumed);
        open.hold(threadId, settings);
      }
    }
    if (thread === undefined) {
      if (seq === selectSeq) setUi(store, { loadingThreadId: null });
      return;
    }
    const snapshot = thread;
    const olderTurnsCursor = resumedCursor ?? null;
    batcher.flush();
    // The snapshot is the thread as it is now: what this window kept of it was not followed meanwhile.
    setData(store, (data) => {
      const previous = data.conversations[threadId];
      const conversation = keepingOlderTurns(
        { ...conversationFromThread(snapshot, olderTurnsCursor), tokenUsage: previous?.tokenUsage ?? null },
        previous,
      );
      const withThread = upsertThread(newDraft(), data, listed(snapshot));
      return { ...withThread, conversations: { ...withThread.conversations, [threadId]: conversation } };
    });
    // Another thread was chosen meanwhile: this one is let go again (unless busy).
    open.tidy();
    if (seq !== selectSeq) return;
    setUi(store, (ui) => ({ loadingThreadId: null, settings: settings ?? ui.settings, changed: [] }));
  };

  /**
   * A thread whose turns came back (Redo of an undo): shown, it is read again now; held in the
   * background, what this window kept of it is dropped, so showing it reads it again.
   */
  const rereadThread = (threadId: string): void => {
    if (get().ui.activeThreadId === threadId) {
      void showThread(threadId, true);
      return;
    }
    if (get().data.conversations[threadId] === undefined) return;
    setData(store, (data) => ({
      ...data,
      conversations: Object.fromEntries(Object.entries(data.conversations).filter(([id]) => id !== threadId)),
    }));
  };

  /** Shows a thread this window just started (the server subscribed it to it); returns its id. */
  const showStarted = (started: ThreadStartResult): string => {
    const id = started.thread.id;
    const settings = { ...settingsFrom(started), effort: get().ui.settings.effort };
    open.hold(id, settings);
    setData(store, (d) => {
      const next = upsertThread(newDraft(), d, started.thread);
      return next.conversations[id] !== undefined
        ? next
        : { ...next, conversations: { ...next.conversations, [id]: conversationFromThread(started.thread) } };
    });
    selectSeq += 1;
    setUi(store, { activeThreadId: id, loadingThreadId: null, settings });
    syncLocation();
    open.shown(id);
    open.tidy();
    return id;
  };

  const onServerRequest = (request: IncomingServerRequest): void => {
    batcher.flush();
    setData(store, (data) => addServerRequest(data, request));
  };

  const overrides = (keys: readonly SettingKey[]) => {
    const { settings } = get().ui;
    const has = (key: SettingKey): boolean => keys.includes(key);
    return {
      model: has('model') && settings.model !== null ? settings.model : undefined,
      effort: has('effort') && settings.effort !== null ? settings.effort : undefined,
      approvalPolicy: has('approvalPolicy') && settings.approvalPolicy !== null ? settings.approvalPolicy : undefined,
      sandbox: has('sandbox') && settings.sandbox !== null ? settings.sandbox : undefined,
    };
  };

  const actions = {
    start(): void {
      disposers.push(
        client.onNotification((notification) => {
          // A new thread index is whole now: the lists taken while it was built were partial.
          if (notification.method === 'weft/threads/indexed') void refreshLists();
          if (notification.method === 'weft/thread/turnsRestored') rereadThread(notification.params.threadId);
          batcher.push(notification);
        }),
      );
      disposers.push(client.onServerRequest(onServerRequest));
      disposers.push(client.onConnection((connection) => setUi(store, { connection })));
      disposers.push(
        client.onReady(({ reconnect }) => {
          if (reconnect) {
            // The server let go of everything the old connection held: shown threads are resumed anew.
            open.reset();
            setData(store, clearServerRequests);
          }
          void refreshLists();
          if (!reconnect) void loadDefaults();
          void refreshProviders();
          const active = get().ui.activeThreadId ?? readLocation(env.href()).threadId;
          if (active !== null && get().data.cwd !== null) void showThread(active, true);
        }),
      );
    },

    dispose(): void {
      batcher.dispose();
      for (const dispose of disposers.splice(0)) dispose();
    },

    openProject(cwd: string): void {
      const path = cwd.trim();
      if (path === '') return;
      const recentProjects = rememberProject(env.storage, get().ui.recentProjects, path);
      store.setState((state) => ({
        data: emptyAppData(path),
        ui: {
          ...state.ui,
          activeThreadId: null,
          searchTerm: '',
          searchResults: null,
          searchCursor: null,
          searchSnippets: {},
          searchChosen: 0,
          listsLoaded: false,
          listCursors: { live: null, archived: null },
          recentProjects,
          projectPicker: false,
          settings: defaults,
          changed: [],
        },
      }));
      syncLocation();
      // The threads of the project left behind are let go (none is shown now).
      open.tidy();
      void refreshLists();
    },

    refreshLists,

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
          actions.openProject(checked.resolved);
          return null;
        case 'missing':
          return `${checked.resolved} does not exist.`;
        case 'file':
          return `${checked.resolved} is a file, not a folder.`;
        case 'unreadable':
          return `${checked.resolved} cannot be read.`;
      }
    },

    selectThread(threadId: string): Promise<void> {
      return showThread(threadId, false);
    },

    /** Loads the page of turns before the first one shown (a long thread opens on its newest turns). */
    async loadOlderTurns(threadId: string): Promise<void> {
      const cursor = get().data.conversations[threadId]?.olderTurnsCursor ?? null;
      if (cursor === null || loadingOlder.has(threadId)) return;
      loadingOlder.add(threadId);
      try {
        const page = await attempt('Could not load the earlier turns', () =>
          client.request('thread/turns/list', { threadId, cursor, limit: OLDER_TURNS_PAGE }),
        );
        if (page === undefined) return;
        batcher.flush();
        setData(store, (data) => {
          const conversation = data.conversations[threadId];
          // Read again meanwhile (another page, a reload): this page belongs to a cursor no longer shown.
          if (conversation === undefined || conversation.olderTurnsCursor !== cursor) return data;
          return {
            ...data,
            conversations: {
              ...data.conversations,
              [threadId]: withOlderTurns(conversation, page.data, page.nextCursor),
            },
          };
        });
      } finally {
        loadingOlder.delete(threadId);
      }
    },

    newThread(): void {
      selectSeq += 1;
      setUi(store, { activeThreadId: null, loadingThreadId: null, settings: defaults, changed: [], turnDiff: null });
      syncLocation();
      open.tidy();
    },

    setSetting<K extends SettingKey>(key: K, value: Settings[K]): void {
      setUi(store, (ui) => ({
        settings: { ...ui.settings, [key]: value },
        changed: ui.changed.includes(key) ? ui.changed : [...ui.changed, key],
      }));
    },

    /** Runs the user's own command (`!cmd`) in the open thread (started first when none is open). */
    async shellCommand(command: string): Promise<boolean> {
      const threadId = get().ui.activeThreadId ?? (await this.openThread());
      if (threadId === null) return false;
      const done = await attempt('Could not run the command', () =>
        client.request('thread/shellCommand', { threadId, command }),
      );
      return done !== undefined;
    },

    /** Starts a thread on the project with the composer's settings and shows it; null when it failed. */
    async openThread(): Promise<string | null> {
      const { data, ui } = get();
      if (data.cwd === null) return null;
      const o = overrides(ui.changed);
      const started = await attempt('Could not start a thread', () =>
        client.request('thread/start', {
          cwd: data.cwd,
          model: o.model,
          approvalPolicy: o.approvalPolicy,
          sandbox: o.sandbox,
        }),
      );
      if (started === undefined) return null;
      return showStarted(started);
    },

    /** Every notification as it arrives, unbatched (the terminal panel's output, push progress in the Changes panel). */
    onNotification: client.onNotification.bind(client),

    /** Starts a turn (creating the thread first when none is open), or steers the running one. */
    async send(input: UserInput[]): Promise<boolean> {
      const { data, ui } = get();
      if (input.length === 0 || data.cwd === null) return false;
      let threadId = ui.activeThreadId;
      const changed = ui.changed;
      const o = overrides(changed);
      if (threadId === null) {
        const started = await attempt('Could not start a thread', () =>
          client.request('thread/start', {
            cwd: data.cwd,
            model: o.model,
            approvalPolicy: o.approvalPolicy,
            sandbox: o.sandbox,
          }),
        );
        if (started === undefined) return false;
        threadId = showStarted(started);
      }
      const running = runningTurn(get().data.conversations[threadId]);
      if (running !== null) {
        // Shown at once, marked, until the turn takes it in (its user message item arrives).
        const text = input.find((part) => part.type === 'text')?.text ?? '';
        steeringId += 1;
        const pending = {
          id: steeringId,
          threadId,
          text,
          before: userMessagesWith(get().data.conversations[threadId], text),
        };
        setUi(store, (ui) => ({ steering: [...ui.steering, pending] }));
        const steerInput = turnReview.withNotes(threadId, input);
        const steered = await attempt('Could not add to the running turn', () =>
          client.request('turn/steer', { threadId, input: steerInput, expectedTurnId: running.id }),
        );
        if (steered !== undefined) turnReview.sent(threadId);
        if (steered === undefined) setUi(store, (ui) => ({ steering: ui.steering.filter((m) => m.id !== pending.id) }));
        return steered !== undefined;
      }
      const sandbox: SandboxMode | undefined = ui.activeThreadId === null ? undefined : o.sandbox;
      const approvalPolicy: AskForApproval | undefined = ui.activeThreadId === null ? undefined : o.approvalPolicy;
      const effort: ReasoningEffort | undefined = o.effort;
      const asked = threadId;
      open.expectTurn(asked);
      // What the person said reviewing landed hunks goes with this message.
      const turnInput = turnReview.withNotes(threadId, input);
      const result = await attempt('Could not start the turn', () =>
        client.request('turn/start', {
          threadId,
          input: turnInput,
          model: ui.activeThreadId === null ? undefined : o.model,
          effort,
          approvalPolicy,
          sandboxPolicy: sandbox === undefined ? undefined : sandboxPolicyOf(sandbox),
        }),
      );
      if (result === undefined) {
        open.noTurn(asked);
        return false;
      }
      turnReview.sent(asked);
      // The overrides stick to the thread: shown again while held, it shows them.
      if (changed.length > 0) open.remember(asked, get().ui.settings);
      setUi(store, { changed: [] });
      return true;
    },

    /**
     * Runs a failed last turn again: the turn is rolled back (history and rollout, not files) and its
     * message is sent anew.
     */
    async retryTurn(threadId: string, turnId: string): Promise<void> {
      const conversation = get().data.conversations[threadId];
      const turn = conversation?.turns[turnId];
      if (
        conversation === undefined ||
        turn === undefined ||
        conversation.turnIds[conversation.turnIds.length - 1] !== turnId
      )
        return;
      const message = turn.itemIds.map((id) => turn.items[id]?.item).find((item) => item?.type === 'userMessage');
      if (message?.type !== 'userMessage') {
        toast('Could not retry: the turn has no message to send again.');
        return;
      }
      const input = message.content;
      const rolled = await attempt('Could not retry the turn', () =>
        client.request('thread/rollback', { threadId, numTurns: 1 }),
      );
      if (rolled === undefined) return;
      batcher.flush();
      setData(store, (data) => ({
        ...data,
        conversations: {
          ...data.conversations,
          [threadId]: keepingOlderTurns(
            {
              ...conversationFromThread(rolled.thread, conversation.olderTurnsCursor),
              tokenUsage: conversation.tokenUsage,
            },
            conversation,
          ),
        },
      }));
      open.expectTurn(threadId);
      const retried = await attempt('Could not retry the turn', () =>
        client.request('turn/start', { threadId, input }),
      );
      if (retried === undefined) open.noTurn(threadId);
    },

    async stop(): Promise<void> {
      const threadId = get().ui.activeThreadId;
      if (threadId === null) return;
      const running = runningTurn(get().data.conversations[threadId]);
      if (running === null) return;
      await attempt('Could not stop the turn', () =>
        client.request('turn/interrupt', { threadId, turnId: running.id }),
      );
    },

    /** `worktree`: the fork works in its own copy of the project as it was after `turnId`. */
    async fork(threadId: string, turnId?: string, options: { worktree?: boolean } = {}): Promise<void> {
      const result = await attempt('Could not fork the thread', () =>
        client.request('thread/fork', {
          threadId,
          weftTurnId: turnId,
          ...(options.worktree === true ? { weftWorktree: true } : {}),
        }),
      );
      if (result === undefined) return;
      const cwd = get().data.cwd;
      const forks = options.worktree === true && cwd !== null ? await lists.listForks(cwd) : null;
      batcher.flush();
      const fork = result.thread;
      // The server subscribed this window to the fork, shown from here on (held only now: it is not let go
      // as a thread not shown meanwhile).
      open.hold(fork.id, settingsFrom(result));
      if (forks !== null) setData(store, (data) => (data.cwd === cwd ? { ...data, forks } : data));
      setData(store, (data) => {
        const next = upsertThread(newDraft(), data, fork);
        return {
          ...next,
          conversations: {
            ...next.conversations,
            [fork.id]: conversationFromThread(fork, result.weftOlderTurnsCursor ?? null),
          },
        };
      });
      selectSeq += 1;
      setUi(store, {
        activeThreadId: fork.id,
        loadingThreadId: null,
        settings: settingsFrom(result),
        changed: [],
        turnDiff: null,
      });
      syncLocation();
      open.shown(fork.id);
      open.tidy();
    },

    async rename(threadId: string, name: string): Promise<void> {
      await attempt('Could not rename the thread', () =>
        client.request('thread/name/set', { threadId, name: name.trim() }),
      );
    },

    async archive(threadId: string): Promise<void> {
      await attempt('Could not archive the thread', () => client.request('thread/archive', { threadId }));
    },

    async unarchive(threadId: string): Promise<void> {
      const result = await attempt('Could not unarchive the thread', () =>
        client.request('thread/unarchive', { threadId }),
      );
      if (result === undefined) return;
      setData(store, (data) => markUnarchived(newDraft(), upsertThread(newDraft(), data, result.thread), threadId));
      // An archived thread is shown from disk, not loaded: the open one is resumed, so it takes messages again.
      if (get().ui.activeThreadId === threadId) await showThread(threadId, false);
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
      if (term !== get().ui.searchTerm) await this.search(term);
      const { searchResults, searchChosen } = get().ui;
      const thread = searchResults?.[searchChosen];
      if (thread !== undefined) await this.selectThread(thread.id);
    },

    answerCommand(
      request: Extract<IncomingServerRequest, { method: 'item/commandExecution/requestApproval' }>,
      decision: CommandExecutionApprovalDecision,
    ): void {
      try {
        client.respond(request, { decision });
      } catch (error) {
        toast(error instanceof Error ? error.message : String(error));
      }
      setData(store, (data) => removeServerRequest(data, request.id));
    },

    answerPatch(
      request: Extract<IncomingServerRequest, { method: 'item/fileChange/requestApproval' }>,
      result: FileChangeRequestApprovalResult,
    ): void {
      try {
        client.respond(request, result);
      } catch (error) {
        toast(error instanceof Error ? error.message : String(error));
      }
      setData(store, (data) => removeServerRequest(data, request.id));
    },

    answerUserInput(
      request: Extract<IncomingServerRequest, { method: 'item/tool/requestUserInput' }>,
      answers: Record<string, string[]>,
    ): void {
      const result = {
        answers: Object.fromEntries(Object.entries(answers).map(([id, list]) => [id, { answers: list }])),
      };
      try {
        client.respond(request, result);
      } catch (error) {
        toast(error instanceof Error ? error.message : String(error));
      }
      setData(store, (data) => removeServerRequest(data, request.id));
    },

    /** The bytes of a file on the machine running Weft, as text (UTF-8); null when it cannot be read. */
    async readTextFile(path: string): Promise<string | null> {
      try {
        const { dataBase64 } = await client.request('fs/readFile', { path });
        const bytes = Uint8Array.from(atob(dataBase64), (c) => c.charCodeAt(0));
        return new TextDecoder().decode(bytes);
      } catch {
        return null;
      }
    },

    dismissToast(id: number): void {
      setUi(store, (ui) => ({ toasts: ui.toasts.filter((t) => t.id !== id) }));
    },

    showTurnDiff(threadId: string, turnId: string): void {
      setUi(store, { turnDiff: { threadId, turnId } });
    },

    /** Closes a patch review without answering it (it stays pending) or opens it again. */
    setReviewAside(requestId: string | number, aside: boolean): void {
      const id = String(requestId);
      setUi(store, (ui) => ({
        reviewsSetAside: aside
          ? [...ui.reviewsSetAside.filter((r) => r !== id), id]
          : ui.reviewsSetAside.filter((r) => r !== id),
      }));
    },

    closeTurnDiff(): void {
      setUi(store, { turnDiff: null });
    },

    setProjectPicker(open: boolean): void {
      setUi(store, { projectPicker: open });
    },

    retryConnection(): void {
      client.retry();
    },

    /** Any protocol request, for views that keep what it returns to themselves (Settings). */
    request: client.request.bind(client),

    openSettings(section: SettingsSection | null = null): void {
      setUi(store, { settingsOpen: { section } });
      void refreshProviders();
    },

    closeSettings(): void {
      setUi(store, { settingsOpen: null });
    },

    refreshProviders,

    /** Reads the new-thread defaults again (after project config was trusted, say). */
    reloadDefaults: loadDefaults,

    /** Saves a key for the provider (never kept in the page); the error message, or null when saved. */
    async saveKey(providerId: string, apiKey: string): Promise<string | null> {
      try {
        await client.request('weft/auth/setKey', { providerId, apiKey });
      } catch (error) {
        return error instanceof Error ? error.message : String(error);
      }
      await refreshProviders();
      void loadDefaults();
      return null;
    },

    async clearKey(providerId: string): Promise<void> {
      await attempt('Could not remove the key', () => client.request('weft/auth/clearKey', { providerId }));
      await refreshProviders();
    },

    /** Writes one key of the user config.toml; the new defaults apply to new threads. */
    async writeConfig(keyPath: string, value: string | boolean): Promise<string | null> {
      try {
        await client.request('config/value/write', { keyPath, value });
      } catch (error) {
        return error instanceof Error ? error.message : String(error);
      }
      await Promise.all([refreshProviders(), loadDefaults()]);
      return null;
    },

    toast,
  };
  return actions;
}
