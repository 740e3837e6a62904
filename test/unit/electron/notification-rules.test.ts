import { describe, expect, it } from 'vitest';
import { NOTIFICATION_DEFAULTS } from '../../../src-preload/protocol';
import type { AttentionEvent } from '../../../src-main/server/app-host';
import {
  LONG_TURN_MS,
  badgeCount,
  formatDuration,
  planNotification,
  projectForCwd,
} from '../../../src-main/electron/notification-rules';

const approval: AttentionEvent = {
  kind: 'approval',
  threadId: 'th-1',
  cwd: '/src/app/packages/web',
  title: 'Fix the login form',
  detail: 'Run `npm test`?',
};
const finished: AttentionEvent = {
  kind: 'turnFinished',
  threadId: 'th-2',
  cwd: '/src/lib',
  title: '',
  detail: '',
  durationMs: 125_000,
};
const open = ['/src/app', '/src/app/packages', '/src/lib', '/src/application'];

describe('projectForCwd', () => {
  it('picks the deepest open project holding the folder, never a name prefix', () => {
    expect(projectForCwd('/src/app/packages/web', open)).toBe('/src/app/packages');
    expect(projectForCwd('/src/app', open)).toBe('/src/app');
    expect(projectForCwd('/src/application/x', open)).toBe('/src/application');
    expect(projectForCwd('/src/apple', open)).toBeNull();
    expect(projectForCwd('/', ['/'])).toBe('/');
    expect(projectForCwd('/tmp/x', ['/'])).toBe('/');
  });
});

describe('planNotification', () => {
  it('announces an approval unless its own window has focus', () => {
    const plan = {
      title: 'Fix the login form',
      body: 'Run `npm test`?',
      threadId: 'th-1',
      project: '/src/app/packages',
      silent: true,
      remindEveryMs: null,
    };
    expect(planNotification(approval, { openProjects: open, focusedProject: null })).toEqual(plan);
    expect(planNotification(approval, { openProjects: open, focusedProject: '/src/lib' })).toEqual(plan);
    expect(planNotification(approval, { openProjects: open, focusedProject: '/src/app/packages' })).toBeNull();
  });

  it('an approval for a closed project still notifies, with no window to focus', () => {
    expect(
      planNotification(
        { ...approval, cwd: '/elsewhere', detail: ' ' },
        { openProjects: open, focusedProject: '/src/app' },
      ),
    ).toEqual({
      title: 'Fix the login form',
      body: 'Waiting for your approval.',
      threadId: 'th-1',
      project: null,
      silent: true,
      remindEveryMs: null,
    });
  });

  it('announces only long turns', () => {
    expect(planNotification(finished, { openProjects: open, focusedProject: null })).toEqual({
      title: 'Weft',
      body: 'Finished after 2 min 5 s.',
      threadId: 'th-2',
      project: '/src/lib',
      silent: true,
      remindEveryMs: null,
    });
    expect(
      planNotification({ ...finished, durationMs: LONG_TURN_MS - 1 }, { openProjects: open, focusedProject: null }),
    ).toBeNull();
    expect(
      planNotification({ ...finished, durationMs: undefined }, { openProjects: open, focusedProject: null }),
    ).toBeNull();
    expect(
      planNotification({ ...finished, detail: 'All tests pass.' }, { openProjects: open, focusedProject: null })?.body,
    ).toBe('Finished after 2 min 5 s. All tests pass.');
    expect(planNotification(finished, { openProjects: open, focusedProject: '/src/lib' })).toBeNull();
  });
});

describe('planNotification with [notifications]', () => {
  const context = { openProjects: open, focusedProject: null };

  it('leaves out the kinds turned off, and plays the sound when asked', () => {
    const off = { ...NOTIFICATION_DEFAULTS, approval: false, turn_failed: false };
    expect(planNotification(approval, context, off)).toBeNull();
    expect(planNotification({ ...approval, kind: 'question', detail: '' }, context, off)).toEqual({
      title: 'Fix the login form',
      body: 'The agent has a question for you.',
      threadId: 'th-1',
      project: '/src/app/packages',
      silent: true,
      remindEveryMs: null,
    });
    expect(planNotification({ ...finished, status: 'failed', durationMs: 10 }, context, off)).toBeNull();
    expect(planNotification({ ...approval, kind: 'answered' }, context)).toBeNull();
    const sound = { ...NOTIFICATION_DEFAULTS, sound: true };
    expect(planNotification(approval, context, sound)?.silent).toBe(false);
  });

  it('tells a failed turn however short, never a stopped one, and reminds of what waits', () => {
    expect(planNotification({ ...finished, status: 'failed', durationMs: 10, detail: '' }, context)).toEqual({
      title: 'Weft',
      body: 'The turn failed.',
      threadId: 'th-2',
      project: '/src/lib',
      silent: true,
      remindEveryMs: null,
    });
    expect(planNotification({ ...finished, status: 'interrupted' }, context)).toBeNull();
    const repeat = { ...NOTIFICATION_DEFAULTS, repeat_minutes: 5 };
    expect(planNotification(approval, context, repeat)?.remindEveryMs).toBe(300_000);
    expect(planNotification({ ...finished, status: 'completed' }, context, repeat)?.remindEveryMs).toBeNull();
  });
});

describe('formatting and badge', () => {
  it('formats durations for people', () => {
    expect([0, 45_000, 60_000, 125_000, 3_600_000, 3_780_000].map(formatDuration)).toEqual([
      '0 s',
      '45 s',
      '1 min',
      '2 min 5 s',
      '1 h',
      '1 h 3 min',
    ]);
  });

  it('badges a positive whole count, else nothing', () => {
    expect([3, 0, -1, 1.5, Number.NaN].map(badgeCount)).toEqual([3, 0, 0, 0, 0]);
  });
});
