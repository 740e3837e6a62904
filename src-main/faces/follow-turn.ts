/**
 * Runs one turn of a thread through the host client and hands its notifications, in order, to the
 * face that asked for it: everything about that thread from the `turn/start` until its
 * `turn/completed`. A face uses it to stream the turn into its own protocol and to learn how it ended.
 */
import type { ParamsInput, ServerNotification, ThreadItem, Turn, UserInput } from '../../src-preload/protocol';
import type { HostClient } from './host-client';

export type TurnStartOverrides = Omit<ParamsInput<'turn/start'>, 'threadId' | 'input'>;

export interface FollowTurnOptions {
  threadId: string;
  input: UserInput[];
  overrides?: TurnStartOverrides;
  /**
   * Called for each of the turn's notifications, in order, as soon as it arrives (before any server
   * request that follows it is handled); the turn is over once every promise it returned has settled.
   */
  onNotification?: (notification: ServerNotification) => void | Promise<void>;
  /** Aborting interrupts the turn (it then completes as `interrupted`). */
  signal?: AbortSignal;
}

/** The thread a notification is about, if it names one. */
export function threadIdOf(n: ServerNotification): string | undefined {
  const params: object = n.params;
  return 'threadId' in params && typeof params.threadId === 'string' ? params.threadId : undefined;
}

/** The turn a notification is about, if it names one. */
export function turnIdOf(n: ServerNotification): string | undefined {
  if (n.method === 'turn/started' || n.method === 'turn/completed') return n.params.turn.id;
  const params: object = n.params;
  return 'turnId' in params && typeof params.turnId === 'string' ? params.turnId : undefined;
}

/** Starts the turn and resolves with it once it completed and every notification was handled. */
export async function followTurn(client: HostClient, options: FollowTurnOptions): Promise<Turn> {
  let turnId: string | null = null;
  const early: ServerNotification[] = [];
  let chain: Promise<void> = Promise.resolve();
  let finish: (turn: Turn) => void = () => undefined;
  let fail: (error: unknown) => void = () => undefined;
  const finished = new Promise<Turn>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });

  const deliver = (n: ServerNotification): void => {
    const about = turnIdOf(n);
    if (about !== undefined && about !== turnId) return;
    const handled = (async () => options.onNotification?.(n))();
    handled.catch(() => undefined); // reported through the chain below, in order
    chain = chain.then(() => handled).catch(fail);
    if (n.method === 'turn/completed') {
      const turn = n.params.turn;
      void chain.then(() => finish(turn));
    }
  };

  const stop = client.onNotification((n) => {
    if (threadIdOf(n) !== options.threadId) return;
    if (turnId === null) early.push(n);
    else deliver(n);
  });
  const interrupt = (): void => {
    if (turnId !== null)
      void client.request('turn/interrupt', { threadId: options.threadId, turnId }).catch(() => undefined);
  };
  try {
    const { turn } = await client.request('turn/start', {
      threadId: options.threadId,
      input: options.input,
      ...options.overrides,
    });
    turnId = turn.id;
    for (const n of early.splice(0)) deliver(n);
    if (options.signal?.aborted) interrupt();
    options.signal?.addEventListener('abort', interrupt, { once: true });
    return await finished;
  } finally {
    stop();
    options.signal?.removeEventListener('abort', interrupt);
  }
}

/** The turn's answer: its last final-answer message, else its last agent message, else ''. */
export function finalAnswer(items: readonly ThreadItem[]): string {
  const messages = items.filter((i): i is Extract<ThreadItem, { type: 'agentMessage' }> => i.type === 'agentMessage');
  const final = messages.filter((m) => m.phase === 'final_answer').at(-1) ?? messages.at(-1);
  return final?.text ?? '';
}
