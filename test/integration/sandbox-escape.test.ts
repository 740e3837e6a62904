// Escape attempts against the real Linux sandbox (bubblewrap), run through the same launcher the exec
// engine uses: `bash -c <attempt>` wrapped by createSandboxLauncher, spawned with child_process. Every
// attempt must fail, leave the outside untouched, and the host's listeners must see nothing.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createSocket } from 'node:dgram';
import type { Socket as UdpSocket } from 'node:dgram';
import { closeSync, existsSync, openSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { createConnection, createServer } from 'node:net';
import type { Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runSandboxCommand } from '../../src-main/cli/sandbox';
import { createSandboxLauncher } from '../../src-main/safety/sandbox/launcher';
import { probeBwrap } from '../../src-main/safety/sandbox/linux-bwrap';
import type { SandboxPolicy } from '../../src-preload/protocol';

const probe = process.platform === 'linux' ? await probeBwrap() : { ok: false as const, reason: 'not Linux', fix: '' };
const skipReason = probe.ok ? '' : ` — SKIPPED: bwrap is unusable here (${probe.reason}) ${probe.fix}`;

let base: string;
let ws: string;
let outside: string;
let env: Record<string, string>;
/** /tmp and $TMPDIR are excluded because the test folders live there. */
const WORKSPACE: SandboxPolicy = { type: 'workspaceWrite', excludeSlashTmp: true, excludeTmpdirEnvVar: true };
const READ_ONLY: SandboxPolicy = { type: 'readOnly' };
const VICTIM = 'original\n';
const children = new Set<ChildProcess>();
/** What each launch holds until its command has ended. */
const releases = new WeakMap<ChildProcess, () => Promise<void>>();

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

async function launch(script: string, policy: SandboxPolicy, extraFds: number[] = []): Promise<ChildProcess> {
  const sandbox = await createSandboxLauncher(policy, ws, env);
  if (!sandbox.available) throw new Error(`sandbox unavailable: ${sandbox.reason}`);
  const launched = await sandbox.launcher(['bash', '-c', script], { cwd: ws, env });
  const [program, ...args] = launched.argv;
  if (program === undefined) throw new Error('launcher returned an empty argv');
  const child = spawn(program, args, {
    cwd: ws,
    env: launched.env ?? env,
    stdio: ['ignore', 'pipe', 'pipe', ...extraFds],
  });
  children.add(child);
  child.on('close', () => children.delete(child));
  if (launched.release !== undefined) releases.set(child, launched.release);
  return child;
}

function outcome(child: ChildProcess): Promise<Outcome> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    // Once the launch has given up what it held (the sandbox's placeholders), as the exec engine waits.
    child.on(
      'close',
      (code) => void (releases.get(child)?.() ?? Promise.resolve()).then(() => resolve({ code, stdout, stderr })),
    );
  });
}

async function sandboxed(script: string, policy: SandboxPolicy = WORKSPACE): Promise<Outcome> {
  return outcome(await launch(script, policy));
}

async function expectOutsideUntouched(): Promise<void> {
  expect(await readFile(join(outside, 'victim.txt'), 'utf8')).toBe(VICTIM);
  expect((await readdir(outside)).sort()).toEqual(['victim.txt']);
}

/** Resolves once no host process has `marker` as argv[0]; rejects, naming them, after 5 s. */
function gone(marker: string, after: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const deadline = Date.now() + 5_000;
    const check = (): void => {
      void processesNamed(marker).then((pids) => {
        if (pids.length === 0) resolve();
        else if (Date.now() > deadline) reject(new Error(`still running ${after}: ${pids.join(', ')}`));
        else setImmediate(check);
      });
    };
    check();
  });
}

/** Pids of host processes whose argv[0] is `marker`. */
async function processesNamed(marker: string): Promise<string[]> {
  const found: string[] = [];
  for (const pid of await readdir('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if ((await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0')[0] === marker) found.push(pid);
    } catch {
      // the process ended while we looked
    }
  }
  return found;
}

describe.skipIf(!probe.ok)(`Linux sandbox escape attempts${skipReason}`, () => {
  beforeEach(async () => {
    base = await realpath(await mkdtemp(join(tmpdir(), 'weft-escape-')));
    ws = join(base, 'ws');
    outside = join(base, 'outside');
    await mkdir(join(ws, '.git', 'hooks'), { recursive: true });
    await writeFile(join(ws, '.git', 'config'), '[core]\n');
    await mkdir(join(ws, '.agents'));
    await mkdir(outside);
    await writeFile(join(outside, 'victim.txt'), VICTIM);
    await symlink(outside, join(ws, 'escape'));
    env = { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: join(base, 'home'), LANG: 'C' };
  });

  afterEach(async () => {
    for (const child of children) child.kill('SIGKILL');
    await rm(base, { recursive: true, force: true });
  });

  it('control: the workspace itself is writable and the command sees the markers', async () => {
    const result = await sandboxed(
      'echo hi > inside.txt && mkdir -p src && echo x > src/a.txt && echo "$WEFT_SANDBOX $WEFT_SANDBOX_NETWORK_DISABLED"',
    );
    expect(result).toEqual({ code: 0, stdout: 'bwrap 1\n', stderr: '' });
    expect(await readFile(join(ws, 'inside.txt'), 'utf8')).toBe('hi\n');
  });

  it('cannot write outside the workspace', async () => {
    const result = await sandboxed(`echo pwned > ${outside}/victim.txt; touch ${outside}/new; exit 0`);
    expect(result.stderr).toContain('Read-only file system');
    await expectOutsideUntouched();
  });

  it('cannot write into .git (hooks, config), nor remove, rename or unmount it', async () => {
    const result = await sandboxed(
      [
        "printf '#!/bin/sh\\necho pwned\\n' > .git/hooks/pre-commit",
        'echo "[core] fsmonitor = evil" >> .git/config',
        'rm -rf .git',
        'mv .git .git-old',
        'umount .git',
        'true',
      ].join('; '),
    );
    expect(result.code).toBe(0);
    expect(existsSync(join(ws, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(await readFile(join(ws, '.git', 'config'), 'utf8')).toBe('[core]\n');
    expect(existsSync(join(ws, '.git-old'))).toBe(false);
  });

  it('cannot create project config in .weft or change .agents', async () => {
    await sandboxed(
      'mkdir -p .weft; echo \'approval_policy = "never"\' > .weft/config.toml; echo x > .agents/skill.md; true',
    );
    expect(existsSync(join(ws, '.weft', 'config.toml'))).toBe(false);
    expect(await readdir(join(ws, '.agents'))).toEqual([]);
  });

  it('cannot create and arm a missing .git, .agents or .weft (git init + core.fsmonitor)', async () => {
    const plain = join(base, 'plain');
    await mkdir(plain);
    const sandbox = await createSandboxLauncher(WORKSPACE, plain, env);
    if (!sandbox.available) throw new Error(sandbox.reason);
    const script = [
      'git init -q . 2>&1',
      `git config core.fsmonitor 'touch ${outside}/armed' 2>&1`,
      'mkdir -p .agents/skills/x && echo planted > .agents/skills/x/SKILL.md',
      'echo \'approval_policy = "never"\' > .weft/config.toml',
      'echo made > ok.txt',
    ].join('; ');
    const launched = await sandbox.launcher(['bash', '-c', script], { cwd: plain, env });
    const [program, ...args] = launched.argv;
    if (program === undefined) throw new Error('empty argv');
    const child = spawn(program, args, { cwd: plain, env: launched.env ?? env, stdio: ['ignore', 'pipe', 'pipe'] });
    const result = await outcome(child);
    await launched.release?.();
    expect(result.code).toBe(0);
    expect(await readFile(join(plain, 'ok.txt'), 'utf8')).toBe('made\n');
    expect(existsSync(join(plain, '.git', 'config'))).toBe(false);
    expect(existsSync(join(plain, '.agents', 'skills'))).toBe(false);
    expect(existsSync(join(plain, '.weft', 'config.toml'))).toBe(false);
    // The placeholders went with the command: no repository, no config, no skill, no empty folder.
    expect(await readdir(plain)).toEqual(['ok.txt']);
    await expectOutsideUntouched();
  });

  it('cannot follow a symlink out of the workspace, old or new', async () => {
    await sandboxed(`echo pwned > escape/victim.txt; ln -s ${outside} fresh-link; echo x > fresh-link/new; true`);
    await expectOutsideUntouched();
  });

  it('cannot climb out with cd .. tricks', async () => {
    await sandboxed(
      'cd .. && echo pwned > outside/victim.txt; cd ../outside && touch new; cd / && touch root-file; true',
    );
    await expectOutsideUntouched();
    expect(existsSync('/root-file')).toBe(false);
  });

  it('cannot write through /proc/self/root or /proc/1/root', async () => {
    await sandboxed(
      `echo pwned > /proc/self/root${outside}/victim.txt; echo pwned > /proc/1/root${outside}/victim.txt; true`,
    );
    await expectOutsideUntouched();
  });

  it('cannot write through a hard link to an outside file', async () => {
    const result = await sandboxed(`ln ${outside}/victim.txt hard-link && echo pwned >> hard-link`);
    expect(result.code).not.toBe(0);
    await expectOutsideUntouched();
  });

  it('cannot remount / read-write or regain capabilities, even as root', async () => {
    const result = await sandboxed(
      `mount -o remount,rw / 2>/dev/null; mount --bind ${ws} ${outside} 2>/dev/null; grep CapEff /proc/self/status; echo pwned > ${outside}/victim.txt`,
    );
    expect(result.stdout).toBe('CapEff:\t0000000000000000\n');
    expect(result.code).not.toBe(0);
    await expectOutsideUntouched();
  });

  describe('network', () => {
    let server: Server;
    let port: number;
    let connections: number;
    let onConnection: () => void;

    beforeAll(async () => {
      connections = 0;
      onConnection = () => undefined;
      server = createServer((socket) => {
        connections++;
        onConnection();
        socket.destroy();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const address = server.address();
      if (address === null || typeof address === 'string') throw new Error('no TCP port');
      port = address.port;
    });

    afterAll(async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    /** Connects from the host and resolves once the server has counted that connection. */
    function controlConnection(): Promise<void> {
      return new Promise((resolve) => {
        onConnection = resolve;
        createConnection(port, '127.0.0.1').on('error', () => undefined);
      });
    }

    it('cannot connect to a TCP listener on the host loopback', async () => {
      const before = connections;
      const result = await sandboxed(
        `exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected; ` +
          `${process.execPath} -e "require('net').connect(${port}, '127.0.0.1').on('connect', () => console.log('connected')).on('error', () => process.exit(3))"`,
      );
      expect(result.stdout).not.toContain('connected');
      expect(result.code).toBe(3);
      // Connections are accepted in order: once the host's own connection is counted, an earlier one
      // from the sandbox would have been counted too.
      await controlConnection();
      expect(connections - before).toBe(1);
    });

    it('read-only has no network either', async () => {
      const before = connections;
      const result = await sandboxed(`exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected`, READ_ONLY);
      expect(result.stdout).not.toContain('connected');
      await controlConnection();
      expect(connections - before).toBe(1);
    });

    it('control: with network access the same connection goes through', async () => {
      const before = connections;
      const counted = new Promise<void>((resolve) => (onConnection = resolve));
      const result = await sandboxed(`exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected`, {
        ...WORKSPACE,
        networkAccess: true,
      });
      expect(result.stdout).toBe('connected\n');
      await counted;
      expect(connections - before).toBe(1);
    });

    describe('DNS', () => {
      let dns: UdpSocket;
      let dnsPort: number;
      let queries: number;
      let onQuery: () => void;

      beforeAll(async () => {
        queries = 0;
        onQuery = () => undefined;
        dns = createSocket('udp4');
        dns.on('message', () => {
          queries++;
          onQuery();
        });
        await new Promise<void>((resolve) => dns.bind(0, '127.0.0.1', resolve));
        dnsPort = dns.address().port;
      });

      afterAll(async () => {
        await new Promise<void>((resolve) => dns.close(() => resolve()));
      });

      const lookup = (): string =>
        `${process.execPath} -e "const r = new (require('dns').promises.Resolver)({timeout: 500, tries: 1}); ` +
        `r.setServers(['127.0.0.1:${dnsPort}']); r.resolve4('example.com').then(() => console.log('resolved'), (e) => { console.log(e.code); process.exit(4); })"`;

      it('cannot send DNS queries to a resolver on the host', async () => {
        const before = queries;
        const result = await sandboxed(lookup());
        expect(result.code).toBe(4);
        await new Promise<void>((resolve) => {
          onQuery = resolve;
          const probeSocket = createSocket('udp4');
          probeSocket.send('control', dnsPort, '127.0.0.1', () => probeSocket.close());
        });
        expect(queries - before).toBe(1);
      });

      it('control: with network access the query reaches the resolver', async () => {
        const before = queries;
        const reached = new Promise<void>((resolve) => (onQuery = resolve));
        const child = await launch(lookup(), { ...WORKSPACE, networkAccess: true });
        const done = outcome(child);
        await reached;
        expect(queries - before).toBeGreaterThanOrEqual(1);
        // Nobody answers the query; no need to wait for the resolver to give up.
        child.kill('SIGKILL');
        await done;
      });
    });
  });

  describe('processes', () => {
    const markers: string[] = [];

    // Safety net: if the sandbox ever lets a test process escape, end it (by pid, found by its unique
    // marker) instead of leaving it running on the machine.
    afterAll(async () => {
      for (const marker of markers)
        for (const pid of await processesNamed(marker)) process.kill(Number(pid), 'SIGKILL');
    });

    it('a background process does not outlive the command (nohup, setsid, disown)', async () => {
      const marker = `weft-escape-${randomBytes(4).toString('hex')}`;
      markers.push(marker);
      const result = await sandboxed(
        [
          `bash -c 'exec -a ${marker} sleep 1000' >/dev/null 2>&1 & disown`,
          `setsid nohup bash -c 'exec -a ${marker} sleep 1000' </dev/null >/dev/null 2>&1 &`,
          // Wait (bounded) until both are running, so the test cannot pass by racing their start.
          `n=0; until [ "$(grep -lsa '^${marker}' /proc/[0-9]*/cmdline | wc -l)" = 2 ]; do n=$((n+1)); [ $n -gt 2000 ] && exit 9; done`,
          'echo started',
        ].join('\n'),
      );
      expect(result.stdout).toBe('started\n');
      // bwrap reports the command's exit as soon as the command ends (its monitor reads the status the
      // namespace's init passes on, without waiting for that init), and the kernel then kills what is left
      // in the namespace: for a few milliseconds, longer on a busy machine, the background processes can
      // still be in /proc. They must be gone soon after; an escaped one would live on (sleep 1000).
      await gone(marker, 'after the command ended');
    });

    it('killing the sandbox kills what it started (--die-with-parent)', async () => {
      const marker = `weft-escape-${randomBytes(4).toString('hex')}`;
      markers.push(marker);
      const child = await launch(
        `bash -c 'exec -a ${marker} sleep 1000' >/dev/null 2>&1 & until grep -qsa '^${marker}' /proc/$!/cmdline; do :; done; echo ready; wait`,
        WORKSPACE,
      );
      const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
      await new Promise<void>((resolve) =>
        child.stdout?.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve()),
      );
      expect(await processesNamed(marker)).toHaveLength(1);
      child.kill('SIGKILL');
      await exited;
      // The kernel delivers the parent-death signal as bwrap exits; wait for the process to be gone.
      await gone(marker, 'after the sandbox was killed');
    });

    it('cannot see or signal host processes', async () => {
      const result = await sandboxed(
        `ls /proc | grep -c '^[0-9]'; kill -0 ${process.pid} 2>/dev/null && echo can-signal; true`,
      );
      expect(Number(result.stdout.split('\n')[0])).toBeLessThan(10);
      expect(result.stdout).not.toContain('can-signal');
    });
  });

  describe('unix sockets and inherited descriptors', () => {
    let servers: Server[] = [];
    let connections = 0;

    async function listen(path: string): Promise<void> {
      const server = createServer((socket) => {
        connections++;
        socket.end('hello from the host\n');
      });
      servers.push(server);
      await new Promise<void>((resolve) => server.listen(path, resolve));
    }

    afterEach(async () => {
      await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
      servers = [];
    });

    const connectScript = (path: string): string =>
      `${process.execPath} -e "const s = require('net').connect('${path}'); s.on('data', (d) => process.stdout.write('reached ' + d)); s.on('error', (e) => { console.log(e.code); process.exit(5); })"`;

    it('cannot connect to a host service on a unix socket path when the network is off', async () => {
      // As docker.sock, the ssh agent or the D-Bus session bus would be: outside, and inside the workspace.
      await listen(join(outside, 'service.sock'));
      await listen(join(ws, 'agent.sock'));
      for (const policy of [WORKSPACE, READ_ONLY]) {
        for (const path of [join(outside, 'service.sock'), join(ws, 'agent.sock')]) {
          const result = await sandboxed(connectScript(path), policy);
          expect(result).toEqual({ code: 5, stdout: 'EPERM\n', stderr: '' });
        }
      }
      // The host can connect, and nothing else did before it.
      const control = await sandboxed(connectScript(join(ws, 'agent.sock')), { ...WORKSPACE, networkAccess: true });
      expect(control.stdout).toBe('reached hello from the host\n');
      expect(connections).toBe(1);
    });

    it('io_uring, which bypasses socket filters, is refused when the network is off', async () => {
      // io_uring_setup(1, NULL) fails with EFAULT when allowed, EPERM when the filter refuses it.
      const script =
        'import ctypes, os; libc = ctypes.CDLL(None, use_errno=True); libc.syscall(425, 1, None); print(os.strerror(ctypes.get_errno()))';
      const result = await sandboxed(`python3 -c "${script}"`);
      expect(result).toEqual({ code: 0, stdout: 'Operation not permitted\n', stderr: '' });
      const control = await sandboxed(`python3 -c "${script}"`, { ...WORKSPACE, networkAccess: true });
      expect(control.stdout).toBe('Bad address\n');
    });

    it('a descriptor Weft inherited is closed before the command starts', async () => {
      const fd = openSync(join(outside, 'victim.txt'), 'r+');
      try {
        const result = await outcome(await launch('echo pwned >&3; ls /proc/self/fd', WORKSPACE, [fd]));
        expect(result.stderr).toContain('Bad file descriptor');
        expect(result.stdout.split('\n').filter((n) => /^\d+$/.test(n) && Number(n) > 3)).toEqual([]);
      } finally {
        closeSync(fd);
      }
      await expectOutsideUntouched();
    });
  });

  describe('read-only', () => {
    it('cannot write the workspace, /tmp or outside', async () => {
      const tmpFile = join('/tmp', `weft-escape-${randomBytes(4).toString('hex')}`);
      const result = await sandboxed(
        `touch inside.txt; touch ${tmpFile}; echo pwned > ${outside}/victim.txt`,
        READ_ONLY,
      );
      expect(result.code).not.toBe(0);
      expect(existsSync(join(ws, 'inside.txt'))).toBe(false);
      expect(existsSync(tmpFile)).toBe(false);
      await expectOutsideUntouched();
    });
  });

  describe('weft sandbox', () => {
    it('exits with the command status and enforces the policy', async () => {
      expect(await runSandboxCommand(['--cd', ws, '--', 'bash', '-c', 'echo ok > from-cli.txt; exit 7'])).toBe(7);
      expect(await readFile(join(ws, 'from-cli.txt'), 'utf8')).toBe('ok\n');
      expect(
        await runSandboxCommand(['--cd', ws, '--mode', 'read-only', '--', 'bash', '-c', 'touch x 2>/dev/null']),
      ).toBe(1);
      expect(existsSync(join(ws, 'x'))).toBe(false);
      expect(await runSandboxCommand(['--mode', 'sideways', '--', 'true'])).toBe(2);
    });

    it('filters the environment like every other command: no keys, passwords or agent sockets', async () => {
      const added = {
        WEFT_HOME: join(base, 'home'),
        OPENAI_API_KEY: 'sk-test',
        PGPASSWORD: 'pw',
        GH_PAT: 'ghp_test',
        DATABASE_URL: 'postgres://app:hunter2@db/app',
        SSH_AUTH_SOCK: join(outside, 'agent.sock'),
        WEFT_TEST_PLAIN: 'kept',
      };
      const saved = new Map(Object.keys(added).map((key) => [key, process.env[key]]));
      Object.assign(process.env, added);
      try {
        expect(await runSandboxCommand(['--cd', ws, '--', 'bash', '-c', 'env > env.txt'])).toBe(0);
      } finally {
        for (const [key, value] of saved) {
          if (value === undefined) Reflect.deleteProperty(process.env, key);
          else process.env[key] = value;
        }
      }
      const names = (await readFile(join(ws, 'env.txt'), 'utf8'))
        .split('\n')
        .map((line) => line.slice(0, line.indexOf('=')));
      expect(names).toContain('WEFT_TEST_PLAIN');
      expect(
        names.filter((n) => ['OPENAI_API_KEY', 'PGPASSWORD', 'GH_PAT', 'DATABASE_URL', 'SSH_AUTH_SOCK'].includes(n)),
      ).toEqual([]);
    });
  });
});
