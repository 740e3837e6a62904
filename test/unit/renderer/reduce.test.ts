import { describe, expect, it } from 'vitest';
import { ServerNotifications } from '../../../src-preload/protocol';
import type { ServerNotification, ServerNotificationMethod, ThreadItem } from '../../../src-preload/protocol';
import { addServerRequest } from '../../../src-renderer/store/approvals';
import { reduceNotification, reduceNotifications } from '../../../src-renderer/store/reduce';
import { emptyAppData, OUTPUT_TAIL_CHARS } from '../../../src-renderer/store/state';
import type { AppData } from '../../../src-renderer/store/state';
import { setElsewhere, setList } from '../../../src-renderer/store/thread-list';
import { outputText } from '../../../src-renderer/store/output-tail';
import { conversationRows } from '../../../src-renderer/store/rows';
import { agentMessage, command, CWD, deepFreeze, makeThread, makeTurn, note, reasoning, userMessage } from './fixtures';

const T = 'thr_1';
const TURN = 'turn_1';
const where = { threadId: T, turnId: TURN };

/** A state with thread T listed and loaded, with one running turn. */
function withRunningTurn(): AppData {
  let state = setList(emptyAppData(CWD), 'live', [makeThread()]);
  state = reduceNotification(state, note('thread/started', { thread: makeThread() }));
  return reduceNotification(state, note('turn/started', { threadId: T, turn: makeTurn() }));
}

function run(state: AppData, notifications: ServerNotification[]): AppData {
  return notifications.reduce(reduceNotification, state);
}

const usage = { totalTokens: 10, inputTokens: 8, cachedInputTokens: 0, outputTokens: 2, reasoningOutputTokens: 0 };

const DELTAS = new Set<ServerNotificationMethod>([
  'item/agentMessage/delta',
  'item/reasoning/summaryTextDelta',
  'item/reasoning/textDelta',
  'item/commandExecution/outputDelta',
]);

function hookRun(status: 'running' | 'completed') {
  return {
    id: 'pre-tool-use:0:/home/dev/.weft/hooks.json:call_1',
    eventName: 'preToolUse' as const,
    handlerType: 'command' as const,
    executionMode: 'sync' as const,
    scope: 'turn' as const,
    sourcePath: '/home/dev/.weft/hooks.json',
    source: 'user' as const,
    displayOrder: 0,
    status,
    startedAt: 1,
    entries: [],
  };
}

/** One sample of every notification kind, in an order that makes sense for thread T. */
const samples: { [M in ServerNotificationMethod]: ServerNotification } = {
  'thread/started': note('thread/started', { thread: makeThread() }),
  'thread/status/changed': note('thread/status/changed', { threadId: T, status: { type: 'active', activeFlags: [] } }),
  'thread/name/updated': note('thread/name/updated', { threadId: T, name: 'Build fix' }),
  'thread/readState/changed': note('thread/readState/changed', {
    threadId: T,
    readState: { firstUnread: { type: 'turn', turnId: 'turn_1' }, revision: '1' },
  }),
  'thread/tokenUsage/updated': note('thread/tokenUsage/updated', {
    ...where,
    tokenUsage: { total: usage, last: usage, modelContextWindow: 1000 },
  }),
  'turn/started': note('turn/started', { threadId: T, turn: makeTurn() }),
  'item/started': note('item/started', { ...where, startedAtMs: 1_700_000_001_000, item: agentMessage('m1') }),
  'item/agentMessage/delta': note('item/agentMessage/delta', { ...where, itemId: 'm1', delta: 'Hi' }),
  'item/reasoning/summaryPartAdded': note('item/reasoning/summaryPartAdded', {
    ...where,
    itemId: 'r1',
    summaryIndex: 0,
  }),
  'item/reasoning/summaryTextDelta': note('item/reasoning/summaryTextDelta', {
    ...where,
    itemId: 'r1',
    delta: 'think',
    summaryIndex: 0,
  }),
  'item/reasoning/textDelta': note('item/reasoning/textDelta', {
    ...where,
    itemId: 'r1',
    delta: 'raw',
    contentIndex: 0,
  }),
  'item/commandExecution/outputDelta': note('item/commandExecution/outputDelta', {
    ...where,
    itemId: 'c1',
    delta: 'ok\n',
  }),
  'item/fileChange/outputDelta': note('item/fileChange/outputDelta', { ...where, itemId: 'f1', delta: 'Success' }),
  'item/completed': note('item/completed', {
    ...where,
    completedAtMs: 1_700_000_002_000,
    item: agentMessage('m1', 'Hi'),
  }),
  'turn/diff/updated': note('turn/diff/updated', { ...where, diff: '--- a/x\n+++ b/x\n' }),
  'weft/turn/diffChanged': note('weft/turn/diffChanged', { ...where, files: 1 }),
  'turn/plan/updated': note('turn/plan/updated', {
    ...where,
    explanation: null,
    plan: [{ step: 'Read', status: 'completed' }],
  }),
  'hook/started': note('hook/started', { ...where, run: hookRun('running') }),
  'hook/completed': note('hook/completed', { ...where, run: hookRun('completed') }),
  error: note('error', { ...where, error: { message: 'stream dropped; retrying 1/5' }, willRetry: true }),
  warning: note('warning', { message: 'Sandbox unavailable' }),
  'serverRequest/resolved': note('serverRequest/resolved', { threadId: T, requestId: 7 }),
  'turn/completed': note('turn/completed', {
    threadId: T,
    turn: makeTurn({ status: 'completed', durationMs: 1200, completedAt: 1_700_000_102 }),
  }),
  'thread/reverted': note('thread/reverted', { threadId: T, weftBeforeTurnId: TURN, weftTurnIds: [TURN] }),
  'thread/archived': note('thread/archived', { threadId: T }),
  'thread/unarchived': note('thread/unarchived', { threadId: T }),
  'thread/closed': note('thread/closed', { threadId: T }),
  'item/mcpToolCall/progress': note('item/mcpToolCall/progress', { ...where, itemId: 'x1', message: '1/5' }),
  'mcpServer/startupStatus/updated': note('mcpServer/startupStatus/updated', {
    threadId: T,
    name: 'docs',
    status: 'failed',
    error: 'exited',
  }),
  'command/exec/outputDelta': note('command/exec/outputDelta', {
    processId: 'term-1',
    stream: 'stdout',
    deltaBase64: 'aGk=',
    capReached: false,
  }),
  'weft/git/progress': note('weft/git/progress', { progressId: 'p1', line: 'Writing objects: 100%' }),
  'weft/browser/live/frame': note('weft/browser/live/frame', {
    threadId: T,
    data: '/9j/',
    width: 1280,
    height: 800,
    url: 'http://localhost:5173/',
  }),
  'weft/browser/live/closed': note('weft/browser/live/closed', { threadId: T }),
  'mcpServer/oauthLogin/completed': note('mcpServer/oauthLogin/completed', { name: 'docs', success: true }),
  'weft/threads/indexed': note('weft/threads/indexed', {}),
  'weft/thread/turnsRestored': note('weft/thread/turnsRestored', { threadId: 't1', turnIds: ['u1'] }),
  'weft/environment/status': note('weft/environment/status', {
    environment: 'box',
    state: 'reconnecting',
    attempt: 1,
    message: 'ssh exited',
  }),
  'weft/environment/install/progress': note('weft/environment/install/progress', {
    environment: 'box',
    stage: 'install',
    message: 'Installing with npm on box…',
  }),
  'weft/automations/runEnded': note('weft/automations/runEnded', {
    automationRun: {
      automationId: 'nightly',
      automationName: 'Nightly',
      project: '/home/dev/p',
      environment: 'worktree',
      run: {
        runId: 'run-1',
        trigger: 'schedule',
        slot: 1,
        startedAt: 1,
        endedAt: 2,
        status: 'completed',
        threadId: T,
        worktree: '/home/dev/.weft/worktrees/p-1',
        environment: null,
        reason: null,
        finalMessage: 'done',
        turnId: 'turn_1',
        changedFiles: 1,
        cost: null,
        commands: [],
        seen: false,
        decision: null,
      },
    },
    notify: true,
  }),
};

describe('reduceNotification', () => {
  it('has a sample for every notification of the protocol', () => {
    expect(Object.keys(samples).sort()).toEqual(Object.keys(ServerNotifications).sort());
  });

  it('never mutates the state it is given, and a repeated snapshot notification changes nothing', () => {
    let state = deepFreeze(withRunningTurn());
    state = reduceNotification(
      state,
      note('item/started', { ...where, startedAtMs: 1_700_000_001_000, item: reasoning('r1') }),
    );
    state = reduceNotification(
      state,
      note('item/started', { ...where, startedAtMs: 1_700_000_001_000, item: command('c1') }),
    );
    state = deepFreeze(
      addServerRequest(state, {
        id: 7,
        method: 'item/fileChange/requestApproval',
        params: { threadId: T, turnId: TURN, itemId: 'f1', startedAtMs: 1_700_000_001_000 },
      }),
    );
    for (const notification of Object.values(samples)) {
      const once = deepFreeze(reduceNotification(state, notification));
      // A delta to an open item appends by nature; its replay is covered once the item completed (below).
      if (!DELTAS.has(notification.method))
        expect(reduceNotification(once, notification), notification.method).toBe(once);
      state = once;
    }
  });

  it('ignores every kind of delta once its item completed, so replaying a finished stream changes nothing', () => {
    const stream = [
      note('item/started', { ...where, startedAtMs: 1_700_000_001_000, item: reasoning('r1') }),
      note('item/started', { ...where, startedAtMs: 1_700_000_001_000, item: command('c1') }),
      note('item/started', { ...where, startedAtMs: 1_700_000_001_000, item: agentMessage('m1') }),
      ...[...DELTAS].map((method) => samples[method]),
      note('item/completed', { ...where, completedAtMs: 1_700_000_002_000, item: reasoning('r1', ['think'], ['raw']) }),
      note('item/completed', {
        ...where,
        completedAtMs: 1_700_000_002_000,
        item: command('c1', { status: 'completed', aggregatedOutput: 'ok\n', exitCode: 0 }),
      }),
      note('item/completed', { ...where, completedAtMs: 1_700_000_002_000, item: agentMessage('m1', 'Hi') }),
    ];
    const once = deepFreeze(run(withRunningTurn(), stream));
    expect(run(once, stream)).toBe(once);
  });

  it('streams an agent message and keeps the completed text over late or replayed deltas', () => {
    const stream = [
      note('item/started', { ...where, startedAtMs: 1_700_000_001_000, item: agentMessage('m1') }),
      note('item/agentMessage/delta', { ...where, itemId: 'm1', delta: 'Hel' }),
      note('item/agentMessage/delta', { ...where, itemId: 'm1', delta: 'lo' }),
      note('item/completed', {
        ...where,
        completedAtMs: 1_700_000_002_000,
        item: { type: 'agentMessage', id: 'm1', text: 'Hello', phase: 'final_answer' },
      }),
    ];
    const once = run(withRunningTurn(), stream);
    const turn = once.conversations[T]?.turns[TURN];
    expect(turn?.itemIds).toEqual(['m1']);
    expect(turn?.items.m1).toEqual({
      item: { type: 'agentMessage', id: 'm1', text: 'Hello', phase: 'final_answer' },
      completed: true,
      output: null,
    });
    expect(run(once, stream)).toBe(once);
  });

  it('shows the partial text while streaming', () => {
    const state = run(withRunningTurn(), [
      note('item/started', { ...where, startedAtMs: 1_700_000_001_000, item: agentMessage('m1') }),
      note('item/agentMessage/delta', { ...where, itemId: 'm1', delta: 'Hel' }),
    ]);
    expect(state.conversations[T]?.turns[TURN]?.items.m1?.item).toEqual({
      type: 'agentMessage',
      id: 'm1',
      text: 'Hel',
      phase: null,
    });
    expect(state.conversations[T]?.turns[TURN]?.items.m1?.completed).toBe(false);
  });

  it('builds reasoning summaries and raw content part by part', () => {
    const state = run(withRunningTurn(), [
      note('item/started', { ...where, startedAtMs: 1_700_000_001_000, item: reasoning('r1') }),
      note('item/reasoning/summaryTextDelta', { ...where, itemId: 'r1', delta: 'Look', summaryIndex: 0 }),
      note('item/reasoning/summaryTextDelta', { ...where, itemId: 'r1', delta: 'ing', summaryIndex: 0 }),
      note('item/reasoning/summaryPartAdded', { ...where, itemId: 'r1', summaryIndex: 1 }),
      note('item/reasoning/summaryTextDelta', { ...where, itemId: 'r1', delta: 'Then', summaryIndex: 1 }),
      note('item/reasoning/textDelta', { ...where, itemId: 'r1', delta: 'raw', contentIndex: 0 }),
    ]);
    expect(state.conversations[T]?.turns[TURN]?.items.r1?.item).toEqual({
      type: 'reasoning',
      id: 'r1',
      summary: ['Looking', 'Then'],
      content: ['raw'],
    });
  });

  it('keeps the latest progress of a running MCP call, and none once it has ended', () => {
    const mcp: ThreadItem = {
      type: 'mcpToolCall',
      id: 'x1',
      server: 'docs',
      tool: 'index',
      status: 'inProgress',
      arguments: {},
      result: null,
      error: null,
      durationMs: null,
    };
    let state = reduceNotification(
      withRunningTurn(),
      note('item/started', { ...where, startedAtMs: 1_700_000_001_000, item: mcp }),
    );
    const entry = (s: AppData) => s.conversations[T]?.turns[TURN]?.items['x1'];
    expect(entry(state)?.progress ?? null).toBeNull();
    state = run(state, [
      note('item/mcpToolCall/progress', {
        ...where,
        itemId: 'x1',
        message: '1/4 Reading',
        weftProgress: 1,
        weftTotal: 4,
      }),
      note('item/mcpToolCall/progress', {
        ...where,
        itemId: 'x1',
        message: '3/4 Writing',
        weftProgress: 3,
        weftTotal: 4,
      }),
    ]);
    expect(entry(state)?.progress).toEqual({ message: '3/4 Writing', progress: 3, total: 4 });
    // A server without numbers still shows its message.
    state = reduceNotification(
      state,
      note('item/mcpToolCall/progress', { ...where, itemId: 'x1', message: 'almost there' }),
    );
    expect(entry(state)?.progress).toEqual({ message: 'almost there', progress: null, total: null });
    state = reduceNotification(
      state,
      note('item/completed', {
        ...where,
        completedAtMs: 1_700_000_002_000,
        item: { ...mcp, status: 'completed', durationMs: 5 },
      }),
    );
    expect(entry(state)?.progress ?? null).toBeNull();
    // Late progress for the ended call changes nothing.
    const after = reduceNotification(
      state,
      note('item/mcpToolCall/progress', { ...where, itemId: 'x1', message: '4/4', weftProgress: 4, weftTotal: 4 }),
    );
    expect(after).toBe(state);
  });

  it('keeps a bounded tail of command output and counts every character', () => {
    // 10 deltas of 64 KB: the tail keeps the last 256 KB, whole chunks dropped from the front.
    let state = reduceNotification(
      withRunningTurn(),
      note('item/started', { ...where, startedAtMs: 1_700_000_001_000, item: command('c1') }),
    );
    const chunk = 'x'.repeat(64 * 1024);
    const deltas = Array.from({ length: 10 }, (_, i) =>
      note('item/commandExecution/outputDelta', { ...where, itemId: 'c1', delta: chunk.slice(1) + String(i) }),
    );
    state = reduceNotifications(state, deltas);
    const output = state.conversations[T]?.turns[TURN]?.items.c1?.output;
    expect(output?.total).toBe(10 * chunk.length);
    const text = output === null || output === undefined ? '' : outputText(output);
    expect(output?.kept).toBe(OUTPUT_TAIL_CHARS);
    expect(text.length).toBe(OUTPUT_TAIL_CHARS);
    expect(text.endsWith('9')).toBe(true);
    expect(text.startsWith('x'.repeat(10))).toBe(true);
    expect(output?.epoch).toBe(0);
  });

  it('keeps streamed output when the completed command matches it, and replaces it when not', () => {
    const started = run(withRunningTurn(), [
      note('item/started', { ...where, startedAtMs: 1_700_000_001_000, item: command('c1') }),
      note('item/commandExecution/outputDelta', { ...where, itemId: 'c1', delta: 'ok\n' }),
    ]);
    const before = started.conversations[T]?.turns[TURN]?.items.c1?.output;
    const matching = reduceNotification(
      started,
      note('item/completed', {
        ...where,
        completedAtMs: 1_700_000_002_000,
        item: command('c1', { status: 'completed', aggregatedOutput: 'ok\n', exitCode: 0, durationMs: 5 }),
      }),
    );
    const entry = matching.conversations[T]?.turns[TURN]?.items.c1;
    expect(entry?.output).toBe(before);
    expect(entry?.item).toEqual(
      command('c1', { status: 'completed', aggregatedOutput: null, exitCode: 0, durationMs: 5 }),
    );
    const differing = reduceNotification(
      started,
      note('item/completed', {
        ...where,
        completedAtMs: 1_700_000_002_000,
        item: command('c1', { status: 'failed', aggregatedOutput: 'other', exitCode: 1 }),
      }),
    );
    expect(differing.conversations[T]?.turns[TURN]?.items.c1?.output).toEqual({
      chunks: ['other'],
      kept: 5,
      total: 5,
      epoch: 1,
    });
  });

  it('ignores deltas for items it does not know and for threads not loaded', () => {
    const state = withRunningTurn();
    expect(reduceNotification(state, note('item/agentMessage/delta', { ...where, itemId: 'nope', delta: 'x' }))).toBe(
      state,
    );
    expect(
      reduceNotification(
        state,
        note('item/agentMessage/delta', { threadId: 'other', turnId: TURN, itemId: 'm1', delta: 'x' }),
      ),
    ).toBe(state);
    expect(
      reduceNotification(
        state,
        note('item/started', { threadId: 'other', turnId: TURN, startedAtMs: 1_700_000_001_000, item: agentMessage() }),
      ),
    ).toBe(state);
  });

  it('takes the completed turn as authoritative and clears retry notices', () => {
    let state = run(withRunningTurn(), [
      note('item/started', { ...where, startedAtMs: 1_700_000_001_000, item: userMessage('u1') }),
      note('error', { ...where, error: { message: 'Reconnecting 1/5' }, willRetry: true }),
      note('error', { ...where, error: { message: 'Reconnecting 2/5' }, willRetry: true }),
    ]);
    expect(state.conversations[T]?.turns[TURN]?.notices).toEqual([
      { kind: 'retry', message: 'Reconnecting 2/5', details: null },
    ]);
    state = reduceNotification(
      state,
      note('error', { ...where, error: { message: 'Quota exceeded', additionalDetails: 'Upgrade' }, willRetry: false }),
    );
    state = reduceNotification(
      state,
      note('turn/completed', {
        threadId: T,
        turn: makeTurn({
          status: 'failed',
          error: { message: 'Quota exceeded' },
          items: [userMessage('u1'), agentMessage('m2', 'partial')],
          durationMs: 900,
        }),
      }),
    );
    const turn = state.conversations[T]?.turns[TURN];
    expect(turn?.status).toBe('failed');
    expect(turn?.itemIds).toEqual(['u1', 'm2']);
    expect(turn?.items.m2?.completed).toBe(true);
    expect(turn?.notices).toEqual([{ kind: 'error', message: 'Quota exceeded', details: 'Upgrade' }]);
    expect(state.lastTurnStatus[T]).toBe('failed');
  });

  it('keeps each hook run of a turn, its completion replacing its start, and the turn’s end keeps them', () => {
    const started = hookRun('running');
    const blocked = {
      ...hookRun('completed'),
      status: 'blocked' as const,
      entries: [{ kind: 'feedback' as const, text: 'no' }],
    };
    const state = run(withRunningTurn(), [
      note('hook/started', { ...where, run: started }),
      note('hook/completed', { ...where, run: blocked }),
      note('turn/completed', { threadId: T, turn: makeTurn({ status: 'completed' }) }),
    ]);
    expect(state.conversations[T]?.turns[TURN]?.hooks).toEqual([{ run: blocked, afterItemId: null }]);
  });

  it('places each hook run after the item that started last before it, as a row of its own', () => {
    const pre = { ...hookRun('running'), id: 'pre-tool-use:0:/h.json:c1' };
    const post = { ...hookRun('running'), id: 'post-tool-use:1:/h.json:c1', eventName: 'postToolUse' as const };
    const stop = { ...hookRun('running'), id: 'stop:2:/h.json', eventName: 'stop' as const };
    const done = <R extends { status: string }>(r: R) => ({ ...r, status: 'completed' as const, durationMs: 5 });
    const live = run(withRunningTurn(), [
      note('item/started', { ...where, item: userMessage('u1'), startedAtMs: 1 }),
      note('item/started', { ...where, item: agentMessage('m1', 'Running it'), startedAtMs: 2 }),
      note('hook/started', { ...where, run: pre }),
      note('hook/completed', { ...where, run: done(pre) }),
      note('item/started', { ...where, item: command('c1'), startedAtMs: 3 }),
      note('hook/started', { ...where, run: post }),
      note('hook/completed', { ...where, run: done(post) }),
      note('item/started', { ...where, item: agentMessage('m2', 'Done'), startedAtMs: 4 }),
      // Stop runs twice (a Stop hook continued the turn): two runs of one hook, two entries.
      note('hook/started', { ...where, run: stop }),
      note('hook/completed', { ...where, run: { ...done(stop), status: 'blocked' as const } }),
      note('item/started', { ...where, item: agentMessage('m3', 'Tests pass'), startedAtMs: 5 }),
      note('hook/started', { ...where, run: stop }),
      note('hook/completed', { ...where, run: done(stop) }),
    ]);
    const turn = live.conversations[T]?.turns[TURN];
    expect(turn?.hooks).toEqual([
      { run: done(pre), afterItemId: 'm1' },
      { run: done(post), afterItemId: 'c1' },
      { run: { ...done(stop), status: 'blocked' }, afterItemId: 'm2' },
      { run: done(stop), afterItemId: 'm3' },
    ]);
    const conversation = live.conversations[T];
    if (conversation === undefined) throw new Error('no conversation');
    expect(conversationRows(conversation, null).rows.map((r) => r.key)).toEqual([
      `${TURN}/u1`,
      `${TURN}/m1`,
      `${TURN}/$hook/0`,
      `${TURN}/c1`,
      `${TURN}/$hook/1`,
      `${TURN}/m2`,
      `${TURN}/$hook/2`,
      `${TURN}/m3`,
      `${TURN}/$hook/3`,
      `${TURN}/$end`,
    ]);

    // The same thread read from disk (its recorded runs in Turn.weftHookRuns) shows the same runs, placed alike.
    const read = run(setList(emptyAppData(CWD), 'live', [makeThread()]), [
      note('thread/started', {
        thread: makeThread({
          turns: [
            makeTurn({
              status: 'completed',
              items: [
                userMessage('u1'),
                agentMessage('m1', 'Running it'),
                command('c1'),
                agentMessage('m2', 'Done'),
                agentMessage('m3', 'Tests pass'),
              ],
              weftHookRuns: turn?.hooks,
            }),
          ],
        }),
      }),
    ]);
    expect(read.conversations[T]?.turns[TURN]?.hooks).toEqual(turn?.hooks);
  });

  it('keeps the latest plan and diff of a turn', () => {
    const state = run(withRunningTurn(), [
      note('turn/plan/updated', { ...where, explanation: 'First', plan: [{ step: 'a', status: 'inProgress' }] }),
      note('turn/plan/updated', {
        ...where,
        plan: [
          { step: 'a', status: 'completed' },
          { step: 'b', status: 'pending' },
        ],
      }),
      note('turn/diff/updated', {
        ...where,
        diff: 'one',
        weftDiffCut: { files: 1, hunks: 9, shownHunks: 1, added: 9, removed: 9 },
      }),
      note('turn/diff/updated', { ...where, diff: 'two' }),
    ]);
    const turn = state.conversations[T]?.turns[TURN];
    expect(turn?.plan).toEqual({
      explanation: null,
      steps: [
        { step: 'a', status: 'completed' },
        { step: 'b', status: 'pending' },
      ],
    });
    expect(turn?.diff).toBe('two');
    // The later diff came whole: the earlier one's totals went with it.
    expect(turn?.diffCut).toBeNull();
  });

  it('keeps the totals of a cut diff beside it', () => {
    const cut = { files: 2, hunks: 9, shownHunks: 1, added: 9, removed: 8 };
    const state = run(withRunningTurn(), [note('turn/diff/updated', { ...where, diff: 'cut', weftDiffCut: cut })]);
    const turn = state.conversations[T]?.turns[TURN];
    expect([turn?.diff, turn?.diffCut]).toEqual(['cut', cut]);
  });

  it('marks a diff told as changed stale with its count, until its text is read', () => {
    const cut = { files: 3, hunks: 40, shownHunks: 2, added: 50, removed: 1 };
    const one = 'diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n';
    const view = (state: AppData) => {
      const turn = state.conversations[T]?.turns[TURN];
      return { diff: turn?.diff, diffCut: turn?.diffCut, diffFiles: turn?.diffFiles, diffStale: turn?.diffStale };
    };
    let state = run(withRunningTurn(), [note('turn/diff/updated', { ...where, diff: one })]);
    expect(view(state)).toEqual({ diff: one, diffCut: null, diffFiles: 1, diffStale: false });
    state = reduceNotification(state, note('weft/turn/diffChanged', { ...where, files: 3, weftDiffCut: cut }));
    expect(view(state)).toEqual({ diff: one, diffCut: cut, diffFiles: 3, diffStale: true });
    // The text read afterwards comes as turn/diff/updated would: the same text is not the same state.
    state = reduceNotification(state, note('turn/diff/updated', { ...where, diff: one, weftDiffCut: cut }));
    expect(view(state)).toEqual({ diff: one, diffCut: cut, diffFiles: 3, diffStale: false });
  });

  it('moves threads between the live and archived lists and renames them', () => {
    let state = setList(emptyAppData(CWD), 'live', [
      makeThread(),
      makeThread({ id: 'thr_2', updatedAt: 1_700_000_500 }),
    ]);
    state = reduceNotification(state, note('thread/archived', { threadId: T }));
    expect(state.live.map((t) => t.id)).toEqual(['thr_2']);
    expect(state.archived.map((t) => t.id)).toEqual([T]);
    state = reduceNotification(state, note('thread/name/updated', { threadId: T, name: 'Renamed' }));
    expect(state.archived[0]?.name).toBe('Renamed');
    state = reduceNotification(state, note('thread/unarchived', { threadId: T }));
    expect(state.live.map((t) => [t.id, t.name])).toEqual([
      ['thr_2', null],
      [T, 'Renamed'],
    ]);
  });

  it('lists a started thread of this project first, and only records the status of other projects', () => {
    let state = setList(emptyAppData(CWD), 'live', [makeThread()]);
    state = reduceNotification(
      state,
      note('thread/started', { thread: makeThread({ id: 'new', updatedAt: 1_800_000_000 }) }),
    );
    state = reduceNotification(
      state,
      note('thread/started', { thread: makeThread({ id: 'elsewhere', cwd: '/tmp/other' }) }),
    );
    expect(state.live.map((t) => t.id)).toEqual(['new', T]);
    expect(state.statuses.elsewhere).toEqual({ type: 'idle' });
    expect(state.conversations.new?.turnIds).toEqual([]);
  });

  it('lists a thread of an environment under its project there, not under a local folder of the same path', () => {
    const remoteKey = `box:${CWD}`;
    let state: AppData = { ...setList(emptyAppData(CWD), 'live', [makeThread()]), elsewhere: { [remoteKey]: [] } };
    const there = makeThread({ id: 'there', updatedAt: 1_800_000_000, weftEnvironment: 'box' });
    state = reduceNotification(state, note('thread/started', { thread: there }));
    expect(state.live.map((t) => t.id)).toEqual([T]);
    expect(state.elsewhere).toEqual({ [remoteKey]: [there] });

    // Shown, that project lists its own thread; a local one of the same folder goes to the local project.
    state = { ...setList(emptyAppData(remoteKey), 'live', [there]), elsewhere: { [CWD]: [] } };
    const here = makeThread({ id: 'here', updatedAt: 1_800_000_001 });
    state = reduceNotification(state, note('thread/started', { thread: here }));
    expect(state.live.map((t) => t.id)).toEqual(['there']);
    expect(state.elsewhere).toEqual({ [CWD]: [here] });
  });

  it("lists a worktree thread started for this project, though it works in its worktree; not another project's", () => {
    const worktree = (projectRoot: string) => ({
      path: '/home/ada/.weft/worktrees/project-1a2b3c4d/3fa9c1',
      branch: 'weft/3fa9c1',
      baseRef: 'main',
      projectRoot,
    });
    let state = setList(emptyAppData(CWD), 'live', [makeThread()]);
    const mine = makeThread({
      id: 'mine',
      cwd: worktree(CWD).path,
      updatedAt: 1_800_000_000,
      weftWorktree: worktree(CWD),
    });
    const theirs = makeThread({ id: 'theirs', cwd: '/elsewhere/wt', weftWorktree: worktree('/tmp/other') });
    state = reduceNotification(state, note('thread/started', { thread: mine }));
    state = reduceNotification(state, note('thread/started', { thread: theirs }));
    expect(state.live).toEqual([mine, makeThread()]);
    expect(state.statuses.theirs).toEqual({ type: 'idle' });
  });

  it('lists a fork of a listed thread that works in its own copy of the project elsewhere', () => {
    let state = setList(emptyAppData(CWD), 'live', [makeThread()]);
    state = reduceNotification(
      state,
      note('thread/started', {
        thread: makeThread({
          id: 'fork',
          cwd: '/home/u/.weft/worktrees/demo-1a2b',
          forkedFromId: T,
          updatedAt: 1_800_000_000,
        }),
      }),
    );
    state = reduceNotification(
      state,
      note('thread/started', { thread: makeThread({ id: 'stranger', cwd: '/tmp/other', forkedFromId: 'not-listed' }) }),
    );
    expect(state.live.map((t) => t.id)).toEqual(['fork', T]);
  });

  it('takes the first user message of a new thread as its preview', () => {
    let state = setList(emptyAppData(CWD), 'live', [makeThread({ preview: '' })]);
    state = reduceNotification(state, note('thread/started', { thread: makeThread({ preview: '' }) }));
    state = reduceNotification(state, note('turn/started', { threadId: T, turn: makeTurn() }));
    state = reduceNotification(
      state,
      note('item/started', { ...where, startedAtMs: 1_700_000_001_000, item: userMessage('u1', 'Fix the tests') }),
    );
    state = reduceNotification(
      state,
      note('item/started', { ...where, startedAtMs: 1_700_000_001_000, item: userMessage('u2', 'and the lint') }),
    );
    expect(state.live[0]?.preview).toBe('Fix the tests');
  });

  it("keeps a thread's preview when a snapshot taken before its first message comes later", () => {
    // A thread's preview is its first message and never changes; a snapshot or a list read before the
    // message was recorded (a notification relayed from an environment, a list answered meanwhile) says ''.
    let state = setList(emptyAppData(CWD), 'live', [makeThread({ preview: '' })]);
    state = reduceNotification(state, note('turn/started', { threadId: T, turn: makeTurn() }));
    state = reduceNotification(
      state,
      note('item/started', { ...where, startedAtMs: 1_700_000_001_000, item: userMessage('u1', 'Fix the tests') }),
    );
    state = reduceNotification(state, note('thread/started', { thread: makeThread({ preview: '' }) }));
    expect(state.live[0]?.preview).toBe('Fix the tests');
    state = setList(state, 'live', [makeThread({ preview: '', name: 'Renamed' })]);
    expect([state.live[0]?.preview, state.live[0]?.name]).toEqual(['Fix the tests', 'Renamed']);
    // The same when the project is no longer shown: its list is read again from the server.
    const other = { ...state, cwd: '/elsewhere', live: [], elsewhere: { [CWD]: state.live } };
    const listedAgain = setElsewhere(other, CWD, [makeThread({ preview: '' })]);
    expect(listedAgain.elsewhere[CWD]?.[0]?.preview).toBe('Fix the tests');
    // A thread that had no preview yet takes what the server says.
    expect(setList(emptyAppData(CWD), 'live', [makeThread({ preview: 'Hello' })]).live[0]?.preview).toBe('Hello');
  });

  it("titles a thread of another open project by its first message, and keeps it when that project's list is read again", () => {
    // The thread runs in a project this window is not showing (on an environment, say).
    let state: AppData = { ...emptyAppData(CWD), elsewhere: { '/remote-app': [] } };
    const there = { cwd: '/remote-app', preview: '' };
    state = reduceNotification(state, note('thread/started', { thread: makeThread(there) }));
    state = reduceNotification(state, note('turn/started', { threadId: T, turn: makeTurn() }));
    state = reduceNotification(
      state,
      note('item/started', { ...where, startedAtMs: 1_700_000_001_000, item: userMessage('u1', 'Remote work') }),
    );
    expect(state.elsewhere['/remote-app']?.[0]?.preview).toBe('Remote work');
    // Its list, read before the message was recorded, comes back afterwards.
    state = setElsewhere(state, '/remote-app', [makeThread(there)]);
    expect(state.elsewhere['/remote-app']?.[0]?.preview).toBe('Remote work');
    // A window that listed it only after its first message came still titles it from that message.
    const unlisted = { ...state, elsewhere: { '/remote-app': [] } };
    const relisted = setElsewhere(unlisted, '/remote-app', [makeThread(there)]);
    expect(relisted.elsewhere['/remote-app']?.[0]?.preview).toBe('Remote work');
  });

  it('moves a thread to the top of the list when a turn starts in it', () => {
    let state = setList(emptyAppData(CWD), 'live', [
      makeThread({ id: 'b', updatedAt: 2 }),
      makeThread({ id: 'a', updatedAt: 1 }),
    ]);
    state = reduceNotification(state, note('turn/started', { threadId: 'a', turn: makeTurn({ startedAt: 3 }) }));
    expect(state.live.map((t) => t.id)).toEqual(['a', 'b']);
    expect(state.lastTurnStatus.a).toBe('inProgress');
  });

  it('attaches a thread warning to its latest turn and keeps server-wide warnings apart', () => {
    let state = reduceNotification(withRunningTurn(), note('warning', { message: 'Slow disk', threadId: T }));
    expect(state.conversations[T]?.turns[TURN]?.notices).toEqual([
      { kind: 'warning', message: 'Slow disk', details: null },
    ]);
    state = reduceNotification(state, note('warning', { message: 'Update available' }));
    expect(state.warnings).toEqual([{ kind: 'warning', message: 'Update available', details: null }]);
  });

  it('leaves held-back project config to the project config prompt', () => {
    const base = withRunningTurn();
    const held = note('warning', { message: 'project config not applied: …', threadId: T, weftProjectConfig: true });
    expect(reduceNotification(base, held)).toBe(base);
  });

  it('reduces a batch exactly as it reduces the same notifications one by one', () => {
    const base = deepFreeze(
      run(withRunningTurn(), [
        note('item/started', { ...where, startedAtMs: 1_700_000_001_000, item: agentMessage('m1') }),
        note('item/started', { ...where, startedAtMs: 1_700_000_001_000, item: command('c1') }),
      ]),
    );
    const stream: ServerNotification[] = [];
    for (let i = 0; i < 200; i++) {
      stream.push(note('item/agentMessage/delta', { ...where, itemId: 'm1', delta: `w${i} ` }));
      if (i % 10 === 0)
        stream.push(note('item/commandExecution/outputDelta', { ...where, itemId: 'c1', delta: `line ${i}\n` }));
    }
    stream.push(note('turn/plan/updated', { ...where, plan: [{ step: 'x', status: 'pending' }] }));
    expect(reduceNotifications(base, stream)).toEqual(run(base, stream));
    expect(reduceNotifications(base, [])).toBe(base);
  });
});
