// The board: each thread's state from what the server tells every client (statuses, read states, how turns
// ended) and the requests that reached this window; the other open projects' lists kept by the reducers;
// "Needs me" and the next thread that needs the person.
import { describe, expect, it } from 'vitest';
import { addServerRequest } from '../../../src-renderer/store/approvals';
import { boardState, needsYouCount, nextNeedingYou, threadsNeedingYou } from '../../../src-renderer/store/board';
import { reduceNotifications } from '../../../src-renderer/store/reduce';
import { emptyAppData, type AppData } from '../../../src-renderer/store/state';
import { setElsewhere, setList } from '../../../src-renderer/store/thread-list';
import { CWD, deepFreeze, makeThread, note } from './fixtures';

const OTHER = '/home/ada/other';
const unread = (turnId: string) => ({ firstUnread: { type: 'turn' as const, turnId }, revision: '3' });

/** The shown project with threads a, b, c, d listed, and another open project with e. */
function board(): AppData {
  let state: AppData = { ...emptyAppData(CWD), elsewhere: { [OTHER]: [] } };
  state = setList(state, 'live', [
    makeThread({ id: 'a', status: { type: 'notLoaded' }, weftLastTurnStatus: 'completed' }),
    makeThread({ id: 'b', status: { type: 'notLoaded' }, weftLastTurnStatus: 'failed', weftReadState: unread('t2') }),
    makeThread({
      id: 'c',
      status: { type: 'notLoaded' },
      weftLastTurnStatus: 'completed',
      weftReadState: unread('t3'),
    }),
    makeThread({
      id: 'd',
      status: { type: 'notLoaded' },
      weftLastTurnStatus: 'failed',
      weftReadState: { firstUnread: null, revision: '2' },
    }),
  ]);
  return deepFreeze(setElsewhere(state, OTHER, [makeThread({ id: 'e', cwd: OTHER, status: { type: 'notLoaded' } })]));
}

describe('board states', () => {
  it('reads each thread’s state from the lists: idle, failed and unread (needs you), done, failed and seen', () => {
    const state = board();
    expect(['a', 'b', 'c', 'd', 'e'].map((id) => boardState(state, id))).toEqual([
      { kind: 'idle', failed: false },
      { kind: 'needsYou', why: 'failed', step: null },
      { kind: 'done', ended: 'completed' },
      { kind: 'idle', failed: true },
      { kind: 'idle', failed: false },
    ]);
  });

  it('follows statuses, steps and read states told to every client, for threads this window never opened', () => {
    const command = { type: 'command' as const, command: 'npm test' };
    let state = reduceNotifications(board(), [
      note('thread/status/changed', { threadId: 'a', status: { type: 'active', activeFlags: [], weftStep: command } }),
      note('thread/status/changed', {
        threadId: 'e',
        status: { type: 'active', activeFlags: ['waitingOnApproval'], weftStep: command },
      }),
      note('thread/status/changed', { threadId: 'c', status: { type: 'active', activeFlags: ['waitingOnUserInput'] } }),
    ]);
    expect(['a', 'c', 'e'].map((id) => boardState(state, id))).toEqual([
      { kind: 'running', step: command },
      { kind: 'needsYou', why: 'question', step: null },
      { kind: 'needsYou', why: 'approval', step: command },
    ]);
    // Another project's thread counts there; "Needs me" lists the shown project's first.
    expect([needsYouCount(state, CWD), needsYouCount(state, OTHER)]).toEqual([2, 1]);
    expect(threadsNeedingYou(state, [CWD, OTHER]).map((t) => t.id)).toEqual(['b', 'c', 'e']);

    state = reduceNotifications(state, [
      note('thread/status/changed', { threadId: 'a', status: { type: 'idle' } }),
      note('turn/completed', { threadId: 'a', turn: { id: 't9', items: [], status: 'completed', error: null } }),
      note('thread/readState/changed', { threadId: 'a', readState: unread('t9') }),
      note('thread/readState/changed', { threadId: 'b', readState: { firstUnread: null, revision: '4' } }),
    ]);
    expect([boardState(state, 'a'), boardState(state, 'b')]).toEqual([
      { kind: 'done', ended: 'completed' },
      { kind: 'idle', failed: true },
    ]);
  });

  it('counts a request that reached this window as needing the person, whatever the status says yet', () => {
    const state = addServerRequest(board(), {
      id: 1,
      method: 'item/commandExecution/requestApproval',
      params: { threadId: 'a', turnId: 't1', itemId: 'c1', startedAtMs: 1_700_000_001_000, command: 'make', cwd: CWD },
    });
    expect(boardState(state, 'a')).toEqual({ kind: 'needsYou', why: 'approval', step: null });
  });

  it('goes to the next thread that needs the person, round the open projects, and says when there is none', () => {
    const state = reduceNotifications(board(), [
      note('thread/status/changed', { threadId: 'e', status: { type: 'active', activeFlags: ['waitingOnApproval'] } }),
    ]);
    const order = [CWD, OTHER];
    expect(nextNeedingYou(state, order, null)).toMatchObject({ thread: { id: 'b' }, project: CWD });
    expect(nextNeedingYou(state, order, 'b')).toMatchObject({ thread: { id: 'e' }, project: OTHER });
    expect(nextNeedingYou(state, order, 'e')).toMatchObject({ thread: { id: 'b' }, project: CWD });
    expect(nextNeedingYou(board(), order, 'b')).toBeNull();
  });
});

describe('the other open projects’ lists', () => {
  it('take in their new threads and changes, and lose their archived ones', () => {
    let state = reduceNotifications(board(), [
      note('thread/started', { thread: makeThread({ id: 'f', cwd: OTHER, updatedAt: 1_800_000_000 }) }),
      note('thread/started', {
        thread: makeThread({
          id: 'g',
          cwd: '/wt/other-g',
          updatedAt: 1_800_000_001,
          weftWorktree: { path: '/wt/other-g', branch: 'weft/g', baseRef: 'main', projectRoot: OTHER },
        }),
      }),
      note('thread/started', { thread: makeThread({ id: 'h', cwd: '/not/open' }) }),
      note('thread/name/updated', { threadId: 'e', name: 'Renamed' }),
    ]);
    expect(state.elsewhere[OTHER]?.map((t) => [t.id, t.name])).toEqual([
      ['g', null],
      ['f', null],
      ['e', 'Renamed'],
    ]);
    expect(state.live.map((t) => t.id)).toEqual(['a', 'b', 'c', 'd']);
    state = reduceNotifications(state, [note('thread/archived', { threadId: 'f' })]);
    expect(state.elsewhere[OTHER]?.map((t) => t.id)).toEqual(['g', 'e']);
    // A project no longer open takes no list.
    expect(setElsewhere(state, '/not/open', [makeThread({ id: 'x' })])).toBe(state);
  });
});
