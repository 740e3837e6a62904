// What a `thread/list` leaves behind must die young. A list that leaves objects reachable from the old
// generation (zod's failed `safeParse` did: its result holds the error behind a getter, and V8 keeps an
// accessor's pair in the old generation) makes every scavenge copy and promote what the lists since the
// one before made: scavenges of 1 ms instead of a fraction of one, inside the lists, and an old generation
// that grows until a full collection. Measured with V8's own account of each scavenge (`--trace-gc-nvp`) in
// `weft app-server`, on threads that never ran a turn (no last turn status: those failed the parse).
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ThreadStore } from '../../src-main/store';
import { uuidv7 } from '../../src-main/util/ids';
import { sharedCompileCache } from '../support/weft-cli';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../support/workspace';

const weftBin = resolve(__dirname, '../../bin/weft.js');

let home: WeftHome;
let ws: TempWorkspace;
let child: ChildProcessWithoutNullStreams | null = null;

beforeEach(async () => {
  home = await makeWeftHome();
  ws = await makeTempWorkspace({ 'README.md': 'hello\n' });
});

afterEach(async () => {
  if (child !== null && child.exitCode === null) {
    const exited = new Promise((resolve) => child?.once('exit', resolve));
    child.stdin.end();
    await exited;
  }
  child = null;
  await ws.cleanup();
  await home.cleanup();
});

/** Saves `count` threads that never ran a turn (each a named thread: its rollout holds its meta and name). */
async function saveThreadsWithoutTurns(count: number): Promise<void> {
  const store = ThreadStore.open(home.dir, { onWarning: () => undefined });
  try {
    for (let i = 0; i < count; i++) {
      const id = uuidv7();
      const { recorder } = store.createThread({
        id,
        cwd: ws.dir,
        modelProvider: 'mock',
        model: 'mock-model',
        source: 'appServer',
        baseInstructions: null,
      });
      // Written through the open recorder: the thread's file is made at its first line, this one.
      await store.setName(id, `Thread ${i}`);
      await recorder.close();
    }
  } finally {
    await store.close();
  }
}

describe('thread/list', () => {
  it('leaves nothing for a scavenge to promote', async () => {
    await saveThreadsWithoutTurns(25);
    child = spawn(process.execPath, ['--trace-gc', '--trace-gc-nvp', weftBin, 'app-server'], {
      cwd: ws.dir,
      env: {
        PATH: process.env['PATH'] ?? '',
        HOME: process.env['HOME'] ?? '',
        ...sharedCompileCache(),
        WEFT_HOME: home.dir,
      },
    });
    const server = child;
    const promoted: number[] = [];
    let listing = false;
    let answered = 0;
    let listed = -1;
    const LISTS = 2_000;
    // The same page each time, kept by the host while the index is unchanged (list-query.ts): what each list
    // makes (its answer, its write) must die young. A page made anew is threadFromRow's test
    // (test/unit/store/thread-row-garbage.test.ts).
    const PAGE = { limit: 25 };
    const done = new Promise<void>((resolve, reject) => {
      server.once('exit', (code) => reject(new Error(`the app server ended (exit ${String(code)})`)));
      const send = (id: number, method: string, params: object): void => {
        server.stdin.write(`${JSON.stringify({ id, method, params })}\n`);
      };
      createInterface({ input: server.stdout }).on('line', (line) => {
        // V8 prints its lines through a buffer of its own, flushed when full: an answer (one write of Node's)
        // may follow part of a trace line on the same line. An answer ends its line.
        const at = line.search(/\{"(id|method)":/);
        const trace = at === -1 ? line : line.slice(0, at);
        // V8's line for one collection: "… pause=0.3 mutator=5.1 gc=s … allocated=6858848 promoted=0 …".
        const fields = new Map(trace.split(' ').map((kv) => kv.split('=') as [string, string]));
        const bytes = Number(fields.get('promoted'));
        if (listing && fields.get('gc') === 's' && Number.isFinite(bytes)) promoted.push(bytes);
        if (at === -1) return;
        const message = JSON.parse(line.slice(at)) as { id?: number; result?: { data?: unknown[] } };
        if (message.id === 1) {
          send(2, 'thread/list', PAGE);
          return;
        }
        if (message.id === undefined) return;
        answered += 1;
        listed = message.result?.data?.length ?? -1;
        // The start-up's own garbage (modules, the index check) is collected while the first lists run.
        if (answered === 100) listing = true;
        if (answered < LISTS) send(message.id + 1, 'thread/list', PAGE);
        else resolve();
      });
      send(1, 'initialize', { clientInfo: { name: 'list-garbage', version: '0' } });
    });
    await done;
    expect(listed).toBe(25);
    // 1,900 lists allocate some 70 MB: several scavenges of a young generation of 8 to 32 MB.
    // The first two may still promote what the start left young (assembling the host goes on meanwhile).
    const later = promoted.slice(2);
    expect(later.length).toBeGreaterThanOrEqual(3);
    const median = later.slice().sort((a, b) => a - b)[later.length >> 1] ?? Infinity;
    // Before: 450 KB and more promoted at each scavenge, all of it the lists' own threads and zod's issues.
    expect(median, `promoted per scavenge: ${promoted.join(', ')}`).toBeLessThan(64 * 1024);
  });
});
