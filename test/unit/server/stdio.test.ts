import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runStdioServer } from '../../../src-main/server/stdio';
import { waitFor, type Subscribe } from '../../support/wait';
import { delta, EchoHost, isReceive, type EchoConnection } from './helpers';

/** Collects complete stdout lines and lets tests wait for them. */
class LineReader {
  readonly lines: string[] = [];
  readonly #listeners = new Set<(line: string) => void>();
  #partial = '';

  constructor(stream: PassThrough) {
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      const parts = (this.#partial + chunk).split('\n');
      this.#partial = parts.pop() ?? '';
      for (const line of parts) {
        this.lines.push(line);
        for (const listener of [...this.#listeners]) listener(line);
      }
    });
  }

  readonly subscribe: Subscribe<string> = (listener) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  get messages(): unknown[] {
    return this.lines.map((line) => JSON.parse(line) as unknown);
  }
}

function start(options: { maxQueuedBytes?: number; stdout?: Writable } = {}) {
  const host = new EchoHost();
  const stdin = new PassThrough();
  const stdoutPipe = new PassThrough();
  const stderr = new PassThrough();
  let errText = '';
  stderr.setEncoding('utf8');
  stderr.on('data', (chunk: string) => (errText += chunk));
  const out = new LineReader(stdoutPipe);
  const done = runStdioServer(host, { stdin, stdout: options.stdout ?? stdoutPipe, stderr }, options);
  const connection = host.connections[0];
  if (connection === undefined) throw new Error('runStdioServer did not connect a client');
  return { host, stdin, out, done, connection, stderr: () => errText };
}

function receivedMessage(host: EchoHost, predicate: (message: unknown) => boolean) {
  return waitFor(host.subscribe, (event) => isReceive(event) && predicate(event.message), {
    label: 'a received message',
  });
}

const hasId = (id: unknown) => (message: unknown) =>
  typeof message === 'object' && message !== null && 'id' in message && message.id === id;

describe('runStdioServer', () => {
  it('reads messages split across chunks, ignores blank lines, and writes one JSON object per line', async () => {
    const { host, stdin, out, done, connection } = start();
    const answered = waitFor(out.subscribe, (line) => line.includes('"id":2'), { label: 'answer to id 2' });
    stdin.write('{"id":1,"method":"a/b",');
    stdin.write('"params":{"x":"é');
    stdin.write('"}}\n\n  \n{"id":2,"method":"c"}\n');
    await answered;
    expect(connection.received).toEqual([
      { id: 1, method: 'a/b', params: { x: 'é' } },
      { id: 2, method: 'c' },
    ]);
    expect(out.messages).toEqual([
      { id: 1, result: { echo: 'a/b', params: { x: 'é' } } },
      { id: 2, result: { echo: 'c', params: null } },
    ]);
    stdin.end();
    await done;
    expect(host.connections[0]?.closed).toBe(true);
  });

  it('answers a non-JSON line with a parse error and keeps serving', async () => {
    const { stdin, out, done, connection } = start();
    const answered = waitFor(out.subscribe, (line) => line.includes('"id":5'), { label: 'answer to id 5' });
    stdin.write('this is not json\n{"id":5,"method":"still/alive"}\n');
    await answered;
    expect(connection.received[0]).toEqual({
      kind: 'frame-error',
      code: -32700,
      message: expect.stringMatching(/^Parse error: /) as unknown,
    });
    expect(out.messages).toEqual([
      { id: null, error: { code: -32700, message: expect.stringMatching(/^Parse error: /) as unknown } },
      { id: 5, result: { echo: 'still/alive', params: null } },
    ]);
    stdin.end();
    await done;
  });

  it('rejects a 12 MB line cleanly and serves the next line', async () => {
    const { host, stdin, out, done, connection } = start();
    const after = receivedMessage(host, hasId('after'));
    const answered = waitFor(out.subscribe, (line) => line.includes('"after"'), { label: 'answer to "after"' });
    const mib = 'x'.repeat(1024 * 1024);
    for (let i = 0; i < 12; i += 1) stdin.write(mib);
    stdin.write('\n{"id":"after","method":"next"}\n');
    await after;
    expect(connection.received).toEqual([
      { kind: 'frame-error', code: -32600, message: 'message too large: 12582912 bytes exceeds the 10 MiB limit' },
      { id: 'after', method: 'next' },
    ]);
    await answered;
    expect(out.messages).toEqual([
      { id: null, error: { code: -32600, message: 'message too large: 12582912 bytes exceeds the 10 MiB limit' } },
      { id: 'after', result: { echo: 'next', params: null } },
    ]);
    stdin.end();
    await done;
  });

  it('closes the connection and resolves when stdin ends, handling a last line without newline', async () => {
    const { host, stdin, done, connection } = start();
    const closed = waitFor(host.subscribe, (event) => event.type === 'close', { label: 'connection close' });
    stdin.end('{"method":"last"}');
    await closed;
    await done;
    expect(connection.received).toEqual([{ method: 'last' }]);
    expect(connection.closed).toBe(true);
  });

  it('stops when stdout fails (the client went away)', async () => {
    const broken = new Writable({
      write(_chunk, _encoding, callback) {
        callback(new Error('write EPIPE'));
      },
    });
    const { done, connection, stderr } = start({ stdout: broken });
    connection.notify('warning', { message: 'hello?' });
    await done;
    expect(connection.closed).toBe(true);
    expect(stderr()).toContain('writing stdout failed (write EPIPE)');
  });
});

/** A stdout whose writes complete only when the test says so: a client that is not reading. */
class StalledStdout extends Writable {
  readonly chunks: string[] = [];
  #pending: (() => void)[] = [];

  constructor() {
    super({ highWaterMark: 16, decodeStrings: false });
  }

  override _write(chunk: string | Buffer, _encoding: BufferEncoding, callback: () => void): void {
    this.chunks.push(chunk.toString());
    this.#pending.push(callback);
  }

  release(): void {
    const pending = this.#pending;
    this.#pending = [];
    for (const callback of pending) callback();
  }

  get lines(): unknown[] {
    return this.chunks
      .join('')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as unknown);
  }
}

describe('runStdioServer with a slow client', () => {
  it('merges the deltas that wait for a congested stdout', async () => {
    const stdout = new StalledStdout();
    const { stdin, done, connection } = start({ stdout });
    const drained = new Promise<void>((resolve) => stdout.once('drain', () => resolve()));
    const words = ['The', ' quick', ' brown', ' fox'];
    for (const word of words)
      connection.notify('item/agentMessage/delta', { threadId: 't1', turnId: 'u1', itemId: 'm1', delta: word });
    connection.notify('item/completed', { itemId: 'm1' });
    expect(stdout.lines).toEqual([delta('m1', 'The')]);
    stdout.release();
    await drained;
    stdout.release();
    expect(stdout.lines).toEqual([
      delta('m1', 'The'),
      delta('m1', ' quick brown fox'),
      { method: 'item/completed', params: { itemId: 'm1' } },
    ]);
    stdin.end();
    stdout.release();
    await done;
  });

  it('drops a client whose queue passes the limit, naming it on stderr', async () => {
    const stdout = new StalledStdout();
    const { done, connection, stderr } = start({ stdout, maxQueuedBytes: 4096 });
    const push = (c: EchoConnection) => {
      for (let i = 0; i < 40 && !c.closed; i += 1) c.notify('warning', { message: 'w'.repeat(200) });
    };
    push(connection);
    await done;
    expect(connection.closed).toBe(true);
    expect(stderr()).toMatch(
      /weft: client stdio is not reading fast enough: \d+ bytes of outgoing messages queued \(limit 4096 bytes\); dropping the connection/,
    );
  });
});
