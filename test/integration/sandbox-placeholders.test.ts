// The read-only placeholders the Linux sandbox mounts where a project has no `.git`, `.agents` or
// `.weft`, with real bubblewrap: they protect the project while a command runs (it cannot create and arm
// a repository there), and nothing of them is left on disk once the last command using them has ended,
// also when commands of this process and of another Weft process overlap in one folder. Folders that
// were there before are never removed.
import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, open, readdir, readFile, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSandboxLauncher } from '../../src-main/safety/sandbox/launcher';
import { probeBwrap } from '../../src-main/safety/sandbox/linux-bwrap';
import { ExecSessionManager } from '../../src-main/tools/exec';
import type { SandboxPolicy } from '../../src-preload/protocol';
import { waitFor } from '../support/wait';

const probe = process.platform === 'linux' ? await probeBwrap() : { ok: false as const, reason: 'not Linux', fix: '' };
const skipReason = probe.ok ? '' : ` — SKIPPED: bwrap is unusable here (${probe.reason}) ${probe.fix}`;
const WEFT = resolve(__dirname, '../../bin/weft.js');
const PROTECTED = ['.agents', '.git', '.weft'];

let base: string;
let project: string;
let env: Record<string, string>;
/** /tmp and $TMPDIR are left out: the test folders live there. */
const WORKSPACE: SandboxPolicy = { type: 'workspaceWrite', excludeSlashTmp: true, excludeTmpdirEnvVar: true };
const running = new Set<ChildProcessWithoutNullStreams>();

interface Run {
  child: ChildProcessWithoutNullStreams;
  /** Everything printed so far (stdout and stderr). */
  output(): string;
  /** Resolves once the output contains `text`. */
  printed(text: string): Promise<void>;
  ended: Promise<{ code: number | null; output: string }>;
}

/** `release`: what the launch holds, given up once the command has ended (as the exec engine does). */
function track(child: ChildProcessWithoutNullStreams, release: () => Promise<void> = () => Promise.resolve()): Run {
  running.add(child);
  let output = '';
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer): void => {
    output += chunk.toString();
    for (const l of [...listeners]) l();
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const ended = new Promise<{ code: number | null; output: string }>((done) =>
    child.once('close', (code) => {
      running.delete(child);
      void release().then(() => done({ code, output }));
    }),
  );
  return {
    child,
    output: () => output,
    printed: async (text) => {
      await waitFor<null>(
        (listener) => {
          const check = (): void => listener(null);
          listeners.add(check);
          check();
          return () => listeners.delete(check);
        },
        () => output.includes(text),
        { label: `"${text}" printed; got: ${output}` },
      );
    },
    ended,
  };
}

/** `bash -c script` in `cwd` through this process's sandbox launcher, as the exec engine runs commands. */
async function sandboxed(script: string, cwd = project, policy: SandboxPolicy = WORKSPACE): Promise<Run> {
  const sandbox = await createSandboxLauncher(policy, cwd, env);
  if (!sandbox.available) throw new Error(`sandbox unavailable: ${sandbox.reason}`);
  const launched = await sandbox.launcher(['bash', '-c', script], { cwd, env });
  const [program, ...args] = launched.argv;
  if (program === undefined) throw new Error('the launcher returned an empty argv');
  return track(spawn(program, args, { cwd, env: launched.env ?? env }), launched.release);
}

/** The same through another Weft process: `weft sandbox`. */
function otherProcess(script: string, cwd = project): Run {
  const child = spawn(process.execPath, [WEFT, 'sandbox', '--cd', cwd, '--', 'bash', '-c', script], {
    cwd,
    env: { ...env, WEFT_HOME: join(base, 'weft-home') },
  });
  return track(child);
}

/** Whether `child` has closed its output (it and every process sharing it have ended) within `ms`. */
async function closedWithin(child: ChildProcessWithoutNullStreams, ms: number): Promise<boolean> {
  if (child.stdout.closed && child.stderr.closed && (child.exitCode !== null || child.signalCode !== null)) return true;
  let timer: NodeJS.Timeout | undefined;
  const closed = await Promise.race([
    new Promise<boolean>((done) => child.once('close', () => done(true))),
    new Promise<boolean>((done) => (timer = setTimeout(() => done(false), ms))),
  ]);
  clearTimeout(timer);
  return closed;
}

/** The processes started by this test (any depth, reparented or not): those with the test's HOME. */
async function testProcesses(): Promise<{ pid: number; args: string }[]> {
  const marker = `HOME=${env['HOME'] ?? ''}\0`;
  const found: { pid: number; args: string }[] = [];
  for (const name of await readdir('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      const environ = await readFile(`/proc/${pid}/environ`, 'latin1');
      if (!`\0${environ}`.includes(`\0${marker}`)) continue;
      const args = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0').join(' ').trim();
      found.push({ pid, args });
    } catch {
      // Ended meanwhile, or not ours to read.
    }
  }
  return found;
}

/** A script that says `ready`, then waits for a line on the fifo `go` before running `then`. */
const waitingScript = (then: string): string => `echo ready; read line < go; ${then}`;

async function go(dir = project): Promise<void> {
  const fifo = await open(join(dir, 'go'), 'w');
  await fifo.write('go\n');
  await fifo.close();
}

/** A repository planted in `.git` with a hook git would run: what the placeholder must prevent. */
const ARM = [
  'git init -q . 2>&1',
  `git config core.fsmonitor 'touch ${'$'}{PWD}/armed' 2>&1`,
  'mkdir -p .git/hooks 2>&1; echo evil > .git/config 2>&1',
  'mkdir -p .agents/skills/x 2>&1 && echo planted > .agents/skills/x/SKILL.md',
  'echo \'approval_policy = "never"\' > .weft/config.toml 2>&1',
  'echo made > ok.txt',
].join('; ');

async function expectNothingPlanted(dir = project): Promise<void> {
  expect(await readFile(join(dir, 'ok.txt'), 'utf8')).toBe('made\n');
  for (const name of PROTECTED) expect(existsSync(join(dir, name)), `${dir}/${name}`).toBe(false);
}

describe.skipIf(!probe.ok)(`Linux sandbox placeholders${skipReason}`, () => {
  beforeEach(async () => {
    base = await realpath(await mkdtemp(join(tmpdir(), 'weft-placeholders-')));
    project = join(base, 'project');
    await mkdir(project);
    await mkdir(join(base, 'weft-home'));
    await promisify(execFile)('mkfifo', [join(project, 'go')]);
    env = { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: join(base, 'home'), LANG: 'C' };
  });

  afterEach(async () => {
    for (const child of running) child.kill('SIGKILL');
    const unclosed = (
      await Promise.all(
        [...running].map(async (child) => ((await closedWithin(child, 10_000)) ? null : (child.pid ?? -1))),
      )
    ).filter((pid) => pid !== null);
    // Every command of the test, at any depth (a sandbox outliving its Weft process would be one), found by
    // the HOME the test gave it, is ended, so that one test's leftovers never hang the next.
    const strays = await testProcesses();
    for (const stray of strays) process.kill(stray.pid, 'SIGKILL');
    for (const child of running) {
      child.stdout.destroy();
      child.stderr.destroy();
    }
    running.clear();
    await rm(base, { recursive: true, force: true });
    if (unclosed.length > 0 || strays.length > 0) {
      throw new Error(
        `left running: children ${unclosed.join(', ') || 'none'} never closed their output; processes of the ` +
          `test still there: ${strays.map((s) => `${s.pid} ${s.args}`).join('; ') || 'none'}`,
      );
    }
  });

  it('protects a folder without .git, .agents and .weft while the command runs, and leaves nothing behind', async () => {
    const extra = join(base, 'extra');
    await mkdir(extra);
    const policy: SandboxPolicy = { ...WORKSPACE, writableRoots: [extra] };
    const run = await sandboxed(`${ARM}; cd ${extra} && (${ARM})`, project, policy);
    const { code } = await run.ended;
    expect(code).toBe(0);
    await expectNothingPlanted(project);
    await expectNothingPlanted(extra);
    expect((await readdir(project)).sort()).toEqual(['go', 'ok.txt']);
    expect(await readdir(extra)).toEqual(['ok.txt']);
  });

  it('keeps folders that were there before: an empty one stays empty, one with content is untouched', async () => {
    await mkdir(join(project, '.weft'));
    await mkdir(join(project, '.agents', 'skills'), { recursive: true });
    const run = await sandboxed('echo x > .weft/config.toml; echo x > .agents/skills/new.md; touch .weft/a; true');
    expect((await run.ended).code).toBe(0);
    expect(await readdir(join(project, '.weft'))).toEqual([]);
    expect(await readdir(join(project, '.agents'))).toEqual(['skills']);
    expect(await readdir(join(project, '.agents', 'skills'))).toEqual([]);
    expect(existsSync(join(project, '.git'))).toBe(false);
  });

  it('two commands of one process in one folder: the first to end leaves the placeholders to the other', async () => {
    const long = await sandboxed(waitingScript(ARM));
    await long.printed('ready');
    const short = await sandboxed('echo short');
    expect(await short.ended).toEqual({ code: 0, output: 'short\n' });
    // The long command still runs: its placeholders are still mounted, so they are still on disk.
    for (const name of PROTECTED) expect(existsSync(join(project, name)), name).toBe(true);
    await go();
    expect((await long.ended).code).toBe(0);
    await expectNothingPlanted();
  });

  it('a command of another Weft process that ends first leaves the placeholders to this one', async () => {
    const long = await sandboxed(waitingScript(ARM));
    await long.printed('ready');
    const other = otherProcess('echo other');
    expect(await other.ended).toEqual({ code: 0, output: 'other\n' });
    for (const name of PROTECTED) expect(existsSync(join(project, name)), name).toBe(true);
    await go();
    expect((await long.ended).code).toBe(0);
    await expectNothingPlanted();
  });

  it('a command of this process that ends first leaves them to one of another Weft process', async () => {
    const other = otherProcess(waitingScript(ARM));
    await other.printed('ready');
    const short = await sandboxed('echo short');
    expect(await short.ended).toEqual({ code: 0, output: 'short\n' });
    for (const name of PROTECTED) expect(existsSync(join(project, name)), name).toBe(true);
    await go();
    expect((await other.ended).code).toBe(0);
    await expectNothingPlanted();
  });

  it('a placeholder left by a Weft process that was killed is removed by the next command', async () => {
    const other = otherProcess(waitingScript('true'));
    await other.printed('ready');
    other.child.kill('SIGKILL');
    // The sandbox dies with the process that started it (bwrap --die-with-parent): its output closes.
    if (!(await closedWithin(other.child, 20_000))) {
      throw new Error(
        `the sandbox outlived the killed Weft process: ${(await testProcesses()).map((p) => `${p.pid} ${p.args}`).join('; ')}`,
      );
    }
    // What the killed process held is still there; the next command cleans it up once it ends.
    expect(existsSync(join(project, '.git'))).toBe(true);
    const next = await sandboxed('echo next');
    expect(await next.ended).toEqual({ code: 0, output: 'next\n' });
    for (const name of PROTECTED) expect(existsSync(join(project, name)), name).toBe(false);
  });

  it('through the exec engine: a command kept running as a session holds them until it exits', async () => {
    const sandbox = await createSandboxLauncher(WORKSPACE, project, env);
    if (!sandbox.available) throw new Error(`sandbox unavailable: ${sandbox.reason}`);
    const manager = new ExecSessionManager({ launcher: sandbox.launcher, baseEnv: env });
    const ctx = { signal: new AbortController().signal };
    const first = await manager.exec(
      { cmd: waitingScript(ARM), workdir: project, shell: '/bin/bash', login: false, yieldTimeMs: 250 },
      ctx,
    );
    expect(first).toMatchObject({ exitCode: null, sessionId: expect.any(Number) });
    const quick = await manager.exec({ cmd: 'echo quick', workdir: project, shell: '/bin/bash', login: false }, ctx);
    expect(quick).toMatchObject({ exitCode: 0, output: 'quick\n' });
    for (const name of PROTECTED) expect(existsSync(join(project, name)), name).toBe(true);
    await go();
    const done = await manager.writeStdin({ sessionId: first.sessionId ?? -1, yieldTimeMs: 30_000 }, ctx);
    expect(done.exitCode).toBe(0);
    await expectNothingPlanted();
  });

  it('writes nothing the command can see in the placeholders', async () => {
    const run = await sandboxed('ls -A .git .agents .weft; echo listed');
    expect(await run.ended).toEqual({ code: 0, output: '.agents:\n\n.git:\n\n.weft:\nlisted\n' });
  });
});
