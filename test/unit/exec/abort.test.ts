import { spawn, spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { ExecSessionManager, killProcessGroup } from '../../../src-main/tools/exec';
import { ctx, isRunning, outputWatcher, readProcStat, runningInGroup, scratchDir } from './helpers';

const workdir = scratchDir();
/** Whether bubblewrap can make a user and PID namespace here (a sandboxed command's processes live in one). */
const bwrapWorks =
  process.platform === 'linux' &&
  spawnSync('bwrap', ['--unshare-user', '--unshare-pid', '--dev-bind', '/', '/', 'true']).status === 0;
const manager = new ExecSessionManager();
afterAll(() => manager.closeAll('test finished'));

describe('interrupting commands', () => {
  it.each([false, true])('abort kills the whole process group (tty: %s)', async (tty) => {
    const controller = new AbortController();
    const ready = outputWatcher(/ready/);
    let leader = 0;
    const pending = manager.exec(
      { cmd: "sh -c 'sleep 100 & sleep 100 & echo ready; wait'", workdir, login: false, tty, yieldTimeMs: 30_000 },
      { signal: controller.signal, onOutput: ready.onOutput, onSpawn: ({ pid }) => (leader = pid) },
    );
    await ready.seen;
    // The shell and both background sleeps share the command's process group.
    const members = runningInGroup(leader);
    expect(members).toContain(leader);
    expect(members.length).toBeGreaterThanOrEqual(3);

    controller.abort();
    const result = await pending;
    expect(result).toMatchObject({ aborted: true, sessionId: null, pid: leader });
    expect(result.exitCode).not.toBeNull();
    expect(result.output).toContain('ready');
    expect(result.text).toContain('\nProcess exited with code ');
    expect(members.filter(isRunning)).toEqual([]);
    expect(runningInGroup(leader)).toEqual([]);
    expect(manager.liveSessionCount).toBe(0);
  });

  it('abort during write_stdin kills the session', async () => {
    const started = await manager.exec({ cmd: 'cat', workdir, login: false, tty: true, yieldTimeMs: 250 }, ctx());
    expect(started.sessionId).not.toBeNull();
    const controller = new AbortController();
    const echoed = outputWatcher(/hello/);
    const pending = manager.writeStdin(
      { sessionId: started.sessionId ?? -1, chars: 'hello\n', yieldTimeMs: 30_000 },
      { signal: controller.signal, onOutput: echoed.onOutput },
    );
    await echoed.seen;
    controller.abort();
    const result = await pending;
    expect(result).toMatchObject({ aborted: true, sessionId: null });
    expect(result.output).toContain('hello');
    expect(started.pid !== null && isRunning(started.pid)).toBe(false);
    expect(manager.liveSessionCount).toBe(0);
  });

  it('an already aborted call starts nothing', async () => {
    const controller = new AbortController();
    controller.abort();
    let spawned = false;
    const result = await manager.exec(
      { cmd: 'echo no', workdir },
      { signal: controller.signal, onSpawn: () => (spawned = true) },
    );
    expect(result).toMatchObject({ aborted: true, exitCode: null, pid: null, output: '' });
    expect(spawned).toBe(false);
  });

  it.runIf(bwrapWorks)(
    'killProcessGroup also stops what runs below it in a sandbox, in a session of its own',
    async () => {
      // A sandbox whose command is the PID namespace's first process, in a new session, and does not die with
      // bwrap: it outlives the group, as a sandboxed command's processes do for a moment on a busy machine.
      const child = spawn(
        'bwrap',
        [
          '--new-session',
          '--unshare-user',
          '--unshare-pid',
          '--as-pid-1',
          '--dev-bind',
          '/',
          '/',
          'sh',
          '-c',
          'echo ready; exec sleep 100',
        ],
        { detached: true, stdio: ['ignore', 'pipe', 'ignore'] },
      );
      const pid = child.pid;
      if (pid === undefined) throw new Error('bwrap did not start');
      await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
      const sandboxed = readdirSync('/proc')
        .filter((entry) => /^\d+$/.test(entry))
        .map(Number)
        .filter((p) => isRunning(p) && readProcStat(p)?.ppid === pid);
      expect(sandboxed).toHaveLength(1);
      await killProcessGroup(pid, { graceMs: 200 });
      expect(sandboxed.filter(isRunning)).toEqual([]);
    },
  );

  it('killProcessGroup escalates to SIGKILL when SIGTERM is ignored', async () => {
    const child = spawn('sh', ['-c', "trap '' TERM; sleep 100 & echo ready; wait"], {
      detached: true,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const pid = child.pid;
    if (pid === undefined) throw new Error('sh did not start');
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
    const members = runningInGroup(pid);
    expect(members.length).toBe(2);
    await killProcessGroup(pid, { graceMs: 200, leaderExited: exited });
    expect(members.filter(isRunning)).toEqual([]);
    expect(child.signalCode).toBe('SIGKILL');
  });
});
