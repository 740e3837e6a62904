// What the page tells the person of in the background (notification-news.ts), the cost it keeps per thread
// (reduce.ts, selectors.ts) and the `[notifications]` settings it reads (protocol).
import { describe, expect, it } from 'vitest';
import {
  NOTIFICATION_DEFAULTS,
  notificationSettings,
  type WeftAutomationRun,
  type WeftTokenCost,
} from '../../../src-preload/protocol';
import { costText } from '../../../src-renderer/components/format';
import { addServerRequest } from '../../../src-renderer/store/approvals';
import { reduceNotification } from '../../../src-renderer/store/reduce';
import { threadCost } from '../../../src-renderer/store/selectors';
import { emptyAppData } from '../../../src-renderer/store/state';
import { setList } from '../../../src-renderer/store/thread-list';
import { newsBetween } from '../../../src-renderer/views/notification-news';
import { CWD, makeThread, makeTurn, note } from './fixtures';

const T = 'thr_1';
const listed = setList(emptyAppData(CWD), 'live', [makeThread({ id: T, name: 'Fix the login form' })]);

describe('newsBetween', () => {
  it('tells of a request that began waiting: an approval or a question', () => {
    const approval = addServerRequest(listed, {
      id: 7,
      method: 'item/commandExecution/requestApproval',
      params: { threadId: T, turnId: 'turn_1', itemId: 'c1', startedAtMs: 1, command: 'npm   test', cwd: CWD },
    });
    expect(newsBetween(listed, approval)).toEqual([
      {
        key: 'request-7',
        kind: 'approval',
        threadId: T,
        title: 'Fix the login form',
        body: 'Approve the command: npm test',
        requestId: '7',
      },
    ]);
    const question = addServerRequest(approval, {
      id: 'q',
      method: 'item/tool/requestUserInput',
      params: {
        threadId: 'thr_gone',
        turnId: 'turn_2',
        itemId: 'u1',
        isBlocking: true,
        questions: [{ id: 'a', header: 'Pick', question: 'Which branch?', options: null }],
      },
    });
    expect(newsBetween(approval, question)).toEqual([
      {
        key: 'request-q',
        kind: 'question',
        threadId: 'thr_gone',
        title: 'Weft',
        body: 'Which branch?',
        requestId: 'q',
      },
    ]);
    expect(newsBetween(question, question)).toEqual([]);
  });

  it('tells of an automation run that ended when its notify setting asks, once, opening the inbox', () => {
    const run = (runId: string, over: Partial<WeftAutomationRun>): WeftAutomationRun => ({
      runId,
      trigger: 'schedule',
      slot: 1,
      startedAt: 1,
      endedAt: 2,
      status: 'completed',
      threadId: T,
      worktree: '/home/dev/.weft/worktrees/p-1',
      environment: null,
      reason: null,
      finalMessage: 'Bumped 2 dependencies.',
      turnId: 'turn_1',
      changedFiles: 2,
      cost: null,
      commands: [],
      seen: false,
      decision: null,
      ...over,
    });
    const ended = (state: typeof listed, r: WeftAutomationRun, notify: boolean) =>
      reduceNotification(
        state,
        note('weft/automations/runEnded', {
          automationRun: {
            automationId: 'deps',
            automationName: 'Update deps',
            project: CWD,
            environment: 'worktree',
            run: r,
          },
          notify,
        }),
      );
    const changed = ended(listed, run('r1', {}), true);
    expect(newsBetween(listed, changed)).toEqual([
      {
        key: 'automation-r1',
        kind: 'turn_finished',
        threadId: T,
        title: 'Automation: Update deps',
        body: 'The run finished, 2 files changed. Bumped 2 dependencies.',
        requestId: null,
        inbox: true,
      },
    ]);
    // Told once: the same run again changes nothing.
    expect(ended(changed, run('r1', {}), true)).toBe(changed);
    // A run its setting does not ask to tell of (nothing changed) is not told.
    const quiet = ended(changed, run('r2', { changedFiles: 0 }), false);
    expect(newsBetween(changed, quiet)).toEqual([]);
    const failed = ended(
      quiet,
      run('r3', { status: 'failed', threadId: null, reason: 'the project folder /p is gone' }),
      true,
    );
    expect(newsBetween(quiet, failed)).toEqual([
      {
        key: 'automation-r3',
        kind: 'turn_failed',
        threadId: '',
        title: 'Automation: Update deps',
        body: 'The run failed: the project folder /p is gone',
        requestId: null,
        inbox: true,
      },
    ]);
  });

  it('tells of a turn that finished or failed, not of one that was stopped', () => {
    const started = reduceNotification(listed, note('turn/started', { threadId: T, turn: makeTurn() }));
    const ended = (status: 'completed' | 'failed' | 'interrupted') =>
      reduceNotification(started, note('turn/completed', { threadId: T, turn: makeTurn({ status }) }));
    expect(newsBetween(started, ended('completed'))).toMatchObject([
      { kind: 'turn_finished', body: 'The turn finished.' },
    ]);
    expect(newsBetween(started, ended('failed'))).toMatchObject([{ kind: 'turn_failed', body: 'The turn failed.' }]);
    expect(newsBetween(started, ended('interrupted'))).toEqual([]);
  });
});

describe('the cost of a thread in the page', () => {
  const usage = {
    totalTokens: 1100,
    inputTokens: 1000,
    cachedInputTokens: 200,
    outputTokens: 100,
    reasoningOutputTokens: 30,
  };
  const cost: WeftTokenCost = {
    model: 'mock-model',
    price: null,
    turn: null,
    thread: {
      cost: { usdMicros: 2500, unpricedModels: ['other'] },
      byModel: [],
    },
  };

  it('keeps the latest cost of a thread even before its conversation is loaded', () => {
    const next = reduceNotification(
      listed,
      note('thread/tokenUsage/updated', {
        threadId: T,
        turnId: 'turn_1',
        tokenUsage: { total: usage, last: usage, modelContextWindow: null },
        weftCost: cost,
      }),
    );
    expect(threadCost(next, T)).toEqual(cost.thread);
    expect(threadCost(listed, T)).toBeNull();
  });

  it('reads money for people, saying when a price is unknown', () => {
    expect(costText({ usdMicros: 4400, unpricedModels: [] })).toBe('$0.0044');
    expect(costText({ usdMicros: 1_270_000, unpricedModels: [] })).toBe('$1.27');
    expect(costText({ usdMicros: 0, unpricedModels: ['m'] })).toBe('unknown price');
    expect(costText({ usdMicros: 2500, unpricedModels: ['m'] })).toBe('$0.0025 + unknown price');
    expect(costText({ usdMicros: 0, unpricedModels: [] })).toBe('$0.00');
  });
});

describe('notificationSettings', () => {
  it('takes each valid key as written and the default for the rest', () => {
    expect(notificationSettings(undefined)).toEqual(NOTIFICATION_DEFAULTS);
    expect(notificationSettings({ approval: false, repeat_minutes: 5, sound: 'loud', turn_failed: 3 })).toEqual({
      ...NOTIFICATION_DEFAULTS,
      approval: false,
      repeat_minutes: 5,
    });
  });
});
