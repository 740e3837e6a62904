// The first look at a workspace (every file's content stored once) is taken while the model thinks about
// the turn's first answer, through a real `weft app-server`: by the time the model asks for a command the
// files are in the store, and the command's changes are recorded, shown and undone against that look.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  mockModelConfig,
  createGate,
  startMockResponsesServer,
  type MockResponsesServer,
} from '../support/mock-responses-server';
import { StdioRpcClient } from '../support/rpc-client';
import { evAssistantMessage, evCompleted, evCreated, evFunctionCall } from '../support/sse';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../support/workspace';

const COUNT = 300;
const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

let server: MockResponsesServer;
let ws: TempWorkspace;
let home: WeftHome;
let client: StdioRpcClient | null = null;

beforeEach(async () => {
  server = await startMockResponsesServer();
  const files: Record<string, string> = { 'notes.txt': 'one\n' };
  for (let i = 0; i < COUNT; i++) files[`src/f${i}.txt`] = `file ${i}\n`;
  ws = await makeTempWorkspace(files);
  home = await makeWeftHome(mockModelConfig(server.url));
});

afterEach(async () => {
  await client?.close();
  client = null;
  await server.close();
  await ws.cleanup();
  await home.cleanup();
});

/** Whether the blob store holds `text` (a file's content). */
const stored = (text: string): boolean => {
  const hash = sha256(text);
  return existsSync(join(home.dir, 'checkpoints', 'blobs', hash.slice(0, 2), hash.slice(2)));
};

describe("a turn's first look at the workspace", () => {
  it('is taken while the model thinks, and the first command is recorded against it', async () => {
    client = StdioRpcClient.start({ WEFT_HOME: home.dir, MOCK_API_KEY: 'x' }, ws.dir);
    await client.initialize();
    const thinking = createGate();
    server.enqueueMany([
      {
        kind: 'sse-slow',
        events: [
          evCreated(),
          thinking,
          evFunctionCall('c1', 'exec_command', { cmd: 'echo two >> notes.txt && rm src/f7.txt' }),
          evCompleted(),
        ],
      },
      { kind: 'sse', events: [evCreated(), evAssistantMessage('done'), evCompleted()] },
    ]);
    const { thread } = await client.request<{ thread: { id: string } }>('thread/start', { cwd: ws.dir });
    const { turn } = await client.request<{ turn: { id: string } }>('turn/start', {
      threadId: thread.id,
      input: [{ type: 'text', text: 'edit the notes' }],
    });
    // The model has not answered yet: every file's content reaches the store meanwhile.
    const contents = ['one\n', ...Array.from({ length: COUNT }, (_, i) => `file ${i}\n`)];
    await expect.poll(() => contents.filter((text) => !stored(text)).length).toBe(0);
    expect(server.requests).toHaveLength(1);
    thinking.release();

    await client.notification('turn/completed', (p) => JSON.stringify(p).includes(turn.id));
    const diffs = client.notifications('turn/diff/updated');
    const diff = String(diffs[diffs.length - 1]?.['diff']);
    expect(diff).toContain('diff --git a/notes.txt b/notes.txt');
    expect(diff).toContain(' one\n+two\n');
    expect(diff).toContain('deleted file mode 100644');
    expect(diff).toContain('-file 7\n');

    await client.request('thread/revert', { threadId: thread.id, beforeTurnId: turn.id, weftRestoreFiles: true });
    expect(readFileSync(ws.path('notes.txt'), 'utf8')).toBe('one\n');
    expect(readFileSync(ws.path('src/f7.txt'), 'utf8')).toBe('file 7\n');
  });
});
