// SubagentStart and SubagentStop, through the real `weft` binary with a real hook program, against what Codex
// 0.169 did for the same spawn-and-wait turn (test/fixtures/codex-hooks-0.169, by `scripts/codex-tools.mjs
// capture-agents --hooks-only`): the payloads' keys and order, which thread's turn and rollout each field
// names (subagent-payloads.json with the rollouts' turn ids in subagent-turns.json), and which thread and
// turn the app server tells the runs in (subagent-hook-runs.json).
import { readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scriptAgents } from '../support/agents-model';
import { useHooksHarness } from '../support/hooks-harness';

const FIXTURES = resolve(__dirname, '../fixtures/codex-hooks-0.169');
const h = useHooksHarness();

type Json = Record<string, unknown>;

/** A parent thread and its one sub-agent, with the ids of each one's turns. */
interface Threads {
  parent: string;
  child: string;
  turns: Record<'parent' | 'child', string[]>;
}

async function fixture<T>(name: string): Promise<T> {
  return JSON.parse(await readFile(join(FIXTURES, name), 'utf8')) as T;
}

/** A parent that spawns one sub-agent, waits for it and answers. */
function spawnAndWait(): void {
  scriptAgents(h.server, {
    parent: [
      () => ({ calls: [{ id: 'call_spawn', name: 'spawn_agent', args: { message: 'list the notes' } }] }),
      (ctx) => ({ calls: [{ id: 'call_wait', name: 'wait_agent', args: { targets: ctx.agents } }] }),
      () => ({ answer: 'The child listed them.' }),
    ],
    usage: { input_tokens: 10, output_tokens: 1 },
  });
}

const whoseThread = (id: unknown, t: Threads): string =>
  id === t.parent ? 'parent' : id === t.child ? 'child' : String(id);
const whoseTurn = (id: unknown, t: Threads): string =>
  t.turns.parent.includes(String(id)) ? 'parent turn' : t.turns.child.includes(String(id)) ? 'child turn' : String(id);
const whoseRollout = (path: unknown, t: Threads): string =>
  typeof path !== 'string'
    ? String(path)
    : path.endsWith(`-${t.parent}.jsonl`)
      ? 'parent rollout'
      : path.endsWith(`-${t.child}.jsonl`)
        ? 'child rollout'
        : path;

/** Which thread, turn and rollout each field of a payload names. */
function whose(payload: Json, t: Threads): Record<string, string> {
  return {
    event: String(payload['hook_event_name']),
    session_id: whoseThread(payload['session_id'], t),
    agent_id: whoseThread(payload['agent_id'], t),
    turn_id: whoseTurn(payload['turn_id'], t),
    transcript_path: whoseRollout(payload['transcript_path'], t),
    agent_transcript_path: whoseRollout(payload['agent_transcript_path'], t),
  };
}

const byEventThenMethod = (a: { event: unknown; method: string }, b: { event: unknown; method: string }): number =>
  `${String(a.event)} ${a.method}`.localeCompare(`${String(b.event)} ${b.method}`);

describe('SubagentStart and SubagentStop', () => {
  it('fire for a spawned sub-agent with its turn and rollouts, as Codex 0.169 gives them', async () => {
    await h.writeHooks([{ event: 'SubagentStart' }, { event: 'SubagentStop' }]);
    spawnAndWait();
    const run = await h.weft(['exec', '--json', '--dangerously-bypass-hook-trust', 'delegate the listing']);
    expect(run.code).toBe(0);
    const runs = await h.hooks.runs();
    expect(runs.map((r) => r.event).sort()).toEqual(['SubagentStart', 'SubagentStop']);
    const ours = runs.map((r) => r.payload);
    const start = ours.find((p) => p['hook_event_name'] === 'SubagentStart') ?? {};
    const stop = ours.find((p) => p['hook_event_name'] === 'SubagentStop') ?? {};
    const parentId = String(start['session_id']);
    const childId = String(start['agent_id']);
    const turnIdsOf = (threadId: string): string[] =>
      run.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { method: string; params: { threadId?: string; turn?: { id: string } } })
        .filter((n) => n.method === 'turn/started' && n.params.threadId === threadId)
        .map((n) => n.params.turn?.id ?? '');
    const rollouts = readdirSync(join(h.home.dir, 'sessions'), { recursive: true, encoding: 'utf8' });
    const rolloutOf = (threadId: string): string =>
      join(
        h.home.dir,
        'sessions',
        rollouts.find((f) => f.endsWith(`-${threadId}.jsonl`)) ?? `no rollout of ${threadId}`,
      );
    const [childTurn] = turnIdsOf(childId);
    const common = { cwd: start['cwd'], model: start['model'], permission_mode: start['permission_mode'] };
    expect(start).toEqual({
      session_id: parentId,
      turn_id: childTurn,
      transcript_path: rolloutOf(childId),
      hook_event_name: 'SubagentStart',
      ...common,
      agent_id: childId,
      agent_type: 'default',
    });
    expect(stop).toEqual({
      session_id: parentId,
      turn_id: childTurn,
      transcript_path: rolloutOf(parentId),
      agent_transcript_path: rolloutOf(childId),
      hook_event_name: 'SubagentStop',
      ...common,
      stop_hook_active: false,
      agent_id: childId,
      agent_type: 'default',
      last_assistant_message: 'ACK: list the notes',
    });

    const codex = await fixture<Json[]>('subagent-payloads.json');
    const codexTurns =
      await fixture<Record<'parent' | 'child', { threadId: string; turnIds: string[] }>>('subagent-turns.json');
    const keysOf = (event: string, payloads: Json[]) =>
      Object.keys(payloads.find((p) => p['hook_event_name'] === event) ?? {});
    for (const event of ['SubagentStart', 'SubagentStop'])
      expect({ event, keys: keysOf(event, ours) }).toEqual({ event, keys: keysOf(event, codex) });
    const codexThreads: Threads = {
      parent: codexTurns.parent.threadId,
      child: codexTurns.child.threadId,
      turns: { parent: codexTurns.parent.turnIds, child: codexTurns.child.turnIds },
    };
    const ourThreads: Threads = {
      parent: parentId,
      child: childId,
      turns: { parent: turnIdsOf(parentId), child: turnIdsOf(childId) },
    };
    const expected = [
      {
        event: 'SubagentStart',
        session_id: 'parent',
        agent_id: 'child',
        turn_id: 'child turn',
        transcript_path: 'child rollout',
        agent_transcript_path: 'undefined',
      },
      {
        event: 'SubagentStop',
        session_id: 'parent',
        agent_id: 'child',
        turn_id: 'child turn',
        transcript_path: 'parent rollout',
        agent_transcript_path: 'child rollout',
      },
    ];
    expect(codex.map((p) => whose(p, codexThreads))).toEqual(expected);
    expect([start, stop].map((p) => whose(p, ourThreads))).toEqual(expected);
  });

  it('are told in the sub-agent’s thread and turn by the app server, as Codex’s app server tells them', async () => {
    await h.writeHooks([{ event: 'SubagentStart' }, { event: 'SubagentStop' }]);
    const c = await h.client();
    await h.trustAll(c);
    spawnAndWait();
    const { thread } = await c.request<{ thread: { id: string } }>('thread/start', { cwd: h.ws.dir });
    await c.request('turn/start', {
      threadId: thread.id,
      input: [{ type: 'text', text: 'delegate the listing', text_elements: [] }],
    });
    await c.notification('turn/completed', (p) => p['threadId'] === thread.id);
    // Neither is waited for by the turns: each run's end is waited for here.
    for (const event of ['subagentStart', 'subagentStop'])
      await c.notification('hook/completed', (p) => (p['run'] as Json)['eventName'] === event);

    type Note = { method: string; params: Json };
    /**
     * The hook notifications, each with the thread and turn it is told in (the threads from turn/started), by
     * event then method: a SubagentStart run may end after the sub-agent's turn did.
     */
    const told = (notes: Note[], parent: string): unknown[] => {
      const started = notes.filter((n) => n.method === 'turn/started');
      const turnsOf = (id: string): string[] =>
        started.filter((n) => n.params['threadId'] === id).map((n) => String((n.params['turn'] as Json)['id']));
      const child = String(started.find((n) => n.params['threadId'] !== parent)?.params['threadId']);
      const t: Threads = { parent, child, turns: { parent: turnsOf(parent), child: turnsOf(child) } };
      return notes
        .filter((n) => n.method.startsWith('hook/'))
        .map((n) => {
          const run = n.params['run'] as Json;
          return {
            method: n.method,
            event: run['eventName'],
            status: run['status'],
            thread: whoseThread(n.params['threadId'], t),
            turn: whoseTurn(n.params['turnId'], t),
          };
        })
        .sort(byEventThenMethod);
    };
    const codex = await fixture<{ parentId: string; notifications: Note[] }>('subagent-hook-runs.json');
    const ours = c.received.flatMap((m): Note[] =>
      typeof m.method === 'string' && (m.method === 'turn/started' || m.method.startsWith('hook/'))
        ? [{ method: m.method, params: m.params as Json }]
        : [],
    );
    const expected = ['subagentStart', 'subagentStop']
      .flatMap((event) =>
        ['running', 'completed'].map((status) => ({
          method: status === 'running' ? 'hook/started' : 'hook/completed',
          event,
          status,
          thread: 'child',
          turn: 'child turn',
        })),
      )
      .sort(byEventThenMethod);
    expect(told(codex.notifications, codex.parentId)).toEqual(expected);
    expect(told(ours, thread.id)).toEqual(expected);
  });
});
