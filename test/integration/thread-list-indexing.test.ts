// A new thread index (its file deleted, or a first start over existing rollouts) is built in the
// background. A list waits for it a moment (a small home is whole by then), then answers from what is
// indexed so far, and must say so: through the real `weft app-server`, the first `thread/list` over
// 5,000 threads is flagged `weftIndexing`, the server tells when the index is whole
// (`weft/threads/indexed`), and the list then holds every thread.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ThreadStore } from '../../src-main/store';
import { uuidv7 } from '../../src-main/util/ids';
import { StdioRpcClient } from '../support/rpc-client';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../support/workspace';
import { ScriptedSession, meta } from '../unit/store/helpers';

const THREADS = 5000;

let ws: TempWorkspace;
let home: WeftHome;
let client: StdioRpcClient | undefined;

beforeEach(async () => {
  ws = await makeTempWorkspace({ 'notes.txt': 'one\n' });
  home = await makeWeftHome('model = "mock-model"\n');
});

afterEach(async () => {
  await client?.close();
  client = undefined;
  await ws.cleanup();
  await home.cleanup();
});

/** Writes `count` saved threads of one turn each into the home (copies of one made by the store). */
async function saveThreads(count: number): Promise<void> {
  const store = ThreadStore.open(home.dir, { onWarning: () => undefined });
  const id = uuidv7();
  const { recorder, path } = store.createThread(meta(id, ws.dir));
  await new ScriptedSession(id, recorder).turn([{ type: 'text', text: 'hello there' }], 'completed');
  await recorder.close();
  await store.close();
  const text = await readFile(path, 'utf8');
  await rm(path);
  for (let i = 0; i < count; i++) {
    const copy = uuidv7();
    const target = join(dirname(path), path.slice(dirname(path).length + 1).replace(id, copy));
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, text.replaceAll(id, copy));
  }
  for (const suffix of ['', '-wal', '-shm']) await rm(join(home.dir, `weft.sqlite${suffix}`), { force: true });
}

interface Page {
  data: { id: string }[];
  nextCursor: string | null;
  weftIndexing?: boolean;
}

async function listAll(rpc: StdioRpcClient): Promise<{ ids: Set<string>; flagged: boolean }> {
  const ids = new Set<string>();
  let flagged = false;
  let cursor: string | null = null;
  do {
    const page: Page = await rpc.request<Page>('thread/list', { cwd: ws.dir, limit: 500, cursor });
    for (const t of page.data) ids.add(t.id);
    flagged ||= page.weftIndexing === true;
    cursor = page.nextCursor;
  } while (cursor !== null);
  return { ids, flagged };
}

it('says a list is partial while a new index is built, and when it is whole', { timeout: 60_000 }, async () => {
  await saveThreads(THREADS);
  const rpc = StdioRpcClient.start({ WEFT_HOME: home.dir }, ws.dir);
  client = rpc;
  await rpc.initialize();

  const first = await rpc.request<Page>('thread/list', { cwd: ws.dir, limit: 50 });
  expect(first.weftIndexing).toBe(true);
  expect(first.data.length).toBeLessThanOrEqual(50);
  await rpc.notification('weft/threads/indexed');

  const whole = await listAll(rpc);
  expect(whole).toEqual({ ids: expect.any(Set), flagged: false });
  expect(whole.ids.size).toBe(THREADS);

  // The index is whole: the next start lists at once, unflagged.
  await rpc.close();
  const again = StdioRpcClient.start({ WEFT_HOME: home.dir }, ws.dir);
  client = again;
  await again.initialize();
  const next = await again.request<Page>('thread/list', { cwd: ws.dir, limit: 50 });
  expect(next.data).toHaveLength(50);
  expect(next.weftIndexing).toBeUndefined();
});

it('lists a small home whole at once while its new index is built', async () => {
  await saveThreads(20);
  const rpc = StdioRpcClient.start({ WEFT_HOME: home.dir }, ws.dir);
  client = rpc;
  await rpc.initialize();
  const first = await rpc.request<Page>('thread/list', { cwd: ws.dir, limit: 50 });
  expect(first.data).toHaveLength(20);
  expect(first.weftIndexing).toBeUndefined();
});
