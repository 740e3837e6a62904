// A checkpoint that fails does not fail the tool call, but it is not swallowed either: the thread's
// clients get a `warning` naming the reason, and the turn is marked as not undoable, so the preview and
// the revert say so before anything else. Through the real app host and the mock Responses server; the
// checkpoint store cannot write its temporary files during the turn (its `tmp` is a file), and can after.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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
  ws = await makeTempWorkspace({ 'a.txt': 'alpha\n' });
  home = await makeWeftHome(
    `model = "mock-model"\nmodel_provider = "mock"\napproval_policy = "never"\nsandbox_mode = "workspace-write"\n[model_providers.mock]\nname = "Mock"\nbase_url = "${server.url}"\nenv_key = "MOCK_API_KEY"\nwire_api = "responses"\nrequest_max_retries = 0\n`,
  );
});

afterEach(async () => {
  await app?.close();
  app = null;
  await server.close();
  await ws.cleanup();
  await home.cleanup();
});

describe('a checkpoint that fails', () => {
  it('warns the thread, and the turn is not undoable by name of the reason', async () => {
    // Where blobs are staged is taken by a file: no content can be stored.
    mkdirSync(join(home.dir, 'checkpoints'), { recursive: true });
    writeFileSync(join(home.dir, 'checkpoints', 'tmp'), 'in the way\n');
    app = await startInProcessHost({
      weftHome: home.dir,
      cwd: ws.dir,
      env: { ...process.env, WEFT_HOME: home.dir, MOCK_API_KEY: 'x' },
    });
    const { client } = app;
    server.enqueueMany([
      {
        kind: 'sse',
        events: [evCreated(), evFunctionCall('c1', 'exec_command', { cmd: 'echo beta > a.txt' }), evCompleted()],
      },
      { kind: 'sse', events: [evCreated(), evAssistantMessage('changed'), evCompleted()] },
    ]);
    const { thread } = await ok<{ thread: { id: string } }>(client, 'thread/start', { cwd: ws.dir });
    const { turn } = await ok<{ turn: { id: string } }>(client, 'turn/start', {
      threadId: thread.id,
      input: [{ type: 'text', text: 'change a' }],
    });
    const done = (await waitFor(
      client.subscribe,
      (m) => 'method' in m && m.method === 'turn/completed' && JSON.stringify(m).includes(turn.id),
      { label: 'turn/completed' },
    )) as { params: { turn: { status: string } } };
    // The command itself ran and the turn went on.
    expect(done.params.turn.status).toBe('completed');
    expect(await ws.read('a.txt')).toBe('beta\n');

    const warnings = client.received
      .filter((m) => 'method' in m && m.method === 'warning')
      .map((m) => (m as { params: { threadId: string; message: string } }).params);
    expect(warnings.length).toBeGreaterThan(0);
    for (const warning of warnings)
      expect(warning).toEqual({
        threadId: thread.id,
        message: expect.stringMatching(
          new RegExp(
            `^Checkpoint of the files in ${ws.dir} failed (before|after) a tool call \\(.*EEXIST.*\\): Undo of this turn cannot put back what the call changed\\.$`,
          ),
        ),
      });

    // The disk is fine again (say, space was freed): the undo works, and says first what it cannot do.
    rmSync(join(home.dir, 'checkpoints', 'tmp'));
    const preview = await ok<{ notUndoable?: { turnId: string; reason: string; message: string }[] }>(
      client,
      'weft/checkpoints/preview',
      { threadId: thread.id, beforeTurnId: turn.id },
    );
    expect(preview).toEqual({ files: [], notUndoable: expect.any(Array) });
    expect(preview.notUndoable).toEqual([
      {
        turnId: turn.id,
        reason: expect.stringContaining('EEXIST'),
        message: expect.stringMatching(
          /^The checkpoint of turn 1 of those undone failed \(.*EEXIST.*\): what that turn changed cannot all be put back\.$/,
        ),
      },
    ]);
    const reverted = await ok<{ weftFiles: { notes: string[] } }>(client, 'thread/revert', {
      threadId: thread.id,
      beforeTurnId: turn.id,
      weftRestoreFiles: true,
    });
    expect(reverted.weftFiles.notes[0]).toBe(preview.notUndoable?.[0]?.message);
  });
});
