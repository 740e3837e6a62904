// `weft app-server --attach`: this user's app server behind a unix socket in a 0700 folder, started by
// the first attach, shared by the next, left by itself once idle; a folder that is not safe is refused.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { userSocketPaths } from '../../src-main/server/user-socket';
import { cliEnv, WEFT_BIN } from '../support/environments';
import { createGate, startMockResponsesServer } from '../support/mock-responses-server';
import { StdioRpcClient } from '../support/rpc-client';
import { answerTurn } from '../support/sse';
import { makeWeftHome } from '../support/workspace';

const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

function attach(home: string, runtime: string, extra: Record<string, string> = {}): StdioRpcClient {
  const child = spawn(process.execPath, [WEFT_BIN, 'app-server', '--attach'], {
    cwd: home,
    env: cliEnv(home, { XDG_RUNTIME_DIR: runtime, ...extra }),
  });
  return StdioRpcClient.attach(child);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * The pid a server wrote beside its socket. It writes it once it listens, so a client it already answered
 * may look before it is there.
 */
async function serverPid(file: string): Promise<number> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const pid = Number((await readFile(file, 'utf8').catch(() => '')).trim());
    if (Number.isInteger(pid) && pid > 0) return pid;
    if (Date.now() > deadline) throw new Error(`no pid in ${file}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function gone(pid: number): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (alive(pid)) {
    if (Date.now() > deadline) throw new Error(`process ${pid} is still running`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('the per-user app server', () => {
  it('is started by the first attach and shared by the next; its threads outlive a client', async () => {
    const home = await tempDir('weft-user-home-');
    const runtime = await tempDir('weft-user-run-');
    const paths = userSocketPaths(home, { XDG_RUNTIME_DIR: runtime });
    const first = attach(home, runtime);
    await first.initialize();
    const { thread } = await first.request<{ thread: { id: string } }>('thread/start', { cwd: home });
    expect((await stat(paths.dir)).mode & 0o777).toBe(0o700);
    const pid = await serverPid(paths.pidFile);
    cleanups.push(async () => {
      if (alive(pid)) process.kill(pid, 'SIGTERM');
      await gone(pid);
    });
    await first.close();

    // The second attach reaches the same server: the thread the first started is still loaded there.
    const second = attach(home, runtime);
    await second.initialize();
    const loaded = await second.request<{ data: string[] }>('thread/loaded/list', {});
    expect(loaded.data).toEqual([thread.id]);
    await second.close();
    expect(alive(pid)).toBe(true);
    process.kill(pid, 'SIGTERM');
    await gone(pid);
    expect([existsSync(paths.socket), existsSync(paths.pidFile)]).toEqual([false, false]);
  });

  it('leaves by itself once nobody is connected and no thread is loaded', async () => {
    const home = await tempDir('weft-user-home-');
    const runtime = await tempDir('weft-user-run-');
    const paths = userSocketPaths(home, { XDG_RUNTIME_DIR: runtime });
    const client = attach(home, runtime, { WEFT_APP_SERVER_IDLE_MS: '300' });
    await client.initialize();
    const pid = await serverPid(paths.pidFile);
    await client.close();
    await gone(pid);
    expect([existsSync(paths.socket), existsSync(paths.pidFile)]).toEqual([false, false]);
    expect(await readFile(paths.logFile, 'utf8')).toContain('weft app-server --daemon: leaving (idle)');
  });

  it('hands over to an attach of another version: the old one takes no new client and finishes its turn', async () => {
    const model = await startMockResponsesServer();
    cleanups.push(() => model.close());
    const weftHome = await makeWeftHome(
      `model = "mock-model"\nmodel_provider = "mock"\n[model_providers.mock]\nname = "Mock"\nbase_url = "${model.url}"\nenv_key = "MOCK_API_KEY"\nwire_api = "responses"\nrequest_max_retries = 0\n`,
    );
    cleanups.push(() => weftHome.cleanup());
    const home = weftHome.dir;
    const runtime = await tempDir('weft-user-run-');
    const oldPaths = userSocketPaths(home, { XDG_RUNTIME_DIR: runtime }, '0.1.0');
    const newPaths = userSocketPaths(home, { XDG_RUNTIME_DIR: runtime }, '0.1.1');
    // The old build runs a turn.
    const gate = createGate();
    model.enqueue({
      kind: 'sse-slow',
      events: answerTurn('the old one finished').events,
      beforeEach: () => gate.released,
    });
    const old = attach(home, runtime);
    cleanups.push(() => old.close());
    expect(await old.request('initialize', { clientInfo: { name: 'weft-tests', version: '1' } })).toMatchObject({
      weftVersion: '0.1.0',
    });
    old.send({ method: 'initialized' });
    const { thread } = await old.request<{ thread: { id: string } }>('thread/start', { cwd: home });
    const { turn } = await old.request<{ turn: { id: string } }>('turn/start', {
      threadId: thread.id,
      input: [{ type: 'text', text: 'take your time' }],
    });
    await model.waitForRequest(1);
    const oldPid = await serverPid(oldPaths.pidFile);
    cleanups.push(async () => {
      if (alive(oldPid)) process.kill(oldPid, 'SIGTERM');
      await gone(oldPid);
    });

    // A new build attaches: it gets a server of its own version, and the old one stops taking clients.
    const fresh = attach(home, runtime, { WEFT_TEST_VERSION_OVERRIDE: '0.1.1' });
    cleanups.push(() => fresh.close());
    expect(await fresh.request('initialize', { clientInfo: { name: 'weft-tests', version: '1' } })).toMatchObject({
      weftVersion: '0.1.1',
    });
    const newPid = await serverPid(newPaths.pidFile);
    cleanups.push(async () => {
      if (alive(newPid)) process.kill(newPid, 'SIGTERM');
      await gone(newPid);
    });
    expect(newPid).not.toBe(oldPid);
    await expect
      .poll(() => readFile(oldPaths.logFile, 'utf8'), { timeout: 15_000 })
      .toContain('weft app-server --daemon: Weft 0.1.1 serves this WEFT_HOME now; taking no new client');
    expect(existsSync(oldPaths.socket)).toBe(false);

    // The old one's turn goes on to its end, and its client hears it.
    expect(alive(oldPid)).toBe(true);
    gate.release();
    const done = await old.notification('turn/completed', (p) => (p['turn'] as { id: string }).id === turn.id);
    expect(done['turn']).toMatchObject({ status: 'completed' });
  });

  it('an idle old server leaves at once when another version takes over', async () => {
    const home = await tempDir('weft-user-home-');
    const runtime = await tempDir('weft-user-run-');
    const oldPaths = userSocketPaths(home, { XDG_RUNTIME_DIR: runtime }, '0.1.0');
    const old = attach(home, runtime);
    await old.initialize();
    const oldPid = await serverPid(oldPaths.pidFile);
    cleanups.push(async () => {
      if (alive(oldPid)) process.kill(oldPid, 'SIGTERM');
      await gone(oldPid);
    });
    await old.close();
    const fresh = attach(home, runtime, { WEFT_TEST_VERSION_OVERRIDE: '0.1.1' });
    await fresh.initialize();
    const newPid = await serverPid(userSocketPaths(home, { XDG_RUNTIME_DIR: runtime }, '0.1.1').pidFile);
    cleanups.push(async () => {
      if (alive(newPid)) process.kill(newPid, 'SIGTERM');
      await gone(newPid);
    });
    await gone(oldPid);
    expect(await readFile(oldPaths.logFile, 'utf8')).toContain(
      'weft app-server --daemon: leaving (replaced by Weft 0.1.1)',
    );
    expect(alive(newPid)).toBe(true);
    await fresh.close();
  });

  it('lets the threads it holds go at once when another version takes over, so the new one resumes them', async () => {
    const model = await startMockResponsesServer();
    cleanups.push(() => model.close());
    const weftHome = await makeWeftHome(
      `model = "mock-model"\nmodel_provider = "mock"\n[model_providers.mock]\nname = "Mock"\nbase_url = "${model.url}"\nenv_key = "MOCK_API_KEY"\nwire_api = "responses"\nrequest_max_retries = 0\n`,
    );
    cleanups.push(() => weftHome.cleanup());
    const home = weftHome.dir;
    const runtime = await tempDir('weft-user-run-');
    const oldPaths = userSocketPaths(home, { XDG_RUNTIME_DIR: runtime }, '0.1.0');
    const old = attach(home, runtime);
    await old.initialize();
    const { thread } = await old.request<{ thread: { id: string } }>('thread/start', { cwd: home });
    model.enqueue(answerTurn('done'));
    await old.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'hi' }] });
    await old.notification('turn/completed');
    const oldPid = await serverPid(oldPaths.pidFile);
    cleanups.push(async () => {
      if (alive(oldPid)) process.kill(oldPid, 'SIGTERM');
      await gone(oldPid);
    });
    // The client leaves; the thread stays loaded there (for 5 minutes, when nothing else happens).
    await old.close();
    const fresh = attach(home, runtime, { WEFT_TEST_VERSION_OVERRIDE: '0.1.1' });
    cleanups.push(() => fresh.close());
    await fresh.initialize();
    const newPid = await serverPid(userSocketPaths(home, { XDG_RUNTIME_DIR: runtime }, '0.1.1').pidFile);
    cleanups.push(async () => {
      if (alive(newPid)) process.kill(newPid, 'SIGTERM');
      await gone(newPid);
    });
    // The old server lets the thread go and leaves; the new one resumes it.
    await gone(oldPid);
    const resumed = await fresh.request<{ thread: { id: string } }>('thread/resume', { threadId: thread.id });
    expect(resumed.thread.id).toBe(thread.id);
    expect(await readFile(oldPaths.logFile, 'utf8')).toContain('leaving (replaced by Weft 0.1.1)');
  });

  it('refuses a socket folder that is a link', async () => {
    const home = await tempDir('weft-user-home-');
    const runtime = await tempDir('weft-user-run-');
    const elsewhere = await tempDir('weft-user-elsewhere-');
    await mkdir(join(elsewhere, 'target'));
    await symlink(join(elsewhere, 'target'), join(runtime, 'weft'));
    const client = attach(home, runtime);
    expect(await client.exited).toBe(1);
    expect(client.stderr).toBe(
      `weft app-server --attach: ${join(runtime, 'weft')} is not a folder; remove it, so that Weft can make its socket folder there\n`,
    );
  });
});
