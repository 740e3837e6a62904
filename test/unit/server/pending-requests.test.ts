// PendingRequests: a thread's server requests (approvals, questions) fanned out to every subscriber,
// the first answer winning, every subscriber told it is resolved, and requests outliving a client.
import { describe, expect, it } from 'vitest';
import type { ServerNotification, ServerRequest } from '../../../src-preload/protocol';
import type { Client } from '../../../src-main/server/dispatcher';
import { PendingRequests } from '../../../src-main/server/pending-requests';
import { DisposableStore } from '../../../src-main/util/disposable';

interface Asked {
  request: ServerRequest;
  id: number | string;
  answer(result: unknown): void;
  fail(error: Error): void;
}

class FakeClient implements Client {
  static next = 1;
  readonly id = FakeClient.next++;
  readonly label = `client ${this.id}`;
  readonly name = null;
  closed = false;
  readonly asked: Asked[] = [];
  readonly notified: ServerNotification[] = [];
  readonly resources = new DisposableStore();

  notify(notification: ServerNotification): void {
    this.notified.push(notification);
  }

  request(request: ServerRequest, id: number | string): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.asked.push({ request, id, answer: resolve, fail: reject });
    });
  }

  onClose(): void {}

  /** The client goes away: its outstanding requests reject, as the dispatcher's do on disconnect. */
  disconnect(): void {
    this.closed = true;
    for (const asked of this.asked) asked.fail(new Error('connection closed'));
  }

  asked1(): Asked {
    const first = this.asked[0];
    if (first === undefined) throw new Error(`${this.label} was asked nothing`);
    return first;
  }
}

const approval = (command: string): ServerRequest => ({
  method: 'item/commandExecution/requestApproval',
  params: { threadId: 'th', turnId: 'tu', itemId: `it-${command}`, startedAtMs: 1, command, cwd: '/w' },
});

const question = (): ServerRequest => ({
  method: 'item/tool/requestUserInput',
  params: { threadId: 'th', turnId: 'tu', itemId: 'q', isBlocking: true, questions: [] },
});

const resolved = (requestId: number): ServerNotification => ({
  method: 'serverRequest/resolved',
  params: { threadId: 'th', requestId },
});

/** Lets promise callbacks (a client's answer reaching the pending entry) run. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function setUp(): { pending: PendingRequests; subscribers: Set<FakeClient>; logged: string[] } {
  let id = 100;
  const subscribers = new Set<FakeClient>();
  const logged: string[] = [];
  const pending = new PendingRequests(
    'th',
    () => id++,
    () => subscribers,
    (line) => logged.push(line),
  );
  return { pending, subscribers, logged };
}

describe('PendingRequests', () => {
  it('asks every subscriber under one id; the first answer wins and everyone is told it is resolved', async () => {
    const { pending, subscribers } = setUp();
    const a = new FakeClient();
    const b = new FakeClient();
    subscribers.add(a).add(b);
    const answer = pending.ask(approval('ls'), new AbortController().signal, () => ({ decision: 'cancel' }));
    expect(pending.size).toBe(1);
    expect(a.asked.map((x) => x.id)).toEqual([100]);
    expect(b.asked.map((x) => x.id)).toEqual([100]);
    expect(b.asked1().request).toEqual(approval('ls'));

    b.asked1().answer({ decision: 'accept' });
    await expect(answer).resolves.toEqual({ decision: 'accept' });
    a.asked1().answer({ decision: 'decline' });
    await settle();
    expect(pending.size).toBe(0);
    expect(a.notified).toEqual([resolved(100)]);
    expect(b.notified).toEqual([resolved(100)]);
  });

  it('keeps a request a client left unanswered for the next client to attach', async () => {
    const { pending, subscribers, logged } = setUp();
    const leaving = new FakeClient();
    subscribers.add(leaving);
    const answer = pending.ask(approval('rm -rf build'), new AbortController().signal, () => ({ decision: 'cancel' }));
    subscribers.delete(leaving);
    leaving.disconnect();
    await settle();
    expect(pending.size).toBe(1);
    expect(logged).toEqual([]);

    const next = new FakeClient();
    subscribers.add(next);
    pending.attach(next);
    expect(next.asked.map((x) => [x.id, x.request])).toEqual([[100, approval('rm -rf build')]]);
    next.asked1().answer({ decision: 'acceptForSession' });
    await expect(answer).resolves.toEqual({ decision: 'acceptForSession' });
    expect(pending.size).toBe(0);
  });

  it('logs an error answer from a connected client and keeps waiting for another answer', async () => {
    const { pending, subscribers, logged } = setUp();
    const a = new FakeClient();
    const b = new FakeClient();
    subscribers.add(a).add(b);
    const answer = pending.ask(approval('make'), new AbortController().signal, () => ({ decision: 'cancel' }));
    a.asked1().fail(new Error('bad params'));
    await settle();
    expect(pending.size).toBe(1);
    expect(logged).toEqual([
      'weft app-server: client ' +
        String(a.id) +
        ' answered item/commandExecution/requestApproval #100 with an error: bad params',
    ]);
    b.asked1().answer({ decision: 'decline' });
    await expect(answer).resolves.toEqual({ decision: 'decline' });
  });

  it('settles with the abort answer when the turn is interrupted, and later answers change nothing', async () => {
    const { pending, subscribers } = setUp();
    const a = new FakeClient();
    subscribers.add(a);
    const controller = new AbortController();
    const answer = pending.ask(approval('sleep 9'), controller.signal, () => ({ decision: 'cancel' }));
    controller.abort();
    await expect(answer).resolves.toEqual({ decision: 'cancel' });
    expect(pending.size).toBe(0);
    expect(a.notified).toEqual([resolved(100)]);
    a.asked1().answer({ decision: 'accept' });
    await settle();
    expect(a.notified).toEqual([resolved(100)]);
  });

  it('never sends a request whose signal was already aborted', async () => {
    const { pending, subscribers } = setUp();
    const a = new FakeClient();
    subscribers.add(a);
    const controller = new AbortController();
    controller.abort();
    await expect(pending.ask(approval('ls'), controller.signal, () => ({ decision: 'cancel' }))).resolves.toEqual({
      decision: 'cancel',
    });
    expect(a.asked).toEqual([]);
    expect(pending.size).toBe(0);
  });

  it('settles everything still waiting when the thread unloads, each with its cancel answer', async () => {
    const { pending } = setUp();
    const signal = new AbortController().signal;
    const first = pending.ask(approval('one'), signal, () => 'aborted');
    const second = pending.ask(question(), signal, () => 'aborted');
    expect(pending.size).toBe(2);
    pending.cancelAll();
    await expect(first).resolves.toEqual({ decision: 'cancel' });
    await expect(second).resolves.toEqual({ answers: {} });
    expect(pending.size).toBe(0);
  });

  it('declines a request once every client asked has answered with an error, and warns the subscribers', async () => {
    const { pending, subscribers, logged } = setUp();
    const a = new FakeClient();
    const b = new FakeClient();
    subscribers.add(a).add(b);
    const answer = pending.ask(approval('make'), new AbortController().signal);
    a.asked1().fail(new Error('bad params'));
    await settle();
    expect(pending.size).toBe(1);
    b.asked1().fail(new Error('no dialog'));
    await expect(answer).resolves.toEqual({ decision: 'decline' });
    const warning: ServerNotification = {
      method: 'warning',
      params: {
        threadId: 'th',
        message:
          'item/commandExecution/requestApproval was declined: every client that could answer it failed ' +
          `(client ${a.id}: bad params; client ${b.id}: no dialog)`,
      },
    };
    expect(a.notified).toEqual([warning, resolved(100)]);
    expect(b.notified).toEqual([warning, resolved(100)]);
    expect(logged).toHaveLength(3);
  });

  it('declines once the last client that could still answer leaves after another one failed', async () => {
    const { pending, subscribers } = setUp();
    const failing = new FakeClient();
    const leaving = new FakeClient();
    subscribers.add(failing).add(leaving);
    const answer = pending.ask(question(), new AbortController().signal);
    failing.asked1().fail(new Error('cannot show forms'));
    await settle();
    expect(pending.size).toBe(1);
    subscribers.delete(leaving);
    leaving.disconnect();
    await expect(answer).resolves.toEqual({ answers: {} });
    expect(failing.notified.map((n) => n.method)).toEqual(['warning', 'serverRequest/resolved']);
  });

  it('asks a client again when it subscribes anew after failing, and waits for its answer', async () => {
    const { pending, subscribers } = setUp();
    const a = new FakeClient();
    const b = new FakeClient();
    subscribers.add(a).add(b);
    const answer = pending.ask(approval('ls'), new AbortController().signal);
    a.asked1().fail(new Error('busy'));
    await settle();
    pending.attach(a);
    b.asked1().fail(new Error('no dialog'));
    await settle();
    expect(pending.size).toBe(1);
    a.asked[1]?.answer({ decision: 'accept' });
    await expect(answer).resolves.toEqual({ decision: 'accept' });
  });
});
