// Undo's preview of a turn that changed many files: the answer carries the texts of the first files only (a
// few hundred KB), so it leaves the host at once, and says of every other file that its texts come on
// request (`deferred`); `weft/checkpoints/previewFile` then gives one file's texts, as the dialog asks for
// each file it scrolls to. Before, the answer carried 4 MiB of texts, and every file past them was shown
// as "too large to show" whatever its size. Through the real `weft app-server` (mock Responses server).
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mockModelConfig, startMockResponsesServer, type MockResponsesServer } from '../support/mock-responses-server';
import { StdioRpcClient } from '../support/rpc-client';
import { answerTurn, evCompleted, evCreated, evFunctionCall } from '../support/sse';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../support/workspace';

const FILES = 400;
/** Each file: 8 KB before the turn, 16 KB after it (each line doubled). */
const before = (i: number): string =>
  Array.from({ length: 128 }, (_, n) => `file ${i} line ${n}`.padEnd(63, '.')).join('\n') + '\n';

let server: MockResponsesServer;
let ws: TempWorkspace;
let home: WeftHome;
let client: StdioRpcClient | null = null;

beforeEach(async () => {
  server = await startMockResponsesServer();
  const files: Record<string, string> = {};
  for (let i = 0; i < FILES; i++) files[`src/f${String(i).padStart(3, '0')}.txt`] = before(i);
  ws = await makeTempWorkspace(files);
  home = await makeWeftHome(mockModelConfig(server.url, 2));
});

afterEach(async () => {
  await client?.close();
  client = null;
  await server.close();
  await ws.cleanup();
  await home.cleanup();
});

const command = (id: string, cmd: string) => ({
  kind: 'sse' as const,
  events: [evCreated(), evFunctionCall(id, 'exec_command', { cmd, yield_time_ms: 30_000 }), evCompleted()],
});

const indexOf = (path: string): number => Number(/f(\d+)\.txt$/.exec(path)?.[1]);

interface PreviewFile {
  path: string;
  change: string;
  current: string | null;
  restored: string | null;
  binary: boolean;
  deferred?: boolean;
}

describe('the preview of an undo of many files', () => {
  it('sends the first files with their texts, the others deferred, and each one on request', async () => {
    const rpc = StdioRpcClient.start({ WEFT_HOME: home.dir, MOCK_API_KEY: 'x' }, ws.dir);
    client = rpc;
    await rpc.initialize();
    const { thread } = await rpc.request<{ thread: { id: string } }>('thread/start', { cwd: ws.dir });
    server.enqueueMany([command('c1', `for f in src/*.txt; do sed -i 'p' "$f"; done`), answerTurn('doubled')]);
    const from = rpc.received.length;
    const { turn } = await rpc.request<{ turn: { id: string } }>('turn/start', {
      threadId: thread.id,
      input: [{ type: 'text', text: 'double every line' }],
    });
    await rpc.notification('turn/completed', (p) => JSON.stringify(p).includes(turn.id), from);

    const preview = await rpc.request<{ files: PreviewFile[] }>('weft/checkpoints/preview', {
      threadId: thread.id,
      beforeTurnId: turn.id,
    });
    expect(preview.files).toHaveLength(FILES);
    const sent = preview.files.filter((f) => f.current !== null);
    const deferred = preview.files.filter((f) => f.deferred === true);
    // The first files come whole, in order; every other one is deferred, none "too large".
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.length + deferred.length).toBe(FILES);
    expect(preview.files.slice(0, sent.length)).toEqual(sent);
    const textBytes = sent.reduce((n, f) => n + (f.current?.length ?? 0) + (f.restored?.length ?? 0), 0);
    expect(textBytes).toBeLessThanOrEqual(1024 * 1024);
    for (const f of deferred)
      expect([f.current, f.restored, f.binary, f.change]).toEqual([null, null, false, 'update']);
    const first = sent[0];
    if (first === undefined) throw new Error('no file came with its texts');
    expect(first.restored).toBe(before(indexOf(first.path)));
    expect(first.current).toBe(readFileSync(ws.path(first.path), 'utf8'));

    // A deferred file's texts, asked for one at a time: now and after the restore.
    const last = deferred.at(-1);
    if (last === undefined) throw new Error('no file was deferred');
    const texts = await rpc.request<{ current: string | null; restored: string | null; binary: boolean }>(
      'weft/checkpoints/previewFile',
      { threadId: thread.id, beforeTurnId: turn.id, path: last.path },
    );
    expect(texts).toEqual({
      current: readFileSync(ws.path(last.path), 'utf8'),
      restored: before(indexOf(last.path)),
      binary: false,
    });

    // A path the preview did not list is refused, naming the parameter.
    const unknown = await rpc.call('weft/checkpoints/previewFile', {
      threadId: thread.id,
      beforeTurnId: turn.id,
      path: 'src/none.txt',
    });
    expect(unknown.error?.code).toBe(-32602);
    expect(unknown.error?.message).toContain('params.path');

    // Asked for later, the file as it is then: one swapped for a symlink to a file outside the project is
    // not followed (before, its target was read and sent), one grown past the preview's 1 MiB is not read,
    // and a FIFO put in one's place is not waited on (no writer will ever come).
    const [piped, swapped, grown] = deferred.slice(-4, -1);
    if (piped === undefined || swapped === undefined || grown === undefined)
      throw new Error('too few files were deferred');
    writeFileSync(join(home.dir, 'outside.txt'), 'outside the project\n');
    rmSync(ws.path(swapped.path));
    symlinkSync(join(home.dir, 'outside.txt'), ws.path(swapped.path));
    writeFileSync(ws.path(grown.path), 'x'.repeat(2 * 1024 * 1024));
    rmSync(ws.path(piped.path));
    execFileSync('mkfifo', [ws.path(piped.path)]);
    for (const [file, restored] of [
      [swapped, before(indexOf(swapped.path))],
      [grown, before(indexOf(grown.path))],
      [piped, before(indexOf(piped.path))],
    ] as const) {
      const now = await rpc.request<{ current: string | null; restored: string | null }>(
        'weft/checkpoints/previewFile',
        { threadId: thread.id, beforeTurnId: turn.id, path: file.path },
      );
      expect(now).toEqual({ current: null, restored, binary: false });
    }

    // A folder on the way swapped for a link to one outside the project is not followed either.
    renameSync(ws.path('src'), ws.path('src-moved'));
    mkdirSync(join(home.dir, 'outside-src'));
    writeFileSync(join(home.dir, 'outside-src', basename(last.path)), 'outside the project\n');
    symlinkSync(join(home.dir, 'outside-src'), ws.path('src'));
    const through = await rpc.request<{ current: string | null }>('weft/checkpoints/previewFile', {
      threadId: thread.id,
      beforeTurnId: turn.id,
      path: last.path,
    });
    expect(through.current).toBeNull();
    rmSync(ws.path('src'));
    renameSync(ws.path('src-moved'), ws.path('src'));

    // A preview of a later turn (as the restore dialog makes while the Changes panel shows the first) leaves
    // the first one's files to be asked for; a restore forgets both.
    server.enqueueMany([command('c2', 'echo later > later.txt'), answerTurn('added')]);
    const second = await rpc.request<{ turn: { id: string } }>('turn/start', {
      threadId: thread.id,
      input: [{ type: 'text', text: 'add a file' }],
    });
    await rpc.notification('turn/completed', (p) => JSON.stringify(p).includes(second.turn.id), from);
    const later = await rpc.request<{ files: PreviewFile[] }>('weft/checkpoints/preview', {
      threadId: thread.id,
      beforeTurnId: second.turn.id,
    });
    expect(later.files.map((f) => [f.path, f.change])).toEqual([['later.txt', 'delete']]);
    const again = await rpc.request<{ restored: string | null }>('weft/checkpoints/previewFile', {
      threadId: thread.id,
      beforeTurnId: turn.id,
      path: last.path,
    });
    expect(again.restored).toBe(before(indexOf(last.path)));
    await rpc.request('thread/revert', { threadId: thread.id, beforeTurnId: second.turn.id, weftRestoreFiles: true });
    const forgotten = await rpc.call('weft/checkpoints/previewFile', {
      threadId: thread.id,
      beforeTurnId: turn.id,
      path: last.path,
    });
    expect(forgotten.error?.code).toBe(-32600);
    expect(forgotten.error?.message).toContain('ask weft/checkpoints/preview first');
  }, 120_000);
});
