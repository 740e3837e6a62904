// A probe of how long a Weft server keeps a client waiting: a `thread/list` sent every few milliseconds,
// each timed from the write to the arrival of its answer. Answers are found by their ids
// (`"list-probe-N"`) in the first characters of each message, read by a listener of the probe's own: it
// parses nothing, and leaves the stream to its other readers. Over stdio (`weft app-server`) or a
// WebSocket (`weft serve`).
import type { Readable, Writable } from 'node:stream';
import type { WebSocket } from 'ws';

export interface ProbeAnswer {
  /** performance.now() when the list was written. */
  sentAt: number;
  /** performance.now() when its answer arrived. */
  answeredAt: number;
  /** The wait: answeredAt - sentAt. */
  ms: number;
}

export interface ListProbe {
  /** Answers so far, in the order they arrived (a list not answered yet is not among them). */
  readonly answers: readonly ProbeAnswer[];
  /** When the first bytes of the answer to request `id` (a string id) arrived, if they did. */
  answerStarted(id: string): number | undefined;
  /** Stops sending; resolves once every list sent has been answered, with every answer in the order sent. */
  stop(): Promise<ProbeAnswer[]>;
}

/** Called with the first characters of each message, when its first bytes and its last arrived. */
export type HeadListener = (head: string, startedAt: number, at: number) => void;

/** A connection to a server, as the probe uses it. */
export interface ProbeChannel {
  send(text: string): void;
  /** Calls `listener` for every message received from now on; returns the unsubscribe. */
  watch(listener: HeadListener): () => void;
}

const HEAD_CHARS = 200;

/**
 * Calls `listener` with the head of every line read from `stream` (a line may span many chunks: an answer
 * of megabytes). It listens ahead of the stream's other readers: a reader parsing a big line first would
 * delay the timestamps. Returns the unsubscribe.
 */
function lineHeads(stream: Readable, listener: HeadListener): () => void {
  let head = '';
  let lineStartedAt = 0;
  const onData = (chunk: Buffer): void => {
    const at = performance.now();
    for (let pos = 0; ;) {
      const nl = chunk.indexOf(0x0a, pos);
      const end = nl === -1 ? chunk.length : nl;
      if (head === '') lineStartedAt = at;
      if (head.length < HEAD_CHARS)
        head += chunk.toString('latin1', pos, Math.min(end, pos + HEAD_CHARS - head.length));
      if (nl === -1) return;
      listener(head, lineStartedAt, at);
      head = '';
      pos = nl + 1;
    }
  };
  stream.prependListener('data', onData);
  return () => stream.off('data', onData);
}

/** A `weft app-server`'s stdio: one JSON message per line. */
export function stdioChannel(io: { stdin: Writable; stdout: Readable }): ProbeChannel {
  return {
    send: (text) => io.stdin.write(`${text}\n`),
    watch: (listener) => lineHeads(io.stdout, listener),
  };
}

/** A WebSocket to `weft serve` (initialized): one JSON message per frame. */
export function webSocketChannel(ws: WebSocket): ProbeChannel {
  return {
    send: (text) => ws.send(text),
    watch: (listener) => {
      const onMessage = (data: Buffer): void => {
        const at = performance.now();
        listener(data.toString('latin1', 0, Math.min(data.length, HEAD_CHARS)), at, at);
      };
      ws.prependListener('message', onMessage);
      return () => ws.off('message', onMessage);
    },
  };
}

const ANSWER = /^\{[^{]*"id":"list-probe-(\d+)"/;
const STRING_ID = /^\{[^{]*"id":"([^"\\]*)"/;

/** Starts sending `thread/list {limit: 25}` on `channel` every `everyMs` milliseconds. */
export function startListProbe(channel: ProbeChannel, everyMs = 10): ListProbe {
  const sent = new Map<number, number>();
  const answers: ProbeAnswer[] = [];
  let next = 0;
  let stopped: (() => void) | null = null;
  const started = new Map<string, number>();
  const unwatch = channel.watch((head, startedAt, at) => {
    const id = STRING_ID.exec(head)?.[1];
    if (id !== undefined && !id.startsWith('list-probe-')) started.set(id, startedAt);
    const n = Number(ANSWER.exec(head)?.[1] ?? Number.NaN);
    const sentAt = sent.get(n);
    if (sentAt === undefined) return;
    sent.delete(n);
    answers.push({ sentAt, answeredAt: at, ms: at - sentAt });
    if (sent.size === 0) stopped?.();
  });
  const send = (): void => {
    const n = next++;
    sent.set(n, performance.now());
    channel.send(JSON.stringify({ id: `list-probe-${n}`, method: 'thread/list', params: { limit: 25 } }));
  };
  const timer = setInterval(send, everyMs);
  send();
  return {
    answers,
    answerStarted: (id) => started.get(id),
    stop: () => {
      clearInterval(timer);
      return new Promise((resolve) => {
        const done = (): void => {
          unwatch();
          resolve([...answers].sort((a, b) => a.sentAt - b.sentAt));
        };
        if (sent.size === 0) done();
        else stopped = done;
      });
    },
  };
}
