import { describe, expect, it } from 'vitest';
import { conversationFromThread, keepingOlderTurns, withOlderTurns } from '../../../src-renderer/store/conversation';
import { createFrameBatcher } from '../../../src-renderer/store/frame-batcher';
import { readLocation, rememberProject, withLocation } from '../../../src-renderer/store/location';
import { reduceNotification } from '../../../src-renderer/store/reduce';
import { conversationRows } from '../../../src-renderer/store/rows';
import { addServerRequest, firstRequestFor } from '../../../src-renderer/store/approvals';
import { agentBadge, agentLabel, threadTitle, threadTree, workFolder } from '../../../src-renderer/store/selectors';
import { emptyAppData } from '../../../src-renderer/store/state';
import { agentMessage, CWD, makeThread, makeTurn, note, userMessage } from './fixtures';

describe('createFrameBatcher', () => {
  it('delivers everything pushed before a frame in one call, in order', () => {
    const frames: (() => void)[] = [];
    const delivered: number[][] = [];
    const batcher = createFrameBatcher<number>({ schedule: (cb) => (frames.push(cb), () => undefined) }, (v) =>
      delivered.push(v),
    );
    batcher.push(1);
    batcher.push(2);
    batcher.push(3);
    expect(frames).toHaveLength(1);
    expect(delivered).toEqual([]);
    frames[0]?.();
    batcher.push(4);
    batcher.flush();
    expect(delivered).toEqual([[1, 2, 3], [4]]);
  });

  it('drops the buffer and cancels the frame on dispose', () => {
    let cancelled = 0;
    const delivered: number[][] = [];
    const batcher = createFrameBatcher<number>({ schedule: () => () => (cancelled += 1) }, (v) => delivered.push(v));
    batcher.push(1);
    batcher.dispose();
    batcher.flush();
    expect(cancelled).toBe(1);
    expect(delivered).toEqual([]);
  });
});

describe('conversationRows', () => {
  it('lists each turn as its items and an end row, and keeps the same array while only text streams', () => {
    let state = reduceNotification(
      emptyAppData(CWD),
      note('thread/started', {
        thread: makeThread({
          turns: [makeTurn({ status: 'completed', items: [userMessage('u1'), agentMessage('a1', 'hi')] })],
        }),
      }),
    );
    state = reduceNotification(state, note('turn/started', { threadId: 'thr_1', turn: makeTurn({ id: 'turn_2' }) }));
    state = reduceNotification(
      state,
      note('item/started', {
        threadId: 'thr_1',
        turnId: 'turn_2',
        item: agentMessage('a2'),
        startedAtMs: 1_700_000_001_000,
      }),
    );
    const conversation = state.conversations.thr_1;
    if (conversation === undefined) throw new Error('no conversation');
    const first = conversationRows(conversation, null);
    expect(first.rows.map((r) => r.key)).toEqual(['turn_1/u1', 'turn_1/a1', 'turn_1/$end', 'turn_2/a2', 'turn_2/$end']);

    state = reduceNotification(
      state,
      note('item/agentMessage/delta', { threadId: 'thr_1', turnId: 'turn_2', itemId: 'a2', delta: 'x' }),
    );
    const streamed = state.conversations.thr_1;
    if (streamed === undefined) throw new Error('no conversation');
    expect(conversationRows(streamed, first)).toBe(first);
  });
});

describe('threadTree', () => {
  it('draws forks under their parent and keeps orphans at the top level', () => {
    const threads = [
      makeThread({ id: 'fork2', forkedFromId: 'root' }),
      makeThread({ id: 'root' }),
      makeThread({ id: 'nested', forkedFromId: 'fork2' }),
      makeThread({ id: 'orphan', forkedFromId: 'gone' }),
      makeThread({ id: 'fork1', forkedFromId: 'root' }),
    ];
    expect(threadTree(threads).map((n) => [n.thread.id, n.depth])).toEqual([
      ['root', 0],
      ['fork2', 1],
      ['nested', 2],
      ['fork1', 1],
      ['orphan', 0],
    ]);
  });
});

describe('sub-agents in the lists', () => {
  const child = (id: string, parent: string, nickname: string) =>
    makeThread({ id, parentThreadId: parent, agentNickname: nickname, agentRole: null, sessionId: parent });

  it('draws sub-agents under the thread that spawned them, beside its forks', () => {
    const threads = [
      child('kid', 'root', 'Ada'),
      makeThread({ id: 'root' }),
      makeThread({ id: 'fork', forkedFromId: 'root' }),
    ];
    expect(threadTree(threads).map((n) => [n.thread.id, n.depth])).toEqual([
      ['root', 0],
      ['kid', 1],
      ['fork', 1],
    ]);
  });

  it("says a sub-agent's state: running, waiting, failed, done, stopped or idle", () => {
    expect(agentBadge({ type: 'active', activeFlags: [] }, 'inProgress', false)).toBe('running');
    expect(agentBadge({ type: 'idle' }, 'inProgress', true)).toBe('waiting');
    expect(agentBadge({ type: 'idle' }, 'completed', false)).toBe('done');
    expect(agentBadge({ type: 'idle' }, 'interrupted', false)).toBe('stopped');
    expect(agentBadge({ type: 'notLoaded' }, undefined, false)).toBe('idle');
    expect(agentLabel({ agentNickname: 'Ada', agentRole: 'reviewer' }, 'x')).toBe('Ada (reviewer)');
    expect(agentLabel(undefined, '01a2-abcdef123456')).toBe('agent 123456');
  });

  it('lists a sub-agent announced by thread/started under its parent, and asks its approvals where the parent is shown', () => {
    let state = { ...emptyAppData(CWD), live: [makeThread({ id: 'root' })] };
    state = reduceNotification(state, { method: 'thread/started', params: { thread: child('kid', 'root', 'Ada') } });
    expect(threadTree(state.live).map((n) => [n.thread.id, n.depth])).toEqual([
      ['root', 0],
      ['kid', 1],
    ]);
    const approval = {
      id: 7,
      method: 'item/commandExecution/requestApproval' as const,
      params: { threadId: 'kid', turnId: 't', itemId: 'i', startedAtMs: 0, command: 'touch x', cwd: CWD },
    };
    state = addServerRequest(state, approval);
    expect(firstRequestFor(state, 'root')).toBe(approval);
    expect(firstRequestFor(state, 'kid')).toBe(approval);
    expect(firstRequestFor(state, 'other')).toBeNull();
  });
});

describe('thread display', () => {
  it('names a thread by its name, else the first line of its preview', () => {
    expect(threadTitle({ name: ' Build ', preview: 'x', forkedFromId: null })).toBe('Build');
    expect(threadTitle({ name: null, preview: 'Fix it\nplease', forkedFromId: null })).toBe('Fix it');
    expect(threadTitle({ name: '', preview: '', forkedFromId: null })).toBe('Untitled thread');
  });
});

describe('page location', () => {
  it('reads and writes the project and thread without touching the token', () => {
    const href = 'http://127.0.0.1:9/?token=t&cwd=%2Fa';
    expect(readLocation(href)).toEqual({ cwd: '/a', threadId: null });
    const next = withLocation(href, { cwd: '/b c', threadId: 'thr' });
    expect(readLocation(next)).toEqual({ cwd: '/b c', threadId: 'thr' });
    expect(new URL(next).searchParams.get('token')).toBe('t');
    expect(readLocation(withLocation(next, { cwd: '/b c', threadId: null })).threadId).toBeNull();
  });

  it('remembers recent projects most recent first, without duplicates', () => {
    const saved = new Map<string, string>();
    const storage = {
      getItem: (k: string) => saved.get(k) ?? null,
      setItem: (k: string, v: string) => void saved.set(k, v),
    };
    const list = rememberProject(storage, ['/a', '/b'], '/b');
    expect(list).toEqual(['/b', '/a']);
    expect(saved.get('weft.recentProjects')).toBe('["/b","/a"]');
  });
});

describe('older turns of a long thread', () => {
  const turn = (n: number) => makeTurn({ id: `t${n}`, items: [userMessage(`u${n}`, `question ${n}`)] });
  const thread = (from: number, to: number) =>
    makeThread({ id: 'th', turns: Array.from({ length: to - from }, (_, i) => turn(from + i)) });

  it('puts a page before the first turn, with the next cursor, and a control row while older ones remain', () => {
    const newest = conversationFromThread(thread(5, 8), 'c5');
    expect(conversationRows(newest, null).rows[0]).toEqual({ kind: 'older', key: '$older' });
    const more = withOlderTurns(newest, [turn(3), turn(4), turn(5)], 'c3');
    expect(more.turnIds).toEqual(['t3', 't4', 't5', 't6', 't7']);
    expect(more.turns['t5']).toBe(newest.turns['t5']);
    expect(more.olderTurnsCursor).toBe('c3');
    expect(more.shape).toBe(newest.shape + 1);
    const all = withOlderTurns(more, [turn(0), turn(1), turn(2)], null);
    const rows = conversationRows(all, null).rows;
    expect(rows[0]).toEqual({ kind: 'item', key: 't0/u0', turnId: 't0', itemId: 'u0' });
    expect(rows.filter((r) => r.kind === 'older')).toEqual([]);
  });

  it('keeps the older turns already loaded when the thread is read again, and their cursor', () => {
    const shown = withOlderTurns(conversationFromThread(thread(5, 8), 'c5'), [turn(3), turn(4)], 'c3');
    const again = keepingOlderTurns(conversationFromThread(thread(5, 9), 'c5'), shown);
    expect(again.turnIds).toEqual(['t3', 't4', 't5', 't6', 't7', 't8']);
    expect(again.olderTurnsCursor).toBe('c3');
    // A thread read whole (no cursor), or one that no longer starts with a turn shown, is taken as it is.
    expect(keepingOlderTurns(conversationFromThread(thread(0, 9)), shown).turnIds).toHaveLength(9);
    expect(keepingOlderTurns(conversationFromThread(thread(20, 22), 'c20'), shown).turnIds).toEqual(['t20', 't21']);
  });
});

describe('workFolder', () => {
  it('is the open thread’s folder when it works in a worktree of its own, else the project’s', () => {
    const local = makeThread({ id: 'local' });
    const worktree = makeThread({
      id: 'wt',
      cwd: '/worktrees/p-1/abc123/pkg',
      weftWorktree: { path: '/worktrees/p-1/abc123', branch: 'weft/abc123', baseRef: 'main', projectRoot: CWD },
    });
    const data = { ...emptyAppData(CWD), live: [local, worktree] };
    expect([null, 'local', 'wt', 'unknown'].map((id) => workFolder(data, id))).toEqual([
      CWD,
      CWD,
      '/worktrees/p-1/abc123/pkg',
      CWD,
    ]);
  });

  it('names a worktree of a thread on an environment with the environment', () => {
    const there = makeThread({
      id: 'there',
      cwd: '/worktrees/p-1/def456',
      weftEnvironment: 'box',
      weftWorktree: { path: '/worktrees/p-1/def456', branch: 'weft/def456', baseRef: 'main', projectRoot: CWD },
    });
    const data = { ...emptyAppData(`box:${CWD}`), live: [there] };
    expect([null, 'there'].map((id) => workFolder(data, id))).toEqual([`box:${CWD}`, 'box:/worktrees/p-1/def456']);
  });
});
