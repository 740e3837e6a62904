// Kill -9 a process that is recording a thread, again and again, at random moments: every thread must still
// load, the index must repair itself, and nothing the writer had written before the kill may be lost.
// Lines are written in batches off the event loop (see rollout-writer.ts): an item counts as written once
// `recorder.written()` says so; what was only recorded may be lost by a kill, as the design allows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { ThreadStore } from '../../src-main/store';
import { uuidv7 } from '../../src-main/util/ids';
import { makeWeftHome, type WeftHome } from '../support/workspace';

const ROOT = resolve(__dirname, '../..');
const BUNDLE = join(ROOT, 'node_modules/.cache/weft-store-crash/writer.mjs');

/** The writer child: records turns forever; once each item is written (`written()`) it prints `w <item id>`. */
const WRITER = `
import { ThreadStore } from './src-main/store';
const [home, threadId, mode, seed] = process.argv.slice(2);
const store = ThreadStore.open(home, { repair: false, onWarning: () => undefined });
if (mode === 'open') {
  process.stdout.write('opened ' + store.list().data.length + '\\n');
  process.exit(0);
}
const recorder = mode === 'create'
  ? store.createThread({ id: threadId, cwd: '/crash', modelProvider: 'openai', model: 'm', source: 'exec', baseInstructions: null }).recorder
  : store.openForAppend(threadId).recorder;
let n = Number(seed);
const ack = (id) => process.stdout.write('w ' + id + '\\n');
for (let t = 0; ; t++) {
  const turnId = 'turn-' + seed + '-' + t;
  const turn = { id: turnId, items: [], status: 'inProgress', error: null, startedAt: 1, completedAt: null, durationMs: null };
  recorder.notification({ method: 'turn/started', params: { threadId, turn } });
  recorder.turnContext({ turnId, cwd: '/crash', approvalPolicy: 'never', sandboxPolicy: { type: 'dangerFullAccess' }, model: 'm', effort: null, summary: null });
  for (let i = 0; i < 6; i++) {
    const id = 'item-' + seed + '-' + t + '-' + i;
    const size = (n = (n * 1103515245 + 12345) % 2147483648) % 60000;
    const item = i === 0
      ? { type: 'userMessage', id, content: [{ type: 'text', text: 'crash test ' + seed }] }
      : { type: 'commandExecution', id, command: 'yes', cwd: '/crash', processId: null, status: 'completed', commandActions: [], aggregatedOutput: 'y\\n'.repeat(size / 2), exitCode: 0, durationMs: 1 };
    recorder.responseItems([{ type: 'function_call_output', call_id: id, output: 'x'.repeat(size) }]);
    recorder.notification({ method: 'item/completed', params: { threadId, turnId, item } });
    await recorder.written();
    ack(id);
  }
  recorder.notification({ method: 'turn/completed', params: { threadId, turn: { ...turn, status: 'completed', completedAt: 2, durationMs: 1000 } } });
  await recorder.turnEnded();
}
`;

let home: WeftHome;
/** Writers still running (killed before the home is removed, should a test fail midway). */
const running = new Set<ChildProcess>();

beforeAll(async () => {
  mkdirSync(join(BUNDLE, '..'), { recursive: true });
  await build({
    stdin: { contents: WRITER, resolveDir: ROOT, loader: 'ts', sourcefile: 'crash-writer.ts' },
    outfile: BUNDLE,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: ['better-sqlite3'],
    logLevel: 'warning',
  });
  home = await makeWeftHome();
});

afterAll(async () => {
  await Promise.all(
    [...running].map((child) => {
      const exited = new Promise((resolve) => child.once('close', resolve));
      child.kill('SIGKILL');
      return exited;
    }),
  );
  await home?.cleanup();
});

/** Runs the writer until it has acknowledged `killAfter` items, then kills it with SIGKILL. */
function runAndKill(threadId: string, mode: 'create' | 'append', seed: number, killAfter: number): Promise<string[]> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, [BUNDLE, home.dir, threadId, mode, String(seed)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    running.add(child);
    const acked: string[] = [];
    let buffered = '';
    let stderr = '';
    let killed = false;
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      buffered += d.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const l of lines) if (l.startsWith('w ')) acked.push(l.slice(2));
      if (!killed && acked.length >= killAfter) {
        killed = true;
        child.kill('SIGKILL');
      }
    });
    child.on('close', (_code, signal) => {
      running.delete(child);
      if (signal === 'SIGKILL') resolveRun(acked);
      else reject(new Error(`the writer stopped by itself: ${stderr}`));
    });
  });
}

describe('several processes at once', () => {
  it('open a brand-new home together: one creates the index, the others wait for it', async () => {
    const fresh = await makeWeftHome();
    try {
      const runs = Array.from(
        { length: 4 },
        () =>
          new Promise<string>((resolveRun, reject) => {
            const child = spawn(process.execPath, [BUNDLE, fresh.dir, 'none', 'open', '0'], {
              stdio: ['ignore', 'pipe', 'pipe'],
            });
            let out = '';
            let err = '';
            child.stdout.on('data', (d: Buffer) => (out += d.toString()));
            child.stderr.on('data', (d: Buffer) => (err += d.toString()));
            child.on('close', (code) =>
              code === 0 ? resolveRun(out.trim()) : reject(new Error(`open failed (${code}): ${err}`)),
            );
          }),
      );
      expect(await Promise.all(runs)).toEqual(['opened 0', 'opened 0', 'opened 0', 'opened 0']);
    } finally {
      await fresh.cleanup();
    }
  });
});

describe('kill -9 while recording', () => {
  // Twelve writer processes, started and killed one round at a time.
  it('never loses a written line, and every thread loads and is indexed again', { timeout: 120_000 }, async () => {
    const threads = [uuidv7(), uuidv7(), uuidv7()];
    const acked = new Map<string, string[]>(threads.map((id) => [id, []]));
    let seed = 7;
    for (let round = 0; round < 4; round++) {
      // One writer per thread at once; each is killed after a different number of items.
      await Promise.all(
        threads.map(async (id) => {
          seed = (seed * 31 + 17) % 1000;
          const written = await runAndKill(id, round === 0 ? 'create' : 'append', seed, 1 + (seed % 17));
          acked.get(id)?.push(...written);
        }),
      );
      if (round === 2)
        for (const f of readdirSync(home.dir)) if (f.startsWith('weft.sqlite')) rmSync(join(home.dir, f));

      const warnings: string[] = [];
      const store = ThreadStore.open(home.dir, { onWarning: (m) => warnings.push(m) });
      try {
        for (const id of threads) {
          const state = store.load(id);
          const items = new Set(state.turns.flatMap((t) => t.items.map((i) => i.id)));
          const history = new Set(
            state.history.flatMap((h) => ('call_id' in h && typeof h.call_id === 'string' ? [h.call_id] : [])),
          );
          for (const itemId of acked.get(id) ?? []) {
            expect(items.has(itemId), `item ${itemId} after round ${round}`).toBe(true);
            expect(history.has(itemId), `history of ${itemId} after round ${round}`).toBe(true);
          }
          expect(
            state.warnings.every((w) => /not a complete line|skipped: not JSON/.test(w)),
            state.warnings.join('\n'),
          ).toBe(true);
        }
        await store.whenIndexed();
        const listed = store.list({ limit: 100 }).data;
        expect(listed.map((t) => t.id).sort()).toEqual([...threads].sort());
        for (const row of listed) {
          expect(row.preview).toMatch(/^crash test \d+$/);
          expect(row.updatedAt).toBe(store.load(row.id).thread.updatedAt);
          expect(statSync(row.path ?? '').size).toBeGreaterThan(0);
        }
        expect(warnings).toEqual([]);
      } finally {
        await store.close();
      }
    }
  });
});
