// The first command of a thread in a project the host has not looked at yet: before it runs, the first
// look stores every file's content (so that Undo can put back what the command changes). A `weft
// app-server` subprocess (mock Responses server, real sandbox) in a fresh project of 3,000 files of 8 KB;
// the model takes THINK_MS to ask for one command. The value is how long the command's item took, from
// `item/started` to `item/completed` (the look before it, the command, the look after it and the turn's
// diff). With WEFT_BASELINE_BIN (the `bin/weft.js` of another build) the same runs alternate with it.
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createGate, startMockResponsesServer, type MockResponsesServer } from '../test/support/mock-responses-server';
import { StdioRpcClient } from '../test/support/rpc-client';
import { evAssistantMessage, evCompleted, evCreated, evFunctionCall } from '../test/support/sse';
import { median, type BenchRow } from './measure';
import { writeMockHome, writeSmallFiles } from './mock-project';

const FILES = 3000;
/** How long the model "thinks" before it asks for the command (a first answer of a real model takes longer). */
const THINK_MS = 2000;

async function once(bin: string, server: MockResponsesServer, scratch: string): Promise<number> {
  const home = join(scratch, 'home');
  const ws = join(scratch, 'ws');
  writeMockHome(home, server.url, 0);
  writeSmallFiles(join(ws, 'src'), FILES);
  const rpc = StdioRpcClient.start({ WEFT_HOME: home, MOCK_API_KEY: 'x' }, ws, bin);
  try {
    await rpc.initialize();
    const thinking = createGate();
    server.enqueueMany([
      {
        kind: 'sse-slow',
        events: [
          evCreated(),
          thinking,
          evFunctionCall('c1', 'exec_command', { cmd: 'echo edited >> src/d1/f1.txt' }),
          evCompleted(),
        ],
      },
      { kind: 'sse', events: [evCreated(), evAssistantMessage('done'), evCompleted()] },
    ]);
    const { thread } = await rpc.request<{ thread: { id: string } }>('thread/start', { cwd: ws });
    const { turn } = await rpc.request<{ turn: { id: string } }>('turn/start', {
      threadId: thread.id,
      input: [{ type: 'text', text: 'edit one file' }],
    });
    const think = setTimeout(() => thinking.release(), THINK_MS);
    await rpc.notification('turn/completed', (p) => JSON.stringify(p).includes(turn.id), 0, 120_000);
    clearTimeout(think);
    const isCommand = (i: number, method: string): boolean => {
      const m = rpc.received[i];
      return m?.method === method && JSON.stringify(m.params).includes('"type":"commandExecution"');
    };
    const started = rpc.received.findIndex((_, i) => isCommand(i, 'item/started'));
    const completed = rpc.received.findIndex((_, i) => isCommand(i, 'item/completed'));
    if (started < 0 || completed < 0) throw new Error('the command item was not seen');
    return (rpc.receivedAt[completed] ?? 0) - (rpc.receivedAt[started] ?? 0);
  } finally {
    await rpc.close();
  }
}

export default async function run(): Promise<{ title: string; rows: BenchRow[]; notes: string[] }> {
  const builds: [string, string][] = [['this build', join(process.cwd(), 'bin', 'weft.js')]];
  const baseline = process.env['WEFT_BASELINE_BIN'];
  if (baseline !== undefined && baseline !== '') builds.push(['baseline', resolve(baseline)]);
  const runs = Number(process.env['WEFT_FIRST_LOOK_RUNS'] ?? '3');
  const results = new Map<string, number[]>();
  const server = await startMockResponsesServer();
  const loadBefore = loadavg()[0]?.toFixed(1) ?? '?';
  try {
    for (let r = 0; r < runs; r++) {
      for (const [label, bin] of builds) {
        const scratch = mkdtempSync(join(tmpdir(), 'weft-first-look-'));
        try {
          results.set(label, [...(results.get(label) ?? []), await once(bin, server, scratch)]);
        } finally {
          rmSync(scratch, { recursive: true, force: true });
        }
      }
    }
  } finally {
    await server.close();
  }
  const rows: BenchRow[] = builds.map(([label]) => {
    const times = results.get(label) ?? [];
    return {
      name: `first command in a fresh project of ${FILES.toLocaleString('en')} files, the model asking after ${THINK_MS / 1000} s: its item, started to completed (${label})`,
      value: Math.round(median(times)),
      unit: 'ms',
      note: `median of ${times.length}: ${times.map((t) => Math.round(t)).join(', ')} ms`,
    };
  });
  return {
    title: 'The first look at a project',
    rows,
    notes: [
      `Load ${loadBefore}→${loadavg()[0]?.toFixed(1) ?? '?'} on 2 shared cores (wall clock).`,
      baseline !== undefined && baseline !== ''
        ? `"baseline" is WEFT_BASELINE_BIN=${baseline}, run alternately with this build.`
        : 'Set WEFT_BASELINE_BIN to the bin/weft.js of another build to measure it alongside.',
    ],
  };
}
