// `weft exec`'s sub-agents: each is a thread of its own, saved beside the run's thread (unless the run is
// `--ephemeral`), whose session runs in this process with the parent's cwd, sandbox and approvals and
// answers server requests as the run does. The run ends once the parent's turn has: the parent's session
// then closes its sub-agents (a turn still running is interrupted) before the store is closed.
import type { ServerNotification } from '../../src-preload/protocol';
import type { ResolvedProvider } from '../config/providers';
import type { WeftConfig } from '../config/schema';
import type { AgentSession, AgentTreePosition, SubAgentHost, SubAgentSpec } from '../core/agents/types';
import type { Session } from '../core/session';
import { buildSession } from '../core/session-builder';
import type { RuleStore } from '../safety/approvals/rules';
import type { LoadedThread } from '../store/loader';
import { agentTreeOf } from '../store/sub-agent-meta';
import type { ThreadRecorder, ThreadStore } from '../store/thread-store';
import type { FileCheckpoints } from '../tools/file-checkpoints';
import type { HostRequestSender } from '../tools/types';

export interface ExecSubAgentsInput {
  /** Where the sub-agents are saved; null for an `--ephemeral` run (they are not saved either). */
  store: ThreadStore | null;
  config: WeftConfig;
  provider: ResolvedProvider;
  sendRequest: HostRequestSender;
  env: NodeJS.ProcessEnv;
  rules: RuleStore;
  weftHome: string;
  checkpoints?: FileCheckpoints;
  protectedPaths: readonly string[];
  /** Every notification of every sub-agent (for `--json`, which prints them with their thread ids). */
  onNotification: (n: ServerNotification) => void;
}

export function execSubAgentHost(input: ExecSubAgentsInput): SubAgentHost {
  const sessions = new Map<string, Session>();
  const start = (
    threadId: string,
    cwd: string,
    recording: { recorder?: ThreadRecorder; state?: LoadedThread },
    spec: SubAgentSpec | null,
    tree: AgentTreePosition | null,
  ): Session => {
    const session = buildSession({
      config: input.config,
      provider: input.provider,
      cwd,
      threadId,
      sendRequest: input.sendRequest,
      env: input.env,
      rules: input.rules,
      weftHome: input.weftHome,
      recorder: recording.recorder,
      saved: recording.state,
      checkpoints: input.checkpoints,
      protectedPaths: input.protectedPaths,
      // Within `agents.max_depth` a sub-agent spawns its own, made here too.
      ...(tree === null ? {} : { subAgents: host, agentTree: tree }),
      ...(spec === null
        ? { keepSaved: { modelSetInConfig: false, questionsSetInConfig: false } }
        : { exact: spec.settings, extraDeveloperInstructions: spec.developerInstructions }),
    });
    session.subscribe(input.onNotification);
    sessions.set(threadId, session);
    return session;
  };

  const host: SubAgentHost = {
    create: (spec): Promise<AgentSession> => {
      const cwd = spec.settings.cwd;
      const created = input.store?.createThread({
        id: spec.threadId,
        cwd,
        modelProvider: input.provider.id,
        model: spec.settings.model,
        source: 'exec',
        baseInstructions: null,
        subAgent: {
          parentThreadId: spec.parentThreadId,
          sessionId: spec.sessionId,
          depth: spec.depth,
          nickname: spec.nickname,
          role: spec.role,
        },
      });
      const tree = { sessionId: spec.sessionId, depth: spec.depth };
      return Promise.resolve(start(spec.threadId, cwd, { recorder: created?.recorder }, spec, tree));
    },
    reopen: async (threadId, parentThreadId) => {
      const store = input.store;
      if (store === null) return null;
      let opened: { recorder: ThreadRecorder; state: LoadedThread };
      try {
        opened = await store.openForAppendAsync(threadId);
      } catch {
        return null;
      }
      const thread = opened.state.thread;
      if (thread.parentThreadId !== parentThreadId) {
        await opened.recorder.close();
        return null;
      }
      const cwd = opened.state.lastTurnContext?.cwd ?? thread.cwd;
      const session = start(
        threadId,
        cwd,
        { recorder: opened.recorder, state: opened.state },
        null,
        agentTreeOf(thread),
      );
      return { session, nickname: thread.agentNickname ?? '', role: thread.agentRole ?? null };
    },
    // Nobody else watches a sub-agent of a run: once closed, it is shut down (its thread stays saved).
    release: async (threadId) => {
      const session = sessions.get(threadId);
      sessions.delete(threadId);
      await session?.shutdown();
    },
  };
  return host;
}
