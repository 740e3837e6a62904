// Threads: showing one (held, resumed or read), starting, forking, renaming, archiving, and loading a long
// thread's earlier turns.
import { environmentParam, projectPlace } from '../project-key';
import type { Thread, ThreadStartResult } from '../../../src-preload/protocol';
import { conversationFromThread, keepingOlderTurns, withOlderTurns } from '../conversation';
import { newDraft } from '../draft';
import { findThread, isArchived } from '../selectors';
import { setData, setUi, type Settings } from '../store';
import { listed, markUnarchived, patchThread, upsertThread } from '../thread-list';
import type { ActionContext } from './context';
import type { SettingsActions } from './settings';

/** Turns loaded per "Show earlier turns". */
const OLDER_TURNS_PAGE = 50;

export function createThreads(ctx: ActionContext, settings: SettingsActions) {
  const { client, store, get, open, batcher, attempt, syncLocation } = ctx;
  const { settingsFrom } = settings;
  /** Counts the threads chosen: a thread read for an earlier choice is not shown. */
  let selectSeq = 0;
  /** Threads whose older turns are being loaded (one page at a time). */
  const loadingOlder = new Set<string>();

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
    let resumedSettings: Settings | null = null;
    // The environment the thread lives on: as listed, else the project's (a host that restarted has not
    // seen the thread yet).
    const project = get().data.cwd;
    const where =
      findThread(get().data, threadId)?.weftEnvironment ??
      (project === null ? null : projectPlace(project).environment);
    const on = where === null ? {} : { weftEnvironment: where };
    if (isArchived(get().data, threadId)) {
      const read = await attempt('Could not open the thread', () =>
        client.request('thread/read', { threadId, includeTurns: true, ...on }),
      );
      thread = read?.thread;
    } else {
      const resumed = await attempt('Could not open the thread', () =>
        client.request('thread/resume', { threadId, ...on }),
      );
      thread = resumed?.thread;
      resumedCursor = resumed?.weftOlderTurnsCursor ?? null;
      if (resumed !== undefined) {
        resumedSettings = settingsFrom(resumed);
        open.hold(threadId, resumedSettings);
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
    setUi(store, (ui) => ({ loadingThreadId: null, settings: resumedSettings ?? ui.settings, changed: [] }));
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
    const kept = { ...settingsFrom(started), effort: get().ui.settings.effort };
    open.hold(id, kept);
    setData(store, (d) => {
      const next = upsertThread(newDraft(), d, started.thread);
      return next.conversations[id] !== undefined
        ? next
        : { ...next, conversations: { ...next.conversations, [id]: conversationFromThread(started.thread) } };
    });
    selectSeq += 1;
    setUi(store, { activeThreadId: id, loadingThreadId: null, settings: kept });
    syncLocation();
    open.shown(id);
    open.tidy();
    return id;
  };

  /**
   * Starts a thread on the project with the composer's settings, in the project's folder or a worktree of
   * its own (`newThreadPlace`), and shows it; null when it failed.
   */
  const openThread = async (): Promise<string | null> => {
    const { data, ui } = get();
    const project = data.cwd;
    if (project === null) return null;
    const o = settings.overrides(ui.changed);
    const place = ui.newThreadPlace;
    const started = await attempt('Could not start a thread', () =>
      client.request('thread/start', {
        cwd: projectPlace(project).folder,
        ...environmentParam(project),
        model: o.model,
        approvalPolicy: o.approvalPolicy,
        sandbox: o.sandbox,
        ...(place.worktree ? { weftWorktree: true, weftWorktreeCarryChanges: place.carryChanges } : {}),
      }),
    );
    if (started === undefined) return null;
    return showStarted(started);
  };

  /**
   * "Try N ways": starts `ways` worktree threads of the project at once, one group (`weftGroupId`), each
   * held with a turn expected (the caller starts them), and shows the first; returns the ids of those that
   * started and the group's id.
   */
  const startGroup = async (ways: number): Promise<{ groupId: string; threadIds: string[] }> => {
    const { data, ui } = get();
    const groupId = `ways-${crypto.randomUUID()}`;
    const project = data.cwd;
    if (project === null) return { groupId, threadIds: [] };
    const o = settings.overrides(ui.changed);
    const place = ui.newThreadPlace;
    const results = await Promise.all(
      Array.from({ length: ways }, () =>
        attempt('Could not start a thread', () =>
          client.request('thread/start', {
            cwd: projectPlace(project).folder,
            ...environmentParam(project),
            model: o.model,
            approvalPolicy: o.approvalPolicy,
            sandbox: o.sandbox,
            weftWorktree: true,
            weftWorktreeCarryChanges: place.carryChanges,
            weftGroupId: groupId,
          }),
        ),
      ),
    );
    const started = results.filter((r) => r !== undefined);
    for (const result of started) {
      // Held, with its turn on the way, so showing the first does not let the others go.
      open.hold(result.thread.id, { ...settingsFrom(result), effort: get().ui.settings.effort });
      open.expectTurn(result.thread.id);
      setData(store, (d) => {
        const next = upsertThread(newDraft(), d, result.thread);
        return {
          ...next,
          conversations: { ...next.conversations, [result.thread.id]: conversationFromThread(result.thread) },
        };
      });
    }
    const [first] = started;
    if (first !== undefined) showStarted(first);
    return { groupId, threadIds: started.map((r) => r.thread.id) };
  };

  const selectThread = (threadId: string): Promise<void> => showThread(threadId, false);

  const actions = {
    selectThread,

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
      setUi(store, {
        activeThreadId: null,
        loadingThreadId: null,
        settings: settings.defaults(),
        changed: [],
        turnDiff: null,
      });
      syncLocation();
      open.tidy();
    },

    openThread,

    startGroup,

    /** `worktree`: the fork works in its own copy of the project as it was after `turnId`. */
    async fork(threadId: string, turnId?: string, options: { worktree?: boolean } = {}): Promise<void> {
      // A thread on an environment forks there (named, for a host that has not seen it yet).
      const where = findThread(get().data, threadId)?.weftEnvironment;
      const result = await attempt('Could not fork the thread', () =>
        client.request('thread/fork', {
          threadId,
          ...(where === undefined || where === null ? {} : { weftEnvironment: where }),
          weftTurnId: turnId,
          ...(options.worktree === true ? { weftWorktree: true } : {}),
        }),
      );
      if (result === undefined) return;
      const cwd = get().data.cwd;
      const forks = options.worktree === true && cwd !== null ? await ctx.lists.listForks(cwd) : null;
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

    /** A Handoff moved the thread: it works in `cwd` from now on (its place in the lists, Changes, Terminal). */
    threadMoved(threadId: string, cwd: string): void {
      setData(store, (data) => patchThread(newDraft(), data, threadId, { cwd }));
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
  };

  return { showThread, rereadThread, showStarted, actions };
}

export type ThreadActions = ReturnType<typeof createThreads>;
