// A real OpenSSH server on 127.0.0.1 for the environment tests: its own host key, an authorized key made
// here, its own sshd_config (no PAM, no strict modes) and a client config for `ssh -F`, since ssh reads
// `~/.ssh` from the passwd entry, not from $HOME. It logs in as whoever runs the tests (root in CI).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

export const SSHD = '/usr/sbin/sshd';
export const TEST_HOST = 'weft-test-box';

export interface TestSshd {
  port: number;
  dir: string;
  /** A client config naming TEST_HOST: `ssh -F clientConfig weft-test-box`. */
  clientConfig: string;
  /** The same host with a key sshd does not accept, for a refused login. */
  strangerConfig: string;
  /** Stops the listener (sessions already open keep running, as on a real host). */
  stop(): Promise<void>;
  /** Starts the listener again on the same port. */
  start(): Promise<void>;
  dispose(): Promise<void>;
}

/** Why sshd cannot run here, or null when it can (checked before any test depends on it). */
export function sshdUnavailable(): string | null {
  if (!existsSync(SSHD)) return `${SSHD} is missing (Debian package openssh-server)`;
  if (spawnSync('ssh', ['-V']).error !== undefined) return 'ssh is missing (Debian package openssh-client)';
  // sshd refuses to start without its privilege separation folder; only root can make it (startSshd does).
  if (process.getuid?.() !== 0 && !existsSync('/run/sshd')) {
    return 'sshd needs /run/sshd (its privilege separation folder), which only root can create: run `sudo mkdir -p /run/sshd` once';
  }
  return null;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function keygen(file: string): void {
  const made = spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'weft-test', '-f', file]);
  if (made.status !== 0) throw new Error(`ssh-keygen failed: ${made.stderr.toString()}`);
}

export async function startSshd(): Promise<TestSshd> {
  const dir = await mkdtemp(join(tmpdir(), 'weft-sshd-'));
  const user = userInfo().username;
  keygen(join(dir, 'host_key'));
  keygen(join(dir, 'client_key'));
  keygen(join(dir, 'stranger_key'));
  await writeFile(join(dir, 'authorized_keys'), await readFile(join(dir, 'client_key.pub')));
  const hostKey = (await readFile(join(dir, 'host_key.pub'), 'utf8')).trim().split(' ').slice(0, 2).join(' ');
  const port = await freePort();
  const config = join(dir, 'sshd_config');
  await writeFile(
    config,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${join(dir, 'host_key')}`,
      `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
      `PidFile ${join(dir, 'sshd.pid')}`,
      'UsePAM no',
      'StrictModes no',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PubkeyAuthentication yes',
      'PermitRootLogin prohibit-password',
      `AllowUsers ${user}`,
      'LogLevel ERROR',
      '',
    ].join('\n'),
  );
  const clientConfig = join(dir, 'ssh_config');
  const strangerConfig = join(dir, 'ssh_config_stranger');
  await writeFile(join(dir, 'known_hosts'), `[127.0.0.1]:${port} ${hostKey}\n`);
  const client = (key: string): string =>
    [
      `Host ${TEST_HOST}`,
      '  HostName 127.0.0.1',
      `  Port ${port}`,
      `  User ${user}`,
      `  IdentityFile ${join(dir, key)}`,
      '  IdentitiesOnly yes',
      `  UserKnownHostsFile ${join(dir, 'known_hosts')}`,
      '  GlobalKnownHostsFile /dev/null',
      '  StrictHostKeyChecking yes',
      '  LogLevel ERROR',
      '',
    ].join('\n');
  await writeFile(clientConfig, client('client_key'));
  await writeFile(strangerConfig, client('stranger_key'));
  // sshd insists on its privilege separation folder, even when it runs as an ordinary user.
  if (process.getuid?.() === 0) await mkdir('/run/sshd', { recursive: true, mode: 0o755 });

  let child: ChildProcess | null = null;
  const start = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const started = spawn(SSHD, ['-D', '-e', '-f', config, '-o', 'LogLevel=INFO'], {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      child = started;
      let said = '';
      started.stderr?.on('data', (chunk: Buffer) => {
        said += chunk.toString();
        if (said.includes('Server listening on')) resolve();
      });
      started.once('error', reject);
      started.once('exit', (code) => reject(new Error(`sshd exited (${String(code)}) before listening: ${said}`)));
    });
  const stop = async (): Promise<void> => {
    const running = child;
    child = null;
    if (running === null || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGTERM');
    await exited;
  };
  await start();
  return {
    port,
    dir,
    clientConfig,
    strangerConfig,
    start,
    stop,
    dispose: async () => {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
