// A sub-agent's thread in the store: its parent, nickname, role and session tree come back from the rollout
// (read), from the index (list, filtered by source kind) and after the index is rebuilt; a fork of it is a
// thread of its own.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ThreadStore } from '../../../src-main/store';
import { uuidv7 } from '../../../src-main/util/ids';
import { ScriptedSession, fakeClock, meta, openStore, tempHome, type TempHome } from './helpers';

let tmp: TempHome;
let store: ThreadStore;
const clock = { now: fakeClock() };

beforeEach(async () => {
  tmp = await tempHome();
  clock.now = fakeClock();
  ({ store } = openStore(tmp.home, () => clock.now()));
  await store.whenIndexed();
});

afterEach(async () => {
  await store.close();
  await tmp.dispose();
});

async function saved(id: string, subAgent?: { parentThreadId: string; nickname: string; role: string | null }) {
  const { recorder } = store.createThread({
    ...meta(id),
    ...(subAgent ? { subAgent: { ...subAgent, sessionId: subAgent.parentThreadId, depth: 1 } } : {}),
  });
  const session = new ScriptedSession(id, recorder);
  await session.turn([{ type: 'text', text: `task of ${id}` }], 'completed', () => undefined);
  await recorder.close();
}

describe('sub-agent threads in the store', () => {
  it('keeps the parent, nickname, role and session tree through read, list and a rebuilt index', async () => {
    const parent = uuidv7(clock.now().getTime());
    const child = uuidv7(clock.now().getTime());
    await saved(parent);
    await saved(child, { parentThreadId: parent, nickname: 'Noether', role: 'reviewer' });
    const expected = {
      source: {
        subAgent: {
          thread_spawn: {
            parent_thread_id: parent,
            depth: 1,
            agent_path: null,
            agent_nickname: 'Noether',
            agent_role: 'reviewer',
          },
        },
      },
      sessionId: parent,
      parentThreadId: parent,
      agentNickname: 'Noether',
      agentRole: 'reviewer',
    };
    const fields = (t: Record<string, unknown>) => Object.fromEntries(Object.keys(expected).map((k) => [k, t[k]]));

    expect(fields((await store.readAsync(child, { includeTurns: false })).thread)).toEqual(expected);
    const listed = store.list({}).data;
    expect(listed.map((t) => t.id).sort()).toEqual([parent, child].sort());
    expect(fields(listed.find((t) => t.id === child) ?? {})).toEqual(expected);
    // The parent carries none of the sub-agent fields.
    const own = listed.find((t) => t.id === parent);
    expect(own && { source: own.source, sessionId: own.sessionId, parentThreadId: own.parentThreadId }).toEqual({
      source: 'appServer',
      sessionId: parent,
      parentThreadId: undefined,
    });
    for (const kinds of [['subAgentThreadSpawn'], ['subAgent']])
      expect(store.list({ sourceKinds: kinds }).data.map((t) => t.id)).toEqual([child]);
    expect(store.list({ sourceKinds: ['appServer'] }).data.map((t) => t.id)).toEqual([parent]);

    await store.reindex();
    expect(fields(store.list({ sourceKinds: ['subAgent'] }).data[0] ?? {})).toEqual(expected);
  });

  it('makes a fork of a sub-agent a thread of its own', async () => {
    const parent = uuidv7(clock.now().getTime());
    const child = uuidv7(clock.now().getTime());
    await saved(parent);
    await saved(child, { parentThreadId: parent, nickname: 'Noether', role: null });
    const fork = store.fork(child);
    await fork.recorder.close();
    const thread = (await store.readAsync(fork.threadId, { includeTurns: false })).thread;
    expect({
      source: thread.source,
      sessionId: thread.sessionId,
      parentThreadId: thread.parentThreadId,
      agentNickname: thread.agentNickname,
      forkedFromId: thread.forkedFromId,
    }).toEqual({
      source: 'appServer',
      sessionId: fork.threadId,
      parentThreadId: undefined,
      agentNickname: undefined,
      forkedFromId: child,
    });
  });
});
