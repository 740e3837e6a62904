// Environments for tests: a "remote" Weft home served by this checkout's `weft` (through ssh to the test
// sshd, or through a local pipe), a local Weft home whose config.toml names it, and relays to it.
import { spawn } from 'node:child_process';
import { readdir, readFile, readlink, rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { userSocketPaths } from '../../src-main/server/user-socket';
import { StdioRpcClient } from './rpc-client';

export const WEFT_BIN = resolve(__dirname, '../../bin/weft.js');

/** The remote `weft` command string: this checkout's weft with its own WEFT_HOME and the mock's key. */
export function remoteWeft(remoteHome: string, bin = WEFT_BIN): string {
  return `WEFT_HOME=${remoteHome} MOCK_API_KEY=sk-test ${process.execPath} ${bin}`;
}

/**
 * The config.toml of the Weft there: its model "box-model" from the mock Responses server at `modelUrl`
 * (no retries), with `top` lines among the top-level keys, the provider named `provider`, and `tables`
 * after it.
 */
export function boxConfig(
  modelUrl: string,
  options: { top?: readonly string[]; provider?: string; tables?: readonly string[] } = {},
): string {
  return [
    'model = "box-model"',
    'model_provider = "mock"',
    ...(options.top ?? []),
    '[model_providers.mock]',
    `name = "${options.provider ?? 'Mock'}"`,
    `base_url = "${modelUrl}"`,
    'env_key = "MOCK_API_KEY"',
    'wire_api = "responses"',
    'request_max_retries = 0',
    ...(options.tables ?? []),
    '',
  ].join('\n');
}

/** A small environment, as a shell gives: what the relay and the pipes it starts see. */
export function cliEnv(weftHome: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env['PATH'] ?? '',
    HOME: process.env['HOME'] ?? '',
    SHELL: '/bin/bash',
    WEFT_HOME: weftHome,
    MOCK_API_KEY: 'sk-test',
    ...extra,
  };
}

/** `weft app-server --env NAME` of this checkout, as a JSON-RPC client. */
export function startRelay(localHome: string, name: string, extraEnv: Record<string, string> = {}): StdioRpcClient {
  const child = spawn(process.execPath, [WEFT_BIN, 'app-server', '--env', name], {
    cwd: localHome,
    env: cliEnv(localHome, extraEnv),
  });
  return StdioRpcClient.attach(child);
}

/** `weft app-server --attach` on this machine for `remoteHome`: a direct client of the per-user server. */
export function attachDirect(remoteHome: string): StdioRpcClient {
  const child = spawn(process.execPath, [WEFT_BIN, 'app-server', '--attach'], {
    cwd: remoteHome,
    env: cliEnv(remoteHome),
  });
  return StdioRpcClient.attach(child);
}

/** The children of process `pid` (from /proc), as `[pid, command name]`. */
export async function childProcesses(pid: number): Promise<[number, string][]> {
  const out: [number, string][] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    // pid (comm) state ppid …; comm may hold spaces and parentheses, so read after the last ')'.
    const close = stat.lastIndexOf(')');
    const fields = stat.slice(close + 2).split(' ');
    if (Number(fields[1]) === pid) out.push([Number(entry), stat.slice(stat.indexOf('(') + 1, close)]);
  }
  return out;
}

/**
 * The relay pipes among `pid`'s children: the Node processes a `command` environment's `sh -c … exec`
 * became (Node 24 names every main thread "MainThread", so they are told by their program), not the
 * host's spawn host (`spawn-host.js`), which is a Node child too.
 */
export async function relayPipes(pid: number): Promise<number[]> {
  const pipes: number[] = [];
  for (const [child] of await childProcesses(pid)) {
    const exe = await readlink(`/proc/${child}/exe`).catch(() => '');
    const argv = (await readFile(`/proc/${child}/cmdline`, 'utf8').catch(() => '')).split('\0');
    if (exe === process.execPath && !argv.some((a) => a.endsWith('spawn-host.js'))) pipes.push(child);
  }
  return pipes;
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
 * Stops the per-user app server of `remoteHome` (started by an attach), if one runs, waits for it to go,
 * and removes its log (the test's own; a real server keeps it).
 */
export async function stopUserServer(remoteHome: string): Promise<void> {
  const { pidFile, logFile } = userSocketPaths(remoteHome, {});
  const pid = Number((await readFile(pidFile, 'utf8').catch(() => '')).trim());
  if (Number.isInteger(pid) && pid > 0 && alive(pid)) await stopProcess(pid, remoteHome);
  await rm(logFile, { force: true });
}

async function stopProcess(pid: number, remoteHome: string): Promise<void> {
  process.kill(pid, 'SIGTERM');
  // Its own shutdown (threads unloaded, index closed) is what is awaited; a guard keeps a hang visible.
  const deadline = Date.now() + 20_000;
  while (alive(pid)) {
    if (Date.now() > deadline) throw new Error(`the app server ${pid} of ${remoteHome} did not stop`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
