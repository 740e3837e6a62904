// A probe of how long an app server keeps a client waiting: a `thread/list` sent on its stdin every few
// milliseconds, each timed from the write to the line of its answer on stdout. The answers are found by
// their ids (`"list-probe-N"`) in the first bytes of each line, read by a listener of the probe's own (it
// parses nothing, and leaves the stream to its other readers).
import type { Readable, Writable } from 'node:stream';

export interface ProbeAnswer {
  /** performance.now() when the list was written. */
  sentAt: number;
  /** performance.now() when its answer's line was read. */
  answeredAt: number;
  /** The wait: answeredAt - sentAt. */
  ms: number;
}

export interface ListProbe {
  /** Answers so far, in the order the lists were sent (a list not answered yet is not among them). */
  readonly answers: readonly ProbeAnswer[];
  /** When the first bytes of the answer to request `id` (a string id) were read, if they were. */
  answerStarted(id: string): number | undefined;
  /** Stops sending; resolves once every list sent has been answered, with every answer. */
  stop(): Promise<ProbeAnswer[]>;
}

const HEAD_CHARS = 200;
const ANSWER = /^\{[^{]*"id":"list-probe-(\d+)"/;
const STRING_ID = /^\{[^{]*"id":"([^"\\]*)"/;

/** Starts sending `thread/list {limit: 25}` to `io` every `everyMs` milliseconds. */
export function startListProbe(io: { stdin: Writable; stdout: Readable }, everyMs = 10): ListProbe {
  const sent = new Map<number, number>();
  const answers: ProbeAnswer[] = [];
  let next = 0;
  let stopped: (() => void) | null = null;
  const started = new Map<string, number>();
  const onLine = (head: string, startedAt: number, at: number): void => {
    const id = STRING_ID.exec(head)?.[1];
    if (id !== undefined && !id.startsWith('list-probe-')) started.set(id, startedAt);
    const n = Number(ANSWER.exec(head)?.[1] ?? Number.NaN);
    const sentAt = sent.get(n);
    if (sentAt === undefined) return;
    sent.delete(n);
    answers.push({ sentAt, answeredAt: at, ms: at - sentAt });
    if (sent.size === 0) stopped?.();
  };
  // The first HEAD_CHARS of the line being read (a line may span many chunks: an answer of megabytes).
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
      onLine(head, lineStartedAt, at);
      head = '';
      pos = nl + 1;
    }
  };
  // Ahead of the stream's other readers: a reader parsing a big line first would delay the timestamps.
  io.stdout.prependListener('data', onData);
  const send = (): void => {
    const n = next++;
    sent.set(n, performance.now());
    io.stdin.write(`${JSON.stringify({ id: `list-probe-${n}`, method: 'thread/list', params: { limit: 25 } })}\n`);
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
          io.stdout.off('data', onData);
          resolve([...answers].sort((a, b) => a.sentAt - b.sentAt));
        };
        if (sent.size === 0) done();
        else stopped = done;
      });
    },
  };
}
