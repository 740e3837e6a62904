// Nothing outlives its owner: a thread's MCP server, the PTY of a command it left running and its
// rollout's file are released when the thread unloads; the terminal a client opened goes with the
// client's connection; the checkpoint watchers of the workspace (shared by its threads) go with the host.
// Checked on the OS's own records (/proc): the processes by their pids, the inotify watches, the open files.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { z } from 'zod';
import { startInProcessHost, type InProcessHost } from '../support/in-process-host';
import { startMockResponsesServer, type MockResponsesServer } from '../support/mock-responses-server';
import { childrenRunning } from '../support/proc';
import { answerTurn, evCompleted, evCreated, evFunctionCall } from '../support/sse';
import { waitFor } from '../support/wait';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../support/workspace';

const PROBE = resolve(__dirname, '../support/mcp-probe-server.mjs');

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

/** Whether `pid` is a live process (a zombie has released everything but its entry). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] !== 'Z';
  } catch {
    return false;
  }
}

/** This process's inotify watches, across its inotify descriptors (one `inotify wd:` line per watch). */
function inotifyWatches(): number {
  let watches = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    let target: string;
    try {
      target = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      continue; // closed while we looked
    }
    if (target !== 'anon_inode:inotify') continue;
    const info = readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8');
    watches += info.split('\n').filter((line) => line.startsWith('inotify wd:')).length;
  }
  return watches;
}

/** Whether this process has `path` open. */
function isOpen(path: string): boolean {
  return readdirSync('/proc/self/fd').some((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === path;
    } catch {
      return false;
    }
  });
}

function resultOf(reply: { result?: unknown; error?: { message: string } }): unknown {
  if (reply.error) throw new Error(reply.error.message);
  return reply.result;
}

const Started = z.object({ thread: z.object({ id: z.string(), path: z.string() }) });

it('releases what a thread owns when it unloads, a connection’s terminal with it, and the watchers with the host', async () => {
  mock = await startMockResponsesServer();
  ws = await makeTempWorkspace({ 'notes.txt': 'one\n', 'src/a.ts': 'export {};\n' });
  home = await makeWeftHome(
    `model = "mock-model"\nmodel_provider = "mock"\napproval_policy = "never"\nsandbox_mode = "danger-full-access"\n` +
      `[model_providers.mock]\nname = "Mock"\nbase_url = "${mock.url}"\nenv_key = "MOCK_API_KEY"\nwire_api = "responses"\nrequest_max_retries = 0\n` +
      `[mcp_servers.probe]\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${JSON.stringify(PROBE)}]\n`,
  );
  const watchesBefore = inotifyWatches();
  app = await startInProcessHost({
    weftHome: home.dir,
    cwd: ws.dir,
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', WEFT_HOME: home.dir, MOCK_API_KEY: 'k' },
    unloadAfterMs: 0,
  });
  const { client } = app;

  // A thread with its MCP server running.
  const ready = waitFor(
    client.subscribe,
    (m) => 'method' in m && m.method === 'mcpServer/startupStatus/updated' && JSON.stringify(m).includes('"ready"'),
    { label: 'the MCP server ready' },
  );
  const { thread } = Started.parse(resultOf(await client.call('thread/start', { cwd: ws.dir })));
  await ready;
  const [mcpPid, ...moreMcp] = childrenRunning(process.pid, PROBE);
  expect(moreMcp).toEqual([]);

  // A turn leaves a command running in a PTY (the turn ends while it runs on), and takes a checkpoint.
  mock.enqueueMany([
    {
      kind: 'sse',
      events: [
        evCreated(),
        // Not a login shell: the user's profile may take seconds on a busy machine (this is not about it).
        evFunctionCall('c1', 'exec_command', { cmd: 'exec sleep 601', tty: true, login: false, yield_time_ms: 500 }),
        evCompleted(),
      ],
    },
    answerTurn('left it running'),
  ]);
  const completed = waitFor(client.subscribe, (m) => 'method' in m && m.method === 'turn/completed', {
    label: 'turn/completed',
  });
  resultOf(await client.call('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'run it' }] }));
  await completed;
  // The turn ended after the command's first 500 ms: on a busy machine it may not have reached its exec yet.
  await expect.poll(() => childrenRunning(process.pid, 'sleep\u0000601'), { timeout: 15_000 }).toHaveLength(1);
  const [modelPid = 0] = childrenRunning(process.pid, 'sleep\u0000601');

  // The client's own terminal, outside any thread.
  client.connection.receive({
    id: 'term',
    method: 'command/exec',
    params: { command: ['bash', '-c', 'echo terminal-pid=$$; exec sleep 602'], processId: 'term', tty: true },
  });
  const terminalOutput = (): string =>
    client
      .notifications('command/exec/outputDelta')
      .map((n) => (typeof n.params['deltaBase64'] === 'string' ? n.params['deltaBase64'] : ''))
      .map((b64) => Buffer.from(b64, 'base64').toString('utf8'))
      .join('');
  if (!terminalOutput().includes('terminal-pid='))
    await waitFor(client.subscribe, () => terminalOutput().includes('terminal-pid='), {
      label: 'the terminal started',
    });
  const terminalPid = Number(/terminal-pid=(\d+)/.exec(terminalOutput())?.[1]);

  expect({
    mcp: alive(mcpPid ?? 0),
    model: alive(modelPid),
    terminal: alive(terminalPid),
    rollout: isOpen(thread.path),
    watching: inotifyWatches() > watchesBefore,
  }).toEqual({ mcp: true, model: true, terminal: true, rollout: true, watching: true });

  // The thread unloads (nobody watches it): everything it owns is released by the time it says so.
  const closed = waitFor(client.subscribe, (m) => 'method' in m && m.method === 'thread/closed', {
    label: 'thread/closed',
  });
  resultOf(await client.call('thread/unsubscribe', { threadId: thread.id }));
  await closed;
  expect({
    mcp: alive(mcpPid ?? 0),
    model: alive(modelPid),
    terminal: alive(terminalPid),
    rollout: isOpen(thread.path),
    watching: inotifyWatches() > watchesBefore,
  }).toEqual({ mcp: false, model: false, terminal: true, rollout: false, watching: true });

  // The connection and the host close: the terminal and the workspace's watchers go too.
  await app.close();
  app = undefined;
  expect({ terminal: alive(terminalPid), watches: inotifyWatches() - watchesBefore }).toEqual({
    terminal: false,
    watches: 0,
  });
  expect(childrenRunning(process.pid, '')).toEqual([]);
});
