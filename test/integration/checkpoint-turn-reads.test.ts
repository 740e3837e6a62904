// Undo's preview, its revert and a hunk's revert find the turns to undo in the thread's rollout. Read in one
// go (`ThreadStore.read`), a big thread held the host: 50 ms of the main thread for the preview of a turn
// that changed 3,000 files (the checkpoint-stall bench), every other thread and window waiting. They read it
// as `thread/read` does (`readAsync`, the event loop given back between slices). Through the real app host
// and the mock Responses server.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ThreadStore } from '../../src-main/store/thread-store';
import { startMockResponsesServer, type MockResponsesServer } from '../support/mock-responses-server';
import { startInProcessHost, type InProcessHost, ok } from '../support/in-process-host';
import { evAssistantMessage, evCompleted, evCreated, evFunctionCall } from '../support/sse';
import { waitFor } from '../support/wait';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../support/workspace';

let server: MockResponsesServer;
let ws: TempWorkspace;
let home: WeftHome;
let app: InProcessHost | null = null;

beforeEach(async () => {
  server = await startMockResponsesServer();
  ws = await makeTempWorkspace({ 'a.txt': 'alpha\nbeta\n' });
  home = await makeWeftHome(
    `model = "mock-model"\nmodel_provider = "mock"\napproval_policy = "never"\nsandbox_mode = "workspace-write"\n[model_providers.mock]\nname = "Mock"\nbase_url = "${server.url}"\nenv_key = "MOCK_API_KEY"\nwire_api = "responses"\nrequest_max_retries = 0\n`,
  );
});

afterEach(async () => {
  vi.restoreAllMocks();
  await app?.close();
  app = null;
  await server.close();
  await ws.cleanup();
  await home.cleanup();
});

describe('the turns an undo reads', () => {
  it('are read from the rollout without holding the event loop, for the preview, a hunk and the revert', async () => {
    app = await startInProcessHost({
      weftHome: home.dir,
      cwd: ws.dir,
      env: { ...process.env, WEFT_HOME: home.dir, MOCK_API_KEY: 'x' },
    });
    const { client } = app;
    server.enqueueMany([
      {
        kind: 'sse',
        events: [evCreated(), evFunctionCall('c1', 'exec_command', { cmd: 'echo gamma >> a.txt' }), evCompleted()],
      },
      { kind: 'sse', events: [evCreated(), evAssistantMessage('changed'), evCompleted()] },
    ]);
    const { thread } = await ok<{ thread: { id: string } }>(client, 'thread/start', { cwd: ws.dir });
    const { turn } = await ok<{ turn: { id: string } }>(client, 'turn/start', {
      threadId: thread.id,
      input: [{ type: 'text', text: 'change a' }],
    });
    await waitFor(
      client.subscribe,
      (m) => 'method' in m && m.method === 'turn/completed' && JSON.stringify(m).includes(turn.id),
      { label: 'turn/completed' },
    );

    const wholeReads = vi.spyOn(ThreadStore.prototype, 'read');
    const pacedReads = vi.spyOn(ThreadStore.prototype, 'readAsync');
    const preview = await ok<{ files: { path: string }[] }>(client, 'weft/checkpoints/preview', {
      threadId: thread.id,
      beforeTurnId: turn.id,
    });
    expect(preview.files.map((f) => f.path)).toEqual(['a.txt']);
    // A hunk of a turn the thread does not have: refused once the turns are read.
    const hunk = await client.call('weft/checkpoints/revertHunk', {
      threadId: thread.id,
      turnId: 'no-such-turn',
      path: 'a.txt',
      hunk: { oldStart: 1, oldLines: 2, newStart: 1, newLines: 3 },
    });
    expect(hunk.error?.message).toContain('has no turn no-such-turn');
    await ok(client, 'thread/revert', { threadId: thread.id, beforeTurnId: turn.id, weftRestoreFiles: true });
    expect(await ws.read('a.txt')).toBe('alpha\nbeta\n');

    const withTurns = (calls: unknown[][]): number =>
      calls.filter((args) => (args[1] as { includeTurns?: boolean } | undefined)?.includeTurns === true).length;
    expect(withTurns(wholeReads.mock.calls)).toBe(0);
    expect(withTurns(pacedReads.mock.calls)).toBeGreaterThanOrEqual(3);
  });
});
