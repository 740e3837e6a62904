import { codexApprovalPolicy, type Thread, type ThreadOverrides } from '../../../src-preload/protocol';
import { heldBackMcpMessage, pendingFilesWarning } from '../../config/project-report';
import type { Session } from '../../core/session';
import { initialState } from '../../core/session-builder';
import type { LoadedThread } from '../../store/loader';
import { attributeFields, type AttributeEventInput } from '../../store/thread-events';
import type { ThreadRecorder } from '../../store/thread-store';
import { agentTreeOf } from '../../store/sub-agent-meta';
import { uuidv7 } from '../../util/ids';
import type { Client, HandlerTable } from '../dispatcher';
import { readStateOfThread } from '../read-states';
import { invalidParams, invalidRequest } from '../rpc-error';
import { subAgentHost } from '../sub-agent-host';
import { gitInfoOf, newThreadObject, resolveCwd, threadConfig } from '../thread-factory';
import { loadThread } from '../thread-load';
import { discardFork, forkFiles, recordFork } from './fork-files';
import { startWorktree } from './worktree-start';
import { liveState, threadListHandlers } from './thread-list';
import { storeCall, storeCallAsync } from './store-call';
import type { HandlerContext } from './context';

/** Turns sent with a resumed thread; older ones are paged with `thread/turns/list`. */
const RESUME_TURNS = 100;

type ThreadHandlers = Pick<
  HandlerTable,
  | 'thread/start'
  | 'thread/resume'
  | 'thread/fork'
  | 'thread/archive'
  | 'thread/unarchive'
  | 'thread/unsubscribe'
  | 'thread/list'
  | 'thread/loaded/list'
  | 'thread/read'
  | 'thread/turns/list'
  | 'weft/turn/diff'
  | 'thread/name/set'
  | 'weft/thread/pin'
  | 'thread/readState/update'
  | 'thread/rollback'
  | 'thread/compact/start'
>;

export function threadHandlers(ctx: HandlerContext): ThreadHandlers {
  const { store, manager, environment } = ctx;

  /** Damage found while reading a rollout (skipped lines), and MCP servers held back, is told to the client that asked. */
  /** The thread's usage so far, sent after the resume's answer (it is held until the answer is out). */
  const tellUsage = (client: Client, session: Session): void => {
    const update = session.tokenUsageUpdate();
    if (update !== null) client.notify(update);
  };
  const warnAbout = (client: Client, threadId: string, warnings: readonly string[]): void => {
    for (const message of warnings) client.notify({ method: 'warning', params: { threadId, message } });
  };

  /**
   * Loads a session for a thread into the manager and subscribes the client to it. Called within
   * `manager.load` (the thread is `loading` meanwhile) by a request holding the thread's queue.
   */
  const attach = async (
    client: Client,
    thread: Thread,
    overrides: ThreadOverrides,
    recording: { recorder?: ThreadRecorder; state?: LoadedThread },
  ): Promise<Session> => {
    // Any thread a person or a model started may spawn sub-agents within `agents.max_depth`; Codex's
    // internal sub-agents (a review, a compaction) spawn none.
    const subAgents = agentTreeOf(thread) === null ? undefined : subAgentHost(ctx, thread.id, overrides);
    const { entry, config: loaded, cwd } = await loadThread(ctx, { thread, overrides, recording, subAgents });
    manager.subscribe(thread.id, client);
    // Project config held back (new or changed since the project was trusted) and project MCP servers a
    // read-only thread did not start: the person hears of them where the thread is shown.
    const pending = pendingFilesWarning(loaded.projectTrust, cwd);
    if (pending !== null)
      client.notify({ method: 'warning', params: { threadId: thread.id, message: pending, weftProjectConfig: true } });
    warnAbout(client, thread.id, loaded.heldBackMcpServers.map(heldBackMcpMessage));
    return entry.session;
  };

  const startResult = (session: Session, thread: Thread, provider: string) => {
    const s = session.currentSettings;
    return {
      thread,
      model: s.model,
      modelProvider: provider,
      cwd: s.cwd,
      approvalPolicy: codexApprovalPolicy(s.approvalPolicy),
      weftApprovalPolicy: s.approvalPolicy,
      approvalsReviewer: 'user' as const,
      sandbox: s.sandboxPolicy,
      reasoningEffort: s.effort,
      weftOlderTurnsCursor: session.olderTurnsCursor,
    };
  };

  /** Drops the last `numTurns` turns from the thread on disk and, when it is loaded, from its session. */
  const rollback = async (threadId: string, numTurns: number): Promise<Thread> => {
    const entry = manager.get(threadId);
    if (entry?.session.activeTurnId)
      throw invalidRequest('a turn is running in this thread; interrupt it before going back');
    const state = await storeCallAsync(() => store.rollback(threadId, numTurns, { turnsLimit: RESUME_TURNS }));
    entry?.session.resetState({ ...initialState(state), contextRef: entry.session.contextRef });
    return manager.liveThread(threadId, true) ?? state.thread;
  };

  /**
   * Sets an attribute of a saved thread (store/thread-events.ts): appended to its rollout, and to the
   * thread as the host holds it when it is loaded; answers the thread as it is now.
   */
  const setAttribute = async (threadId: string, event: AttributeEventInput, client: Client): Promise<Thread> => {
    if (manager.get(threadId)?.thread.ephemeral)
      throw invalidRequest(
        `thread ${threadId} is ephemeral: nothing of it is saved, so it cannot keep this; start a thread without \`ephemeral\` to keep it`,
      );
    const attributes = await storeCallAsync(() => store.recordAttribute(threadId, event));
    manager.updateThread(threadId, attributeFields(attributes));
    return liveOrStored(threadId, false, client);
  };

  const liveOrStored = async (threadId: string, includeTurns: boolean, client: Client): Promise<Thread> => {
    const live = manager.liveThread(threadId, includeTurns);
    if (live && (live.ephemeral || includeTurns)) return live;
    const read = await storeCallAsync(() => store.readAsync(threadId, { includeTurns }));
    warnAbout(client, threadId, read.warnings);
    return live ? { ...read.thread, ...liveState(live) } : read.thread;
  };

  return {
    'thread/start': async (params, client) => {
      manager.seen(client);
      const requested = resolveCwd(params.cwd, environment.defaultCwd);
      const groupId = params.weftGroupId ?? null;
      if (groupId !== null && params.ephemeral === true)
        throw invalidParams(
          'weftGroupId: an ephemeral thread is not saved, so its group could not be found again; start it without ephemeral',
        );
      // A worktree thread's worktree is made first; if the thread cannot start, it is taken back.
      const own = params.weftWorktree === true ? await startWorktree(ctx, params, requested) : null;
      const cwd = own?.cwd ?? requested;
      let started: { session: Session; thread: Thread; provider: string };
      try {
        // git answers while the config loads; neither blocks the event loop.
        const [{ loaded, provider }, git] = await Promise.all([
          threadConfig(environment, params, cwd, own?.worktree ?? null),
          gitInfoOf(cwd),
        ]);
        const id = uuidv7();
        const ephemeral = params.ephemeral === true;
        const recording: { path: string; recorder: ThreadRecorder } | null = ephemeral
          ? null
          : storeCall(() =>
              store.createThread({
                id,
                cwd,
                modelProvider: provider.id,
                model: params.model ?? loaded.config.model,
                source: 'appServer',
                baseInstructions: params.baseInstructions ?? null,
                git,
                weftWorktree: own?.saved ?? null,
              }),
            );
        const thread = newThreadObject({
          id,
          cwd,
          provider: provider.id,
          ephemeral,
          path: recording?.path ?? null,
          git,
          worktree: own?.worktree ?? null,
        });
        const session = await manager.load(id, () =>
          attach(client, thread, { ...params, cwd }, { recorder: recording?.recorder }),
        );
        started = { session, thread, provider: provider.id };
      } catch (error) {
        await own?.discard();
        throw error;
      }
      const { session, thread } = started;
      if (groupId !== null) {
        const attributes = await storeCallAsync(() =>
          store.recordAttribute(thread.id, { type: 'weft_thread_group', group_id: groupId }),
        );
        manager.updateThread(thread.id, attributeFields(attributes));
      }
      const live = manager.liveThread(thread.id, true) ?? thread;
      manager.broadcast({ method: 'thread/started', params: { thread: live } });
      // The setup runs as the thread's first turn (a turn asked for meanwhile waits for it to end).
      if (own?.setup)
        session
          .worktreeSetup(own.setup)
          .catch((error: unknown) =>
            environment.log(
              `weft app-server: warning: the worktree setup of thread ${thread.id} did not run: ${String(error)}`,
            ),
          );
      return startResult(session, live, started.provider);
    },

    'thread/resume': async (params, client) => {
      manager.seen(client);
      // The thread's queue is held: nothing else loads or unloads it meanwhile.
      const loadedEntry = manager.get(params.threadId);
      if (loadedEntry) {
        manager.subscribe(params.threadId, client);
        const live = manager.liveThread(params.threadId, true);
        if (!live) throw invalidParams(`thread ${params.threadId} is not loaded`);
        tellUsage(client, loadedEntry.session);
        return startResult(loadedEntry.session, live, live.modelProvider);
      }
      const { thread, session } = await manager.load(params.threadId, async () => {
        const opened = await storeCallAsync(() =>
          store.openForAppendAsync(params.threadId, { turnsLimit: RESUME_TURNS }),
        );
        warnAbout(client, params.threadId, opened.state.warnings);
        return {
          thread: opened.state.thread,
          session: await attach(client, opened.state.thread, params, {
            recorder: opened.recorder,
            state: opened.state,
          }),
        };
      });
      const live = manager.liveThread(thread.id, true) ?? thread;
      if (thread.id !== params.threadId) manager.broadcast({ method: 'thread/started', params: { thread: live } });
      tellUsage(client, session);
      return startResult(session, live, thread.modelProvider);
    },

    'thread/fork': async (params, client) => {
      manager.seen(client);
      // With weftWorktree the files come along first: nothing is forked if they cannot be.
      const files =
        params.weftWorktree === true ? await forkFiles(ctx, params.threadId, params.weftTurnId ?? null) : null;
      let forked: Awaited<ReturnType<typeof store.forkAsync>>;
      try {
        forked = await storeCallAsync(() =>
          store.forkAsync(params.threadId, {
            afterTurnId: params.weftTurnId ?? null,
            turnsLimit: RESUME_TURNS,
            cwd: files?.cwd ?? null,
            weftWorktree: files?.worktree ?? null,
          }),
        );
      } catch (error) {
        // No thread was made: neither are its files.
        if (files !== null)
          await discardFork(ctx, { folder: files.folder, shortId: files.shortId, root: files.parentCwd });
        throw error;
      }
      if (files !== null) await recordFork(ctx, { threadId: forked.threadId, parentThreadId: params.threadId, files });
      warnAbout(client, forked.threadId, forked.state.warnings);
      const session = await manager.load(forked.threadId, () =>
        attach(client, forked.state.thread, files === null ? params : { ...params, cwd: files.cwd }, {
          recorder: forked.recorder,
          state: forked.state,
        }),
      );
      const live = manager.liveThread(forked.threadId, true) ?? forked.state.thread;
      manager.broadcast({ method: 'thread/started', params: { thread: live } });
      return startResult(session, live, live.modelProvider);
    },

    'thread/archive': async (params, client) => {
      manager.seen(client);
      await manager.unload(params.threadId, 'archived');
      storeCall(() => store.archive(params.threadId));
      manager.broadcast({ method: 'thread/archived', params: { threadId: params.threadId } });
      return {};
    },

    'thread/unarchive': async (params, client) => {
      manager.seen(client);
      const thread = storeCall(() => store.unarchive(params.threadId));
      manager.broadcast({ method: 'thread/unarchived', params: { threadId: params.threadId } });
      return { thread };
    },

    'thread/unsubscribe': async (params, client) => ({ status: manager.unsubscribe(params.threadId, client) }),

    ...threadListHandlers(ctx),

    'thread/read': async (params, client) => {
      manager.seen(client);
      const thread = await liveOrStored(params.threadId, params.includeTurns === true, client);
      return { thread, readState: thread.ephemeral ? null : readStateOfThread(thread) };
    },

    'weft/turn/diff': async (params, client) => {
      manager.seen(client);
      const record = manager.get(params.threadId)?.session.turns.find((r) => r.turn.id === params.turnId);
      const turn =
        record === undefined
          ? (await liveOrStored(params.threadId, true, client)).turns.find((t) => t.id === params.turnId)
          : record.diff === undefined
            ? record.turn
            : { weftDiff: record.diff, weftDiffCut: record.diffCut };
      if (turn === undefined) throw invalidParams(`thread ${params.threadId} has no turn ${params.turnId}`);
      const diff = turn.weftDiff ?? null;
      return { diff, ...(diff === null || turn.weftDiffCut === undefined ? {} : { weftDiffCut: turn.weftDiffCut }) };
    },

    'thread/readState/update': async (params, client) => {
      manager.seen(client);
      return { readState: await ctx.readStates.update(await liveOrStored(params.threadId, false, client), params) };
    },

    'thread/turns/list': async (params, client) => {
      const read = await storeCallAsync(() =>
        store.readAsync(params.threadId, {
          includeTurns: true,
          turnsCursor: params.cursor ?? null,
          turnsLimit: params.limit ?? 50,
        }),
      );
      warnAbout(client, params.threadId, read.warnings);
      return { data: read.thread.turns, nextCursor: read.olderTurnsCursor };
    },

    'thread/name/set': async (params, client) => {
      manager.seen(client);
      const name = params.name.trim();
      if (!manager.get(params.threadId)?.thread.ephemeral)
        await storeCallAsync(() => store.setName(params.threadId, name === '' ? null : name));
      manager.updateThread(params.threadId, { name: name === '' ? null : name });
      manager.broadcast({ method: 'thread/name/updated', params: { threadId: params.threadId, name } });
      return {};
    },

    'weft/thread/pin': async (params, client) => {
      manager.seen(client);
      const event = { type: 'weft_thread_pinned', pinned: params.pinned } as const;
      return { thread: await setAttribute(params.threadId, event, client) };
    },

    'thread/rollback': async (params, client) => {
      manager.seen(client);
      return { thread: await rollback(params.threadId, params.numTurns) };
    },

    'thread/compact/start': async (params, client) => {
      const entry = manager.get(params.threadId);
      if (!entry) throw invalidParams(`thread ${params.threadId} is not loaded; call thread/resume first`);
      manager.subscribe(params.threadId, client);
      try {
        await entry.session.compact();
      } catch (error) {
        throw invalidRequest(error instanceof Error ? error.message : String(error));
      }
      return {};
    },
  };
}
