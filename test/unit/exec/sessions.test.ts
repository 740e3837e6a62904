import { afterAll, describe, expect, it } from 'vitest';
import { ExecSessionManager } from '../../../src-main/tools/exec';
import type { ExecResult } from '../../../src-main/tools/exec';
import { ctx, isRunning, scratchDir } from './helpers';

const workdir = scratchDir();
const managers: ExecSessionManager[] = [];
function newManager(opts: ConstructorParameters<typeof ExecSessionManager>[0] = {}): ExecSessionManager {
  const manager = new ExecSessionManager(opts);
  managers.push(manager);
  return manager;
}
afterAll(() => Promise.all(managers.map((m) => m.closeAll('test finished'))));

function sessionIdOf(result: ExecResult): number {
  if (result.sessionId === null) throw new Error(`expected a running session, got:\n${result.text}`);
  return result.sessionId;
}

describe('sessions', () => {
  it('keeps an interactive bash in a PTY as a session that accepts keystrokes', async () => {
    const manager = newManager();
    const started = await manager.exec(
      {
        cmd: 'bash --noprofile --norc -i',
        workdir,
        login: false,
        tty: true,
        yieldTimeMs: 250,
        env: { PS1: 'READY> ' },
      },
      ctx(),
    );
    const id = sessionIdOf(started);
    expect(id).toBeGreaterThanOrEqual(1000);
    expect(started.exitCode).toBeNull();
    expect(started.text).toMatch(
      new RegExp(
        `^Chunk ID: [0-9a-f]{6}\\nWall time: \\d+\\.\\d{4} seconds\\nProcess running with session ID ${id}\\nOutput:\\n`,
      ),
    );
    expect(manager.liveSessionCount).toBe(1);

    const answer = await manager.writeStdin({ sessionId: id, chars: 'echo $((6*7))\n', yieldTimeMs: 1000 }, ctx());
    expect(answer).toMatchObject({ sessionId: id, exitCode: null });
    expect(answer.output).toMatch(/^42\r?$/m);
    expect(answer.text).toContain(`\nProcess running with session ID ${id}\n`);

    const done = await manager.writeStdin({ sessionId: id, chars: 'exit 3\n', yieldTimeMs: 5000 }, ctx());
    expect(done).toMatchObject({ exitCode: 3, sessionId: null });
    expect(done.text).toContain('\nProcess exited with code 3\nOutput:\n');
    expect(manager.liveSessionCount).toBe(0);

    const gone = await manager.writeStdin({ sessionId: id, chars: 'echo again\n' }, ctx());
    expect(gone).toMatchObject({ exitCode: null, sessionId: null, output: '' });
    expect(gone.text).toMatch(new RegExp(`^Unknown session ID ${id}; it may have exited\\. `));
  });

  it('streams the output of a write_stdin call', async () => {
    const manager = newManager();
    const started = await manager.exec({ cmd: 'cat', workdir, login: false, tty: true, yieldTimeMs: 250 }, ctx());
    const id = sessionIdOf(started);
    const chunks: string[] = [];
    const echoed = await manager.writeStdin(
      { sessionId: id, chars: 'ping\n', yieldTimeMs: 1000 },
      ctx({ onOutput: (c) => chunks.push(c) }),
    );
    // The terminal echoes the line and cat prints it back.
    expect(chunks.join('')).toBe(echoed.output);
    expect(echoed.output).toMatch(/ping\r\n[^]*ping\r\n/);
  });

  it('an empty poll returns as soon as the process exits, with only the new output', async () => {
    const manager = newManager();
    const started = await manager.exec(
      { cmd: 'echo start; sleep 0.5; echo done', workdir, login: false, yieldTimeMs: 250 },
      ctx(),
    );
    const id = sessionIdOf(started);
    expect(started.output).toBe('start\n');
    const polled = await manager.writeStdin({ sessionId: id }, ctx());
    expect(polled).toMatchObject({ exitCode: 0, sessionId: null, output: 'done\n' });
    expect(polled.wallTimeMs).toBeLessThan(5000);
  });

  it('tells the model that a pipe-mode session does not take input', async () => {
    const manager = newManager();
    const started = await manager.exec({ cmd: 'sleep 30', workdir, login: false, yieldTimeMs: 250 }, ctx());
    const id = sessionIdOf(started);
    const refused = await manager.writeStdin({ sessionId: id, chars: 'y\n' }, ctx());
    expect(refused).toMatchObject({ sessionId: id, exitCode: null });
    expect(refused.text).toMatch(new RegExp(`^The input was not sent: session ${id} was started with tty: false`));
    expect(manager.liveSessionCount).toBe(1);
  });

  it('closes the least recently used session when the cap is reached, with a note', async () => {
    const manager = newManager({ maxSessions: 3 });
    const start = async (): Promise<ExecResult> =>
      manager.exec({ cmd: 'cat', workdir, login: false, tty: true, yieldTimeMs: 250 }, ctx());
    const a = await start();
    const b = await start();
    const c = await start();
    const [idA, idB, idC] = [sessionIdOf(a), sessionIdOf(b), sessionIdOf(c)];
    expect([idB - idA, idC - idB]).toEqual([1, 1]);
    // Using A makes B the least recently used.
    await manager.writeStdin({ sessionId: idA, chars: 'x\n', yieldTimeMs: 250 }, ctx());
    const d = await start();
    const idD = sessionIdOf(d);
    expect(d.text).toContain(
      `\nOutput:\nNote: closed session ${idB} (\`cat\`), the least recently used, to stay within 3 live sessions; its processes were stopped.\n`,
    );
    expect(manager.liveSessionCount).toBe(3);
    expect(b.pid !== null && isRunning(b.pid)).toBe(false);
    expect([a.pid, c.pid, d.pid].every((pid) => pid !== null && isRunning(pid))).toBe(true);
    const closed = await manager.writeStdin({ sessionId: idB, chars: 'x\n' }, ctx());
    expect(closed.text).toMatch(/^Unknown session ID/);
    const stillThere = await manager.writeStdin({ sessionId: idD, chars: 'y\n', yieldTimeMs: 250 }, ctx());
    expect(stillThere.sessionId).toBe(idD);
  });

  it('keeps at most 64 sessions by default', async () => {
    const manager = newManager();
    expect(manager.maxSessions).toBe(64);
    const results = await Promise.all(
      Array.from({ length: 65 }, () =>
        manager.exec({ cmd: 'exec sleep 30', workdir, shell: '/bin/sh', login: false, yieldTimeMs: 250 }, ctx()),
      ),
    );
    expect(manager.liveSessionCount).toBe(64);
    const notes = results.filter((r) => r.text.includes('Note: closed session'));
    expect(notes).toHaveLength(1);
    expect(notes[0]?.text).toContain('to stay within 64 live sessions');
    expect(results.filter((r) => r.pid !== null && isRunning(r.pid))).toHaveLength(64);
    await manager.closeAll();
    expect(manager.liveSessionCount).toBe(0);
    expect(results.filter((r) => r.pid !== null && isRunning(r.pid))).toHaveLength(0);
  });

  it('closeAll kills live sessions and commands still inside their first call', async () => {
    const manager = newManager();
    const piped = await manager.exec({ cmd: 'sleep 30', workdir, login: false, yieldTimeMs: 250 }, ctx());
    const pty = await manager.exec({ cmd: 'cat', workdir, login: false, tty: true, yieldTimeMs: 250 }, ctx());
    let spawnedPid: (pid: number) => void = () => undefined;
    const spawned = new Promise<number>((resolve) => {
      spawnedPid = resolve;
    });
    const inFlight = manager.exec(
      { cmd: 'sleep 30', workdir, login: false, yieldTimeMs: 30_000 },
      ctx({ onSpawn: ({ pid }) => spawnedPid(pid) }),
    );
    const inFlightPid = await spawned;
    expect(manager.liveSessionCount).toBe(2);
    await manager.closeAll('the thread was closed');
    expect(manager.liveSessionCount).toBe(0);
    for (const pid of [piped.pid, pty.pid, inFlightPid]) expect(pid !== null && isRunning(pid)).toBe(false);
    const closed = await inFlight;
    expect(closed).toMatchObject({ exitCode: 143, sessionId: null, aborted: false });
    expect(closed.pid).toBe(inFlightPid);
    expect(closed.text).toMatch(
      /\nOutput:\nNote: session \d+ was closed \(the thread was closed\); its processes were stopped\.\n$/,
    );
  });

  it('closeAll also stops a command that was still being started', async () => {
    const manager = newManager();
    const pending = manager.exec({ cmd: 'sleep 30', workdir, login: false, yieldTimeMs: 30_000 }, ctx());
    await manager.closeAll('shutting down');
    const result = await pending;
    expect(result).toMatchObject({ sessionId: null, exitCode: 143 });
    expect(result.text).toMatch(
      /\nOutput:\nNote: session \d+ was closed \(shutting down\); its processes were stopped\.\n$/,
    );
    expect(result.pid !== null && isRunning(result.pid)).toBe(false);
    expect(manager.liveSessionCount).toBe(0);
  });
});
