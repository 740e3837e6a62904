// The app server's sub-agents: each is a thread of the host like any other — saved (unless its parent is
// ephemeral), announced with `thread/started`, listed, resumable — whose session runs with its parent's cwd,
// sandbox and approvals. Its notifications and approvals reach whoever watches the parent (ThreadManager's
// audience); it stays loaded while the parent holds it open, and goes by the usual rules once closed.
import type { Thread, ThreadOverrides } from '../../src-preload/protocol';
import type { AgentSession, SubAgentHost, SubAgentSpec } from '../core/agents/types';
import { newSubAgentInfo, sourceFields } from '../store/sub-agent-meta';
import type { HandlerContext } from './handlers/context';
import { storeCall, storeCallAsync } from './handlers/store-call';
import { newThreadObject } from './thread-factory';
import { loadThread } from './thread-load';

/** Turns a reopened sub-agent is loaded with (as a resume). */
const REOPEN_TURNS = 100;

/** The host of the sub-agents of thread `parentId` (loaded with `overrides`, which its sub-agents share). */
export function subAgentHost(ctx: HandlerContext, parentId: string, overrides: ThreadOverrides): SubAgentHost {
  const { store, manager } = ctx;
  const parentThread = (): Thread => {
    const entry = manager.get(parentId);
    if (!entry) throw new Error(`thread ${parentId} is not loaded`);
    return entry.thread;
  };
  // What the parent was asked for applies to its sub-agents, but their own settings come from the spawn.
  const childOverrides: ThreadOverrides = { ...overrides, cwd: null };

  const create = async (spec: SubAgentSpec): Promise<AgentSession> => {
    const parent = parentThread();
    const sub = {
      parentThreadId: spec.parentThreadId,
      sessionId: spec.sessionId,
      depth: spec.depth,
      nickname: spec.nickname,
      role: spec.role,
    };
    return manager.run(spec.threadId, 'exclusive', () =>
      manager.load(spec.threadId, async () => {
        const cwd = spec.settings.cwd;
        const recording = parent.ephemeral
          ? null
          : storeCall(() =>
              store.createThread({
                id: spec.threadId,
                cwd,
                modelProvider: parent.modelProvider,
                model: spec.settings.model,
                source: 'appServer',
                baseInstructions: overrides.baseInstructions ?? null,
                git: parent.gitInfo,
                subAgent: sub,
              }),
            );
        const thread: Thread = {
          ...newThreadObject({
            id: spec.threadId,
            cwd,
            provider: parent.modelProvider,
            ephemeral: parent.ephemeral,
            path: recording?.path ?? null,
            git: parent.gitInfo,
          }),
          ...sourceFields(spec.threadId, 'appServer', newSubAgentInfo(sub)),
        };
        const { entry } = await loadThread(ctx, {
          thread,
          overrides: childOverrides,
          recording: { recorder: recording?.recorder },
          subAgents: subAgentHost(ctx, spec.threadId, childOverrides),
          exact: spec.settings,
          extraDeveloperInstructions: spec.developerInstructions,
          held: true,
        });
        manager.broadcast({
          method: 'thread/started',
          params: { thread: manager.liveThread(thread.id, true) ?? thread },
        });
        return entry.session;
      }),
    );
  };

  const reopen: SubAgentHost['reopen'] = (threadId, parentThreadId) =>
    manager.run(threadId, 'exclusive', async () => {
      const loaded = manager.get(threadId);
      if (loaded) {
        if (loaded.thread.parentThreadId !== parentThreadId) return null;
        manager.hold(threadId, true);
        return {
          session: loaded.session,
          nickname: loaded.thread.agentNickname ?? '',
          role: loaded.thread.agentRole ?? null,
        };
      }
      let thread: Thread;
      try {
        thread = (await storeCallAsync(() => store.readAsync(threadId, { includeTurns: false }))).thread;
      } catch {
        return null;
      }
      if (thread.parentThreadId !== parentThreadId) return null;
      const session = await manager.load(threadId, async () => {
        const opened = await storeCallAsync(() => store.openForAppendAsync(threadId, { turnsLimit: REOPEN_TURNS }));
        const { entry } = await loadThread(ctx, {
          thread: opened.state.thread,
          overrides: childOverrides,
          recording: { recorder: opened.recorder, state: opened.state },
          subAgents: subAgentHost(ctx, threadId, childOverrides),
          held: true,
        });
        return entry.session;
      });
      return { session, nickname: thread.agentNickname ?? '', role: thread.agentRole ?? null };
    });

  return {
    create,
    reopen,
    release: (threadId) => {
      manager.hold(threadId, false);
      return Promise.resolve();
    },
  };
}
