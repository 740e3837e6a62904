// A host that serves many threads over its life must give back what each one held: threads are created,
// given a turn against the mock model (one real streamed request through the openai SDK) and archived,
// cycle after cycle, through the real app host and dispatcher; the heap after a full garbage collection
// must stay flat once the process has warmed up. Each request used to leave a composite abort signal
// (`AbortSignal.any`) in Node's set of signals kept alive while a source lives, holding the thread's
// session: about 4 MB more per cycle of 100 threads.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, expect, it } from 'vitest';
import { startInProcessHost, type InProcessHost } from '../support/in-process-host';
import { startMockResponsesServer, type MockResponsesServer } from '../support/mock-responses-server';
import { answerTurn } from '../support/sse';
import { waitFor } from '../support/wait';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../support/workspace';

const THREADS_PER_CYCLE = 100;
const CYCLES = 5;
/** Growth allowed from the end of cycle 2 to the end of cycle 5 (it was about 12 MB; it is now under 1 MB). */
const MAX_GROWTH_BYTES = 5 * 1024 * 1024;

let app: InProcessHost | undefined;
let mock: MockResponsesServer | undefined;
let home: WeftHome | undefined;
let ws: TempWorkspace | undefined;

afterEach(async () => {
  await app?.close();
  await mock?.close();
  await home?.cleanup();
  await ws?.cleanup();
  app = mock = home = ws = undefined;
});

/** V8's full collection, reachable without starting the process with --expose-gc. */
function fullGc(): () => void {
  setFlagsFromString('--expose-gc');
  const gc: unknown = runInNewContext('gc');
  if (typeof gc !== 'function') throw new Error('V8 did not expose gc');
  return () => {
    gc();
    gc();
  };
}

function resultOf<T>(reply: { result?: unknown; error?: { message: string } }): T {
  if (reply.error) throw new Error(reply.error.message);
  return reply.result as T;
}

it('keeps the heap flat while threads are created, run and archived', { timeout: 240_000 }, async () => {
  const gc = fullGc();
  mock = await startMockResponsesServer();
  home = await makeWeftHome(
    `model = "mock-model"\nmodel_provider = "mock"\n[model_providers.mock]\nname = "Mock"\nbase_url = "${mock.url}"\nenv_key = "MOCK_API_KEY"\nwire_api = "responses"\nrequest_max_retries = 0\n[checkpoints]\nenabled = false\n`,
  );
  ws = await makeTempWorkspace({ 'notes.txt': 'one\n' });
  app = await startInProcessHost({
    weftHome: home.dir,
    cwd: ws.dir,
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', WEFT_HOME: home.dir, MOCK_API_KEY: 'k' },
  });
  const { client } = app;
  const heap: number[] = [];
  for (let cycle = 0; cycle < CYCLES; cycle++) {
    for (let i = 0; i < THREADS_PER_CYCLE; i++) {
      mock.enqueue(answerTurn(`answer ${cycle}.${i}`));
      const { thread } = resultOf<{ thread: { id: string } }>(await client.call('thread/start', { cwd: ws.dir }));
      const completed = waitFor(
        client.subscribe,
        (m) => 'method' in m && m.method === 'turn/completed' && JSON.stringify(m).includes(thread.id),
        { label: `turn of ${thread.id} completed` },
      );
      resultOf(await client.call('turn/start', { threadId: thread.id, input: [{ type: 'text', text: `hello ${i}` }] }));
      await completed;
      resultOf(await client.call('thread/archive', { threadId: thread.id }));
    }
    // What the client and the mock recorded is the test's, not the host's.
    client.received.length = 0;
    mock.forgetRequests();
    expect(resultOf<{ data: string[] }>(await client.call('thread/loaded/list', {})).data).toEqual([]);
    gc();
    heap.push(process.memoryUsage().heapUsed);
  }
  const mb = heap.map((b) => (b / 1024 / 1024).toFixed(1));
  const growth = (heap[CYCLES - 1] ?? 0) - (heap[1] ?? 0);
  expect(growth, `heap after each cycle (MB): ${mb.join(' → ')}`).toBeLessThan(MAX_GROWTH_BYTES);
  expect(mock.unexpected).toEqual([]);
});
