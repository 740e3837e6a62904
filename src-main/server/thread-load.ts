// Loading a thread's session into the host: its config (the thread's cwd, overrides and worktree), its
// session, and its place in the manager. Shared by the requests that load threads for a client
// (thread/start, resume, fork) and by the threads a thread's model spawns (sub-agents, which no client
// asked for). Called within `manager.load` by a request (or a spawn) holding the thread's queue.
import { discoverHooks } from '../config/hooks/discover';
import type { Thread, ThreadOverrides } from '../../src-preload/protocol';
import type { SubAgentHost } from '../core/agents/types';
import type { TurnOverrides } from '../core/types';
import type { LoadedThread } from '../store/loader';
import type { ThreadRecorder } from '../store/thread-store';
import type { HandlerContext } from './handlers/context';
import { agentTreeOf } from '../store/sub-agent-meta';
import { movedCwd } from '../store/thread-events';
import { resolveCwd, threadConfig, threadSession } from './thread-factory';
import type { LoadedEntry } from './thread-manager';

export interface LoadInput {
  thread: Thread;
  overrides: ThreadOverrides;
  recording: { recorder?: ThreadRecorder; state?: LoadedThread };
  /**
   * Where the thread's sub-agents are made (offered while the thread is less deep than `agents.max_depth`,
   * its depth read from the thread's source); absent = the thread spawns none.
   */
  subAgents?: SubAgentHost;
  /** Settings that win (a sub-agent's: its parent's). */
  exact?: TurnOverrides;
  /** A sub-agent's role instructions, added to the config's. */
  extraDeveloperInstructions?: string | null;
  /** A sub-agent held open by its parent: it is not unloaded while the parent holds it. */
  held?: boolean;
}

/** The thread's loaded entry and its config (for the warnings a client is given about it). */
export async function loadThread(
  ctx: HandlerContext,
  input: LoadInput,
): Promise<{ entry: LoadedEntry; config: Awaited<ReturnType<typeof threadConfig>>['loaded']; cwd: string }> {
  const { manager, environment } = ctx;
  const { thread, overrides, recording } = input;
  const saved = recording.state;
  const cwd = resolveCwd(
    input.exact?.cwd ??
      overrides.cwd ??
      (saved ? (movedCwd(saved.attributes, saved.lastTurnContext) ?? saved.lastTurnContext?.cwd) : undefined) ??
      thread.cwd,
    environment.defaultCwd,
  );
  try {
    const { loaded, provider } = await threadConfig(environment, overrides, cwd, thread.weftWorktree ?? null);
    const hooks = await discoverHooks({
      weftHome: environment.weftHome,
      cwd,
      env: environment.env,
      projectTrust: loaded.projectTrust,
    });
    const entry = manager.add(
      { ...thread, cwd },
      (sendRequest) =>
        threadSession(environment, {
          threadId: thread.id,
          cwd,
          config: loaded.config,
          provider,
          sendRequest,
          recorder: recording.recorder,
          state: recording.state,
          overrides,
          protectedPaths: loaded.projectTrust.trustedConfigDirs,
          worktree: thread.weftWorktree ?? null,
          subAgents: input.subAgents,
          agentTree: agentTreeOf(thread) ?? undefined,
          exact: input.exact,
          extraDeveloperInstructions: input.extraDeveloperInstructions,
          hooks: { hooks: hooks.hooks, bypassTrust: false, transcriptPath: recording.recorder?.path ?? null },
        }),
      { held: input.held === true },
    );
    entry.session.subscribe((n) => {
      if (n.method === 'turn/completed') ctx.readStates.turnEnded(thread.id, n.params.turn.id);
      ctx.onSessionEvent(thread.id, n);
    });
    return { entry, config: loaded, cwd };
  } catch (error) {
    // No session took the recorder over: it is closed here, or its lock would keep the thread from
    // being resumed again.
    await recording.recorder?.close().catch(() => undefined);
    throw error;
  }
}
