/**
 * Where a face shows a sub-agent's approvals and questions. The core asks the client that watches a thread
 * for the requests of its sub-agents too, each under the sub-agent's own thread id (as Codex does); a face
 * knows only the threads it opened (an ACP session, an MCP tool call), so it walks up the sub-agent's
 * parents to the nearest one it holds and asks there, saying which sub-agent asks. Parents are learned
 * from `thread/started` (the core announces every sub-agent to every client) and, for a thread announced
 * before the face attached, from `thread/read`.
 */
import { errorMessage } from '../util/errors';
import type { HostClient } from './host-client';

/** The sub-agent that asks, as a person is told of it. */
export interface SubAgentAsking {
  threadId: string;
  /** Its nickname (`agentNickname`); null when it has none. */
  nickname: string | null;
}

export interface AskingThread {
  /** The thread the face holds that the request is asked in. */
  threadId: string;
  /** The sub-agent asking, when it is not that thread itself. */
  subAgent: SubAgentAsking | null;
}

export interface Lineage {
  /**
   * The request's own thread when `holds` it, else its nearest ancestor the face holds, with the sub-agent
   * that asks; null when no thread up the line is held.
   */
  askingThread(threadId: string, holds: (threadId: string) => boolean): Promise<AskingThread | null>;
  dispose(): void;
}

/** How far up a line of sub-agents is followed (Codex's deepest `agents.max_depth` is far less). */
const MAX_LINE = 32;

interface Known {
  parentThreadId: string | null;
  nickname: string | null;
}

export function trackLineage(client: HostClient, log: (line: string) => void): Lineage {
  const known = new Map<string, Known>();
  // An unloaded thread is forgotten (read again should it ask later), so the map stays as small as what runs.
  const stop = client.onNotification((n) => {
    if (n.method === 'thread/closed') known.delete(n.params.threadId);
    if (n.method !== 'thread/started') return;
    const t = n.params.thread;
    known.set(t.id, { parentThreadId: t.parentThreadId ?? null, nickname: t.agentNickname ?? null });
  });

  const lookUp = async (threadId: string): Promise<Known | null> => {
    const seen = known.get(threadId);
    if (seen) return seen;
    try {
      const { thread } = await client.request('thread/read', { threadId, includeTurns: false });
      const found = { parentThreadId: thread.parentThreadId ?? null, nickname: thread.agentNickname ?? null };
      known.set(threadId, found);
      return found;
    } catch (error) {
      log(`could not read thread ${threadId} to find who asks: ${errorMessage(error)}`);
      return null;
    }
  };

  return {
    async askingThread(threadId, holds) {
      if (holds(threadId)) return { threadId, subAgent: null };
      const asking = await lookUp(threadId);
      let parent = asking?.parentThreadId ?? null;
      for (let step = 0; parent !== null && step < MAX_LINE; step++) {
        if (holds(parent)) return { threadId: parent, subAgent: { threadId, nickname: asking?.nickname ?? null } };
        parent = (await lookUp(parent))?.parentThreadId ?? null;
      }
      return null;
    },
    dispose: stop,
  };
}

/** "Sub-agent Curie", as a request asked for a sub-agent is labelled. */
export function subAgentLabel(sub: SubAgentAsking): string {
  return sub.nickname ? `Sub-agent ${sub.nickname}` : `Sub-agent ${sub.threadId}`;
}
