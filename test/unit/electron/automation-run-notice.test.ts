import { describe, expect, it } from 'vitest';
import {
  NOTIFICATION_DEFAULTS,
  type WeftAutomationRun,
  type WeftAutomationRunEndedNotification,
} from '../../../src-preload/protocol';
import { clickTarget, planAutomationRunNotice } from '../../../src-main/electron/automation-run-notice';

const run = (over: Partial<WeftAutomationRun>): WeftAutomationRun => ({
  runId: 'run-1',
  trigger: 'schedule',
  slot: 1,
  startedAt: 1,
  endedAt: 2,
  status: 'completed',
  threadId: 'th-1',
  worktree: '/home/dev/.weft/worktrees/app-1',
  environment: null,
  reason: null,
  finalMessage: 'Bumped 2 dependencies.',
  turnId: 'turn-1',
  changedFiles: 2,
  cost: null,
  commands: [],
  seen: false,
  decision: null,
  ...over,
});

const ended = (over: Partial<WeftAutomationRun>, notify = true): WeftAutomationRunEndedNotification => ({
  automationRun: {
    automationId: 'deps',
    automationName: 'Update dependencies',
    project: '/src/app/web',
    environment: 'worktree',
    run: run(over),
  },
  notify,
});

const away = { openProjects: ['/src/app', '/src/lib'], focused: false };

describe('planAutomationRunNotice', () => {
  it('tells a finished run while no Weft window has the focus, naming the automation, its files and message', () => {
    expect(planAutomationRunNotice(ended({}), away)).toEqual({
      title: 'Automation: Update dependencies',
      body: 'The run finished, 2 files changed. Bumped 2 dependencies.',
      // Quiet, as `[notifications] sound` is off by default.
      silent: true,
      automationId: 'deps',
      runId: 'run-1',
      project: '/src/app',
    });
  });

  it('tells a failed or stopped run with its reason, and no window holding a remote run’s project', () => {
    expect(
      planAutomationRunNotice(
        ended({ status: 'failed', reason: 'the link to environment "box" was lost', environment: 'box' }),
        away,
      ),
    ).toMatchObject({ body: 'The run failed: the link to environment "box" was lost', project: null });
    expect(
      planAutomationRunNotice(ended({ status: 'interrupted', reason: 'the run was stopped (the host closed)' }), {
        openProjects: [],
        focused: false,
      }),
    ).toMatchObject({ body: 'The run was stopped: the run was stopped (the host closed)', project: null });
  });

  it('tells nothing while a Weft window has the focus, when the automation’s notify does not ask, or for a running run', () => {
    expect(planAutomationRunNotice(ended({}), { ...away, focused: true })).toBeNull();
    expect(planAutomationRunNotice(ended({}, false), away)).toBeNull();
    expect(planAutomationRunNotice(ended({ status: 'running', endedAt: null }), away)).toBeNull();
  });

  it('follows [notifications]: finished and failed kinds, and the sound', () => {
    expect(planAutomationRunNotice(ended({}), away, { ...NOTIFICATION_DEFAULTS, turn_finished: false })).toBeNull();
    expect(
      planAutomationRunNotice(ended({ status: 'failed', reason: 'x' }), away, {
        ...NOTIFICATION_DEFAULTS,
        turn_failed: false,
      }),
    ).toBeNull();
    expect(
      planAutomationRunNotice(ended({ status: 'failed', reason: 'x' }), away, {
        ...NOTIFICATION_DEFAULTS,
        turn_finished: false,
        sound: true,
      }),
    ).toMatchObject({ body: 'The run failed: x', silent: false });
  });

  it('cuts a long message to one line of 160 characters', () => {
    const body = planAutomationRunNotice(ended({ finalMessage: `${'word '.repeat(60)}\n\nend` }), away)?.body ?? '';
    expect(body).toHaveLength(160);
    expect(body.endsWith('…')).toBe(true);
    expect(body).not.toContain('\n');
  });
});

describe('clickTarget', () => {
  it('opens the run in the inbox of its project’s window, else of the window in front', () => {
    const here = planAutomationRunNotice(ended({}), away);
    const remote = planAutomationRunNotice(ended({ environment: 'box' }), away);
    expect(here === null ? null : clickTarget(here)).toEqual({
      window: 'project',
      project: '/src/app',
      automationId: 'deps',
      runId: 'run-1',
    });
    expect(remote === null ? null : clickTarget(remote)).toEqual({
      window: 'any',
      automationId: 'deps',
      runId: 'run-1',
    });
  });
});
