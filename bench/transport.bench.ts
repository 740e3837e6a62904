/**
 * Transport throughput: notifications per second from the core to a client while a model streams
 * 5,000 `item/agentMessage/delta` notifications, through Weft's stdio and WebSocket transports, each
 * compared with a bare JSONL/WebSocket echo of the same messages over the same kind of pipe/socket.
 *
 * The "model" emits deltas in bursts of BURST per macrotask, as an SSE stream arriving in chunks would.
 * Timing runs from the first delta to the client having parsed the final marker message. When the
 * client lags, Weft's queue merges deltas, so the client may receive fewer (longer) frames; the rate is
 * deltas delivered (by content), not frames.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { PassThrough, type Writable } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import { startWebServer } from '../src-main/server/http-server';
import { runStdioServer } from '../src-main/server/stdio';
import type { ClientConnection, ClientSink, ConnectionHost } from '../src-main/server/transport';
import type { BenchRow } from './measure';

const DELTAS = 5_000;
const BURST = 50;
const RUNS = 9;
const DONE_METHOD = 'bench/done';

interface Outcome {
  ms: number;
  frames: number;
  chars: number;
}

function makeDelta(index: number): object {
  return {
    method: 'item/agentMessage/delta',
    params: { threadId: 'thr_1', turnId: 'turn_1', itemId: 'msg_1', delta: `tok${index % 10} ` },
  };
}

const EXPECTED_CHARS = Array.from({ length: DELTAS }, (_, i) => `tok${i % 10} `.length).reduce((a, b) => a + b, 0);

/** Emits the deltas in bursts, one burst per macrotask, then the end marker. */
async function stream(send: (message: object) => void | Promise<void>): Promise<void> {
  for (let i = 0; i < DELTAS; i += BURST) {
    for (let j = i; j < Math.min(i + BURST, DELTAS); j += 1) await send(makeDelta(j));
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  await send({ method: DONE_METHOD, params: {} });
}

/** A host with one client at a time, to which the benchmark pushes notifications. */
class PushHost implements ConnectionHost {
  sink: ClientSink | undefined;
  readonly #connected: ((sink: ClientSink) => void)[] = [];

  connect(sink: ClientSink): ClientConnection {
    this.sink = sink;
    for (const wake of this.#connected.splice(0)) wake(sink);
    return { receive: () => undefined, close: () => undefined };
  }

  nextClient(): Promise<ClientSink> {
    return new Promise((resolve) => this.#connected.push(resolve));
  }
}

// ---- stdio: a child process reads the pipe, parses every line and reports when it sees the marker.

const READER = `
let buf = '', frames = 0, chars = 0;
process.stdout.write('ready\\n');
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buf += chunk;
  let nl;
  while ((nl = buf.indexOf('\\n')) !== -1) {
    const line = buf.slice(0, nl); buf = buf.slice(nl + 1);
    if (line === '') continue;
    const msg = JSON.parse(line);
    if (msg.method === '${DONE_METHOD}') { process.stdout.write(JSON.stringify({ frames, chars }) + '\\n'); process.exit(0); }
    frames += 1; chars += msg.params.delta.length;
  }
});
`;

async function spawnReader(): Promise<{ stdin: Writable; result: Promise<{ frames: number; chars: number }> }> {
  const child = spawn(process.execPath, ['-e', READER], { stdio: ['pipe', 'pipe', 'inherit'] });
  child.stdout.setEncoding('utf8');
  let out = '';
  const lines: ((line: string) => void)[] = [];
  child.stdout.on('data', (chunk: string) => {
    out += chunk;
    let nl: number;
    while ((nl = out.indexOf('\n')) !== -1) {
      const line = out.slice(0, nl);
      out = out.slice(nl + 1);
      lines.shift()?.(line);
    }
  });
  const nextLine = (): Promise<string> => new Promise((resolve) => lines.push(resolve));
  const ready = nextLine();
  const result = nextLine().then((line) => JSON.parse(line) as { frames: number; chars: number });
  await ready;
  return { stdin: child.stdin, result };
}

async function stdioWeft(): Promise<Outcome> {
  const reader = await spawnReader();
  const host = new PushHost();
  const connected = host.nextClient();
  const stdin = new PassThrough();
  const served = runStdioServer(host, { stdin, stdout: reader.stdin, stderr: process.stderr });
  const sink = await connected;
  const started = performance.now();
  await stream((message) => sink.send(message));
  const { frames, chars } = await reader.result;
  const ms = performance.now() - started;
  stdin.end();
  await served;
  return { ms, frames, chars };
}

async function stdioBare(): Promise<Outcome> {
  const reader = await spawnReader();
  const started = performance.now();
  await stream(async (message) => {
    if (!reader.stdin.write(`${JSON.stringify(message)}\n`)) await once(reader.stdin, 'drain');
  });
  const { frames, chars } = await reader.result;
  const ms = performance.now() - started;
  reader.stdin.end();
  return { ms, frames, chars };
}

// ---- WebSocket: an in-process client (the same for both paths) parses every frame.

function wsReader(
  url: string,
  protocols?: string[],
): Promise<{ ws: WebSocket; result: Promise<{ frames: number; chars: number }> }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, protocols);
    let frames = 0;
    let chars = 0;
    const result = new Promise<{ frames: number; chars: number }>((done) => {
      ws.on('message', (data: Buffer) => {
        const message = JSON.parse(data.toString('utf8')) as { method: string; params: { delta?: string } };
        if (message.method === DONE_METHOD) done({ frames, chars });
        else {
          frames += 1;
          chars += message.params.delta?.length ?? 0;
        }
      });
    });
    ws.once('open', () => resolve({ ws, result }));
    ws.once('error', reject);
  });
}

async function wsWeft(): Promise<Outcome> {
  const host = new PushHost();
  const server = await startWebServer(host, {
    host: '127.0.0.1',
    port: 0,
    hostExplicit: false,
    token: 'bench',
    staticDir: '/nonexistent',
    log: () => undefined,
  });
  const connected = host.nextClient();
  const reader = await wsReader(`ws://127.0.0.1:${server.port}/ws?token=bench`);
  const sink = await connected;
  const started = performance.now();
  await stream((message) => sink.send(message));
  const { frames, chars } = await reader.result;
  const ms = performance.now() - started;
  reader.ws.close();
  await server.close();
  return { ms, frames, chars };
}

async function wsBare(): Promise<Outcome> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string')
    throw new Error('the yardstick WebSocket server has no TCP port');
  const accepted = new Promise<WebSocket>((resolve) => server.once('connection', resolve));
  const reader = await wsReader(`ws://127.0.0.1:${address.port}/`);
  const socket = await accepted;
  const started = performance.now();
  await stream(async (message) => {
    socket.send(JSON.stringify(message));
    if (socket.bufferedAmount > 1024 * 1024) await new Promise<void>((resolve) => socket.send('', () => resolve()));
  });
  const { frames, chars } = await reader.result;
  const ms = performance.now() - started;
  reader.ws.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return { ms, frames, chars };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

async function measure(weft: () => Promise<Outcome>, bare: () => Promise<Outcome>) {
  const weftRuns: Outcome[] = [];
  const bareRuns: Outcome[] = [];
  await weft(); // warm-up: JIT and first-connection costs
  await bare();
  for (let i = 0; i < RUNS; i += 1) {
    weftRuns.push(await weft());
    bareRuns.push(await bare());
  }
  for (const run of [...weftRuns, ...bareRuns]) {
    if (run.chars !== EXPECTED_CHARS)
      throw new Error(`a client received ${run.chars} delta characters, expected ${EXPECTED_CHARS}`);
  }
  const weftRate = DELTAS / (median(weftRuns.map((r) => r.ms)) / 1000);
  const bareRate = DELTAS / (median(bareRuns.map((r) => r.ms)) / 1000);
  return { weftRate, bareRate, weftFrames: median(weftRuns.map((r) => r.frames)) };
}

export default async function run(): Promise<{ title: string; rows: BenchRow[]; notes?: string[] }> {
  const stdio = await measure(stdioWeft, stdioBare);
  const ws = await measure(wsWeft, wsBare);
  const rows: BenchRow[] = [];
  for (const [label, result] of [
    ['stdio', stdio],
    ['WebSocket', ws],
  ] as const) {
    rows.push(
      {
        name: `${label}: Weft transport`,
        value: Math.round(result.weftRate),
        unit: 'notifications/s',
        note: `${result.weftFrames} frames for ${DELTAS} deltas (median)`,
      },
      { name: `${label}: bare echo (yardstick)`, value: Math.round(result.bareRate), unit: 'notifications/s' },
      {
        name: `${label}: Weft / bare`,
        value: Number((result.weftRate / result.bareRate).toFixed(2)),
        unit: 'ratio',
        target: '>= 0.8',
      },
    );
  }
  return {
    title: 'Transports: 5,000 agent-message deltas from core to client',
    rows,
    notes: [
      `${DELTAS} deltas in bursts of ${BURST} per macrotask; median of ${RUNS} runs after one warm-up each.`,
      'stdio: the client is a child process reading the pipe and parsing every line.',
      'WebSocket: the client runs in the benchmark process (the same client for both paths), over loopback TCP.',
      'A frames count below 5,000 means the client lagged and Weft merged consecutive deltas.',
    ],
  };
}
