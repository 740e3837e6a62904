// The start-up index check of `weft app-server` runs in a worker thread: while the check is held inside a
// rollout, the server still answers `thread/list` from the index. The rollout that holds it is a FIFO
// named as a rollout: the check's stat of it returns at once, but opening it to read waits until the test
// opens it for writing (then it reads nothing: a rollout is read up to the size its stat gave, 0 here). A
// check on the main thread would hold every request until then. The worker runs at a lower priority
// (nice 10) than the thread that answers.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { appendFile, mkdir, open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { uuidv7 } from '../../src-main/util/ids';
import { StdioRpcClient } from '../support/rpc-client';
import { saveThreads } from '../support/saved-threads';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../support/workspace';

let home: WeftHome;
let ws: TempWorkspace;
let client: StdioRpcClient | null = null;
/** Opens the FIFO for writing and closes it, which lets the check's open return. */
let release: (() => Promise<void>) | null = null;

beforeEach(async () => {
  home = await makeWeftHome();
  ws = await makeTempWorkspace({ 'README.md': 'hello\n' });
});

afterEach(async () => {
  // A check still held (a failed test) is let go, so that the server can exit.
  await release?.();
  release = null;
  await client?.close();
  client = null;
  await ws.cleanup();
  await home.cleanup();
});

/** The rollout of thread `id` in `home`'s sessions. */
function rolloutOf(home: string, id: string): string {
  const found = readdirSync(join(home, 'sessions'), { recursive: true, encoding: 'utf8' }).find((f) =>
    f.endsWith(`-${id}.jsonl`),
  );
  if (found === undefined) throw new Error(`no rollout of ${id} in ${home}`);
  return join(home, 'sessions', found);
}

/** The nice value of each thread of process `pid` named `name` (/proc's `comm`). */
function niceOf(pid: number, name: string): number[] {
  return readdirSync(`/proc/${pid}/task`).flatMap((tid) => {
    try {
      if (readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim() !== name) return [];
      // The 19th field of stat; the second field (the name, in parentheses) may hold spaces.
      const fields = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
      return [Number(fields[16])];
    } catch {
      return []; // the thread ended meanwhile
    }
  });
}

/** Whether some thread of process `pid` waits in open() for the other end of a FIFO. */
function waitsOnFifo(pid: number): boolean {
  const tasks = readdirSync(`/proc/${pid}/task`);
  return tasks.some((tid) => {
    try {
      return readFileSync(`/proc/${pid}/task/${tid}/wchan`, 'utf8').trim() === 'wait_for_partner';
    } catch {
      return false; // the thread ended meanwhile
    }
  });
}

/**
 * A rollout that holds the check (see the top): newer than the saved threads (the check reads the newest
 * first), with no row yet; the function returned (also kept as `release`) lets the check go on.
 */
async function holdTheCheck(): Promise<() => Promise<void>> {
  const dayDir = join(home.dir, 'sessions', '2030', '01', '01');
  await mkdir(dayDir, { recursive: true });
  const fifo = join(dayDir, `rollout-2030-01-01T00-00-00-${uuidv7()}.jsonl`);
  expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
  const letGo = async (): Promise<void> => {
    await (await open(fifo, 'w')).close();
  };
  release = letGo;
  return letGo;
}

/** `weft app-server` on the home, once its check has reached the held rollout and waits there. */
async function startHeld(): Promise<{ server: StdioRpcClient; pid: number }> {
  const server = StdioRpcClient.start({ WEFT_HOME: home.dir }, ws.dir);
  client = server;
  const pid = server.child.pid ?? 0;
  await server.initialize();
  await expect.poll(() => waitsOnFifo(pid), { timeout: 15_000 }).toBe(true);
  return { server, pid };
}

describe.runIf(process.platform === 'linux')('the start-up index check', () => {
  it('leaves thread/list answered from the index while it is held inside a rollout', async () => {
    const saved = await saveThreads(home.dir, ws.dir, ['first question', 'second question']);
    const letGo = await holdTheCheck();
    // A thread renamed while the server was down: the check reads it again after the held rollout.
    const renamed = saved[0];
    if (renamed === undefined) throw new Error('no saved thread');
    const renamedPath = rolloutOf(home.dir, renamed.id);
    const rename = {
      type: 'event_msg',
      payload: { type: 'thread_name_updated', thread_id: renamed.id, thread_name: 'Renamed' },
    };
    await appendFile(renamedPath, `${JSON.stringify({ timestamp: new Date().toISOString(), ...rename })}\n`);

    const { server, pid } = await startHeld();
    // Its thread gives way for the CPU (nice 10); the thread that answers requests does not.
    expect(niceOf(pid, 'WorkerThread')).toEqual([10]);
    expect(niceOf(pid, 'MainThread')).toEqual([0]);

    const names = async (): Promise<[string, string | null][]> =>
      (await server.request<{ data: { id: string; name: string | null }[] }>('thread/list', {})).data.map((t) => [
        t.id,
        t.name,
      ]);
    const [second] = saved.slice(1);
    if (second === undefined) throw new Error('no second saved thread');
    // Answered from the index while the check is held: the rename is not in it yet.
    expect(await names()).toEqual([
      [second.id, null],
      [renamed.id, null],
    ]);
    expect(waitsOnFifo(pid)).toBe(true);

    release = null;
    await letGo();
    // The check goes on and repairs the renamed thread's row (the empty rollout is left out, with a warning).
    await expect.poll(names, { timeout: 15_000 }).toEqual([
      [second.id, null],
      [renamed.id, 'Renamed'],
    ]);
  });
  it('of a small home whose index is new runs beside the thread that answers, and its first list waits for it', async () => {
    const saved = await saveThreads(home.dir, ws.dir, ['first question', 'second question']);
    for (const suffix of ['', '-wal', '-shm']) await rm(join(home.dir, `weft.sqlite${suffix}`), { force: true });
    const letGo = await holdTheCheck();
    const { server, pid } = await startHeld();
    // The first lists wait for this check: it is not put below the thread that answers them.
    expect(niceOf(pid, 'WorkerThread')).toEqual([0]);
    expect(niceOf(pid, 'MainThread')).toEqual([0]);

    const listed = server.request<{ data: { id: string }[]; weftIndexing?: boolean }>('thread/list', {});
    release = null;
    await letGo();
    const page = await listed;
    expect({ ids: page.data.map((t) => t.id), indexing: page.weftIndexing }).toEqual({
      ids: saved.map((t) => t.id).reverse(),
      indexing: undefined,
    });
  });
});
