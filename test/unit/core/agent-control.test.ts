// AgentControl on its own, with a host whose sub-agent sessions the test drives: the depth limit
// (`agents.max_depth`, Codex's words when it is passed) and a sub-agent's tokens counted once in its
// parent's total, its own sub-agents' included, however often its total is told again.
import { describe, expect, it } from 'vitest';
import type { ServerNotification, TokenUsageBreakdown, Turn } from '../../../src-preload/protocol';
import { AgentCallError, AgentControl } from '../../../src-main/core/agents/control';
import type { AgentSession, ParentLink, SubAgentHost, SubAgentSpec } from '../../../src-main/core/agents/types';

const usage = (input: number, output: number): TokenUsageBreakdown => ({
  totalTokens: input + output,
  inputTokens: input,
  cachedInputTokens: 0,
  outputTokens: output,
  reasoningOutputTokens: 0,
});

class FakeSession implements AgentSession {
  activeTurnId: string | null = null;
  transcriptPath = null;
  tokenUsage: { total: TokenUsageBreakdown } | null = null;
  contextRef = null;
  private readonly listeners = new Set<(n: ServerNotification) => void>();
  constructor(readonly threadId: string) {}
  startTurn(): Promise<Turn> {
    return Promise.resolve({
      id: 'turn-1',
      items: [],
      status: 'inProgress',
      error: null,
      startedAt: null,
      completedAt: null,
      durationMs: null,
    });
  }
  interrupt(): Promise<void> {
    return Promise.resolve();
  }
  emit(): void {
    // Only hook runs are told through it, and these tests configure no hooks.
  }
  subscribe(listener: (n: ServerNotification) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  appendHistory(): void {}
  /** Tells the controller the thread's total is now `total`. */
  used(total: TokenUsageBreakdown): void {
    this.tokenUsage = { total };
    for (const listener of this.listeners)
      listener({
        method: 'thread/tokenUsage/updated',
        params: {
          threadId: this.threadId,
          turnId: 'turn-1',
          tokenUsage: { total, last: total, modelContextWindow: null },
        },
      });
  }
}

function control(depth: number, maxDepth: number) {
  const counted: TokenUsageBreakdown[] = [];
  const specs: SubAgentSpec[] = [];
  const sessions: FakeSession[] = [];
  const parent: ParentLink = {
    threadId: 'parent',
    sessionId: 'root',
    depth,
    settings: () => ({
      cwd: '/work',
      model: 'mock-model',
      effort: null,
      summary: null,
      approvalPolicy: 'never',
      sandboxPolicy: { type: 'readOnly' },
      questions: true,
    }),
    history: () => [],
    contextRef: () => null,
    addModelInput: () => undefined,
    addChildUsage: (u) => counted.push(u),
  };
  const host: SubAgentHost = {
    create: (spec) => {
      specs.push(spec);
      const session = new FakeSession(spec.threadId);
      sessions.push(session);
      return Promise.resolve(session);
    },
    reopen: () => Promise.resolve(null),
    release: () => Promise.resolve(),
  };
  const agents = new AgentControl({ parent, host, maxThreads: 6, maxDepth, roles: {} });
  return { agents, counted, specs, sessions };
}

const request = {
  input: [{ type: 'text' as const, text: 'go', text_elements: [] }],
  role: null,
  model: null,
  effort: null,
  forkContext: false,
};

describe('AgentControl', () => {
  it('spawns below the parent in its tree while within max_depth, and refuses past it as Codex does', async () => {
    const within = control(1, 2);
    await within.agents.spawn(request);
    expect(within.specs.map((s) => ({ depth: s.depth, sessionId: s.sessionId, parent: s.parentThreadId }))).toEqual([
      { depth: 2, sessionId: 'root', parent: 'parent' },
    ]);
    const past = control(2, 2);
    await expect(past.agents.spawn(request)).rejects.toEqual(
      new AgentCallError('Agent depth limit reached. Solve the task yourself.'),
    );
    expect(past.specs).toEqual([]);
  });

  it("counts what a sub-agent's total grew by, once, however often it is told", async () => {
    const { agents, counted, sessions } = control(0, 2);
    await agents.spawn(request);
    const child = sessions[0];
    if (child === undefined) throw new Error('no sub-agent was made');
    child.used(usage(100, 10));
    // Told again (a client subscribed), then grown by its own sub-agent's 40 + 4.
    child.used(usage(100, 10));
    child.used(usage(140, 14));
    expect(counted).toEqual([usage(100, 10), usage(40, 4)]);
  });
});
