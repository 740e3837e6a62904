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
import { StdioRpcClient } from '../support/rpc-client';

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
    const pid = Number((await readFile(paths.pidFile, 'utf8')).trim());
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
    const pid = Number((await readFile(paths.pidFile, 'utf8')).trim());
    await client.close();
    await gone(pid);
    expect([existsSync(paths.socket), existsSync(paths.pidFile)]).toEqual([false, false]);
    expect(await readFile(paths.logFile, 'utf8')).toContain('weft app-server --daemon: leaving (idle)');
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
