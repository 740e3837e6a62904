// The page's notifier (views/attention-notifier.ts): only while the person is elsewhere, only the kinds
// `[notifications]` allows, and a waiting request told again every `repeat_minutes` until it is answered.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createStore } from 'zustand/vanilla';
import { NOTIFICATION_DEFAULTS, type IncomingServerRequest } from '../../../src-preload/protocol';
import { addServerRequest, removeServerRequest } from '../../../src-renderer/store/approvals';
import { reduceNotification } from '../../../src-renderer/store/reduce';
import { emptyAppData, type AppData } from '../../../src-renderer/store/state';
import { setList } from '../../../src-renderer/store/thread-list';
import { attachAttentionNotifier } from '../../../src-renderer/views/attention-notifier';
import type { News } from '../../../src-renderer/views/notification-news';
import { CWD, makeThread, makeTurn, note } from './fixtures';

const T = 'thr_1';
const approval: IncomingServerRequest = {
  id: 7,
  method: 'item/commandExecution/requestApproval',
  params: { threadId: T, turnId: 'turn_1', itemId: 'c1', startedAtMs: 1, command: 'npm test', cwd: CWD },
};

let shown: { body: string; reminder: boolean }[];
let away: boolean;
let stop: () => void;

function start(settings = NOTIFICATION_DEFAULTS) {
  const store = createStore<{ data: AppData }>(() => ({
    data: setList(emptyAppData(CWD), 'live', [makeThread({ id: T, name: 'Fix it' })]),
  }));
  stop = attachAttentionNotifier({
    store,
    settings,
    away: () => away,
    show: (news: News, reminder) => shown.push({ body: news.body, reminder }),
  });
  return (change: (data: AppData) => AppData) => store.setState((s) => ({ data: change(s.data) }));
}

beforeEach(() => {
  vi.useFakeTimers();
  shown = [];
  away = true;
});

afterEach(() => {
  stop();
  vi.useRealTimers();
});

describe('attachAttentionNotifier', () => {
  it('tells only while the person is elsewhere', () => {
    const change = start();
    away = false;
    change((d) => addServerRequest(d, approval));
    expect(shown).toEqual([]);
    away = true;
    change((d) => addServerRequest(d, { ...approval, id: 8 }));
    expect(shown).toEqual([{ body: 'Approve the command: npm test', reminder: false }]);
  });

  it('tells again every repeat_minutes until the request is answered', () => {
    const change = start({ ...NOTIFICATION_DEFAULTS, repeat_minutes: 5 });
    change((d) => addServerRequest(d, approval));
    vi.advanceTimersByTime(5 * 60_000 - 1);
    expect(shown).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(shown).toEqual([
      { body: 'Approve the command: npm test', reminder: false },
      { body: 'Approve the command: npm test', reminder: true },
    ]);
    // Back at the page: the reminder comes due but is not shown; then the request is answered.
    away = false;
    vi.advanceTimersByTime(5 * 60_000);
    expect(shown).toHaveLength(2);
    away = true;
    change((d) => removeServerRequest(d, approval.id));
    vi.advanceTimersByTime(60 * 60_000);
    expect(shown).toHaveLength(2);
  });

  it('leaves out the kinds turned off', () => {
    const change = start({ ...NOTIFICATION_DEFAULTS, approval: false, turn_finished: false });
    change((d) => addServerRequest(d, approval));
    change((d) => reduceNotification(d, note('turn/started', { threadId: T, turn: makeTurn() })));
    change((d) =>
      reduceNotification(d, note('turn/completed', { threadId: T, turn: makeTurn({ status: 'completed' }) })),
    );
    expect(shown).toEqual([]);
    change((d) => reduceNotification(d, note('turn/started', { threadId: T, turn: makeTurn({ id: 'turn_2' }) })));
    change((d) =>
      reduceNotification(
        d,
        note('turn/completed', { threadId: T, turn: makeTurn({ id: 'turn_2', status: 'failed' }) }),
      ),
    );
    expect(shown).toEqual([{ body: 'The turn failed.', reminder: false }]);
  });
});
