// The spawn host starts commands in a small process of its own, so that the host never forks itself (a
// fork's cost grows with the forking process's memory). Built from source with esbuild and driven as the
// app drives it: output, exit codes, stdin, failures to start, aborts, large output in order, and a
// spawn host that dies under running commands.
import { readFile, rm } from 'node:fs/promises';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnHostConnection, stopSpawnHost } from '../../../src-main/util/spawn-host/connection';
import { spawnHosted } from '../../../src-main/util/spawn-host/hosted-child';
import { spawnHostedPty } from '../../../src-main/util/spawn-host/hosted-pty';
import type { SpawnedChild } from '../../../src-main/util/spawn-host/hosted-child';
import { buildSpawnHost } from '../../support/spawn-host-build';

const dir = mkdtempSync(join(tmpdir(), 'weft-spawn-host-'));
let removeBuild: () => Promise<void> = () => Promise.resolve();
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C' };

beforeAll(async () => {
  const built = await buildSpawnHost('spawn-host');
  removeBuild = built.remove;
  process.env.WEFT_SPAWN_HOST = built.script;
});

afterAll(async () => {
  await stopSpawnHost();
  delete process.env.WEFT_SPAWN_HOST;
  await rm(dir, { recursive: true, force: true });
  await removeBuild();
});

interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  events: string[];
}

function collect(child: SpawnedChild): Promise<Ran> {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const events: string[] = [];
  child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
  child.once('spawn', () => events.push('spawn'));
  child.once('exit', () => events.push('exit'));
  return new Promise((resolvePromise, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => {
      events.push('close');
      resolvePromise({
        code,
        signal,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        events,
      });
    });
  });
}

async function parentOf(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[1]);
}

describe('spawn host', () => {
  it('starts the command in its own process and relays output and exit code in order', async () => {
    const child = spawnHosted('/bin/sh', ['-c', 'echo out; echo err >&2; read x; exit 3'], {
      cwd: dir,
      env,
      detached: true,
      stdin: 'pipe',
    });
    const spawned = new Promise<number>((resolvePid) => child.once('spawn', () => resolvePid(child.pid ?? -1)));
    const ran = collect(child);
    const pid = await spawned;
    const host = await spawnHostConnection();
    // Its parent is the spawn host, not this process (it waits on stdin, so it is still there to ask).
    expect(await parentOf(pid)).toBe(host?.pid);
    expect(host?.pid).not.toBe(process.pid);
    child.stdin?.end('\n');
    expect(await ran).toEqual({
      code: 3,
      signal: null,
      stdout: 'out\n',
      stderr: 'err\n',
      events: ['spawn', 'exit', 'close'],
    });
    expect(child.exitCode).toBe(3);
  });

  it('writes stdin through to the command', async () => {
    const child = spawnHosted('cat', [], { cwd: dir, env, stdin: 'pipe' });
    const ran = collect(child);
    child.stdin?.write('first line\n');
    child.stdin?.end('second line\n');
    expect((await ran).stdout).toBe('first line\nsecond line\n');
  });

  it('reports a program that cannot start as an error, as spawn does', async () => {
    const child = spawnHosted('/no/such/program', [], { cwd: dir, env });
    const error = await new Promise<NodeJS.ErrnoException>((resolveError) => child.once('error', resolveError));
    expect(error.code).toBe('ENOENT');
    expect(error.message).toContain('/no/such/program');
    expect(child.pid).toBeUndefined();
  });

  it('kills the command when its signal aborts, with an AbortError', async () => {
    const controller = new AbortController();
    const child = spawnHosted('sleep', ['30'], { cwd: dir, env, signal: controller.signal });
    await new Promise<void>((resolveSpawn) => child.once('spawn', resolveSpawn));
    const errored = new Promise<Error>((resolveError) => child.once('error', resolveError));
    const closed = new Promise<NodeJS.Signals | null>((resolveClose) =>
      child.once('close', (_c, s) => resolveClose(s)),
    );
    controller.abort();
    expect((await errored).name).toBe('AbortError');
    expect(await closed).toBe('SIGTERM');
  });

  it('relays large output whole and in order', async () => {
    // 8 MiB of numbered lines: far more than the spawn host lets wait in its channel at once.
    const child = spawnHosted('seq', ['1', '1000000'], { cwd: dir, env });
    const { stdout, code } = await collect(child);
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    expect(lines.length).toBe(1_000_000);
    expect(lines.every((line, index) => line === String(index + 1))).toBe(true);
  });

  it('reports running commands as ended when the spawn host dies, and starts a new one for the next', async () => {
    const child = spawnHosted('sleep', ['30'], { cwd: dir, env, detached: true });
    await new Promise<void>((resolveSpawn) => child.once('spawn', resolveSpawn));
    const ran = collect(child);
    const hostPid = await parentOf(child.pid ?? -1);
    process.kill(hostPid, 'SIGKILL');
    expect(await ran).toMatchObject({ code: null, signal: null });
    // The command itself outlived the spawn host: its owner stops it by process group.
    process.kill(-(child.pid ?? 0), 'SIGKILL');
    const next = await collect(spawnHosted('echo', ['again'], { cwd: dir, env }));
    expect(next).toMatchObject({ code: 0, stdout: 'again\n' });
  });

  it('runs a command in a pseudo-terminal: its size, resizes, keystrokes and exit code', async () => {
    const term = await spawnHostedPty('/bin/sh', ['-c', 'stty size; read x; stty size; echo "got $x"; exit 4'], {
      cwd: dir,
      env: { ...env, TERM: 'xterm' },
      name: 'xterm',
      cols: 90,
      rows: 30,
    });
    const host = await spawnHostConnection();
    expect(await parentOf(term.pid)).toBe(host?.pid);
    let output = '';
    const seen = (text: string): Promise<void> =>
      new Promise((resolveSeen) => {
        const check = setInterval(() => {
          if (!output.includes(text)) return;
          clearInterval(check);
          resolveSeen();
        }, 5);
      });
    term.onData((chunk) => {
      output += chunk.toString('utf8');
    });
    await seen('30 90');
    term.resize(100, 40);
    term.write('hello\r');
    expect(await term.exited).toEqual({ exitCode: 4, signal: null });
    expect(output).toContain('40 100');
    expect(output).toContain('got hello');
  });
});
