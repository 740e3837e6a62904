/**
 * Remote environments: one turn through `weft app-server --env box` (ssh to a loopback sshd, then
 * `weft app-server --attach` to the per-user server) against the same turn through `weft app-server` run
 * directly on the same Weft home; and, after the ssh process is killed, how long the relay takes to be
 * back (`weft/environment/status` "connected"), backoff's first wait (250 ms) included.
 * Needs /usr/sbin/sshd (Debian openssh-server); without it the bench says so and measures nothing.
 */
import { spawn } from 'node:child_process';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { userSocketPaths } from '../src-main/server/user-socket';
import { startMockResponsesServer } from '../test/support/mock-responses-server';
import { StdioRpcClient } from '../test/support/rpc-client';
import { evAssistantMessage, evCompleted, evCreated, evOutputTextDelta } from '../test/support/sse';
import { sshdUnavailable, startSshd, TEST_HOST } from '../test/support/sshd';
import { makeTempWorkspace, makeWeftHome } from '../test/support/workspace';

const TURNS = 15;
const WARM_UP = 3;
const CUTS = 5;
const BIN = resolve('bin/weft.js');

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

async function sshChild(pid: number): Promise<number> {
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const close = stat.lastIndexOf(')');
    if (stat.slice(stat.indexOf('(') + 1, close) === 'ssh' && Number(stat.slice(close + 2).split(' ')[1]) === pid) {
      return Number(entry);
    }
  }
  throw new Error('the relay has no ssh child');
}

export default async function run() {
  const unavailable = sshdUnavailable();
  if (unavailable !== null) {
    return { title: 'Remote environments (ssh)', rows: [], notes: [`Not measured: ${unavailable}.`] };
  }
  const loadBefore = loadavg();
  const sshd = await startSshd();
  const mock = await startMockResponsesServer();
  const project = await makeTempWorkspace({ 'notes.txt': 'one\n' });
  const remote = await makeWeftHome(
    `model = "mock-model"\nmodel_provider = "mock"\napproval_policy = "never"\n[model_providers.mock]\nname = "Mock"\nbase_url = "${mock.url}"\nenv_key = "MOCK_API_KEY"\nwire_api = "responses"\nrequest_max_retries = 0\n`,
  );
  const local = await makeWeftHome();
  await writeFile(
    join(local.dir, 'config.toml'),
    `[environments.box]\nssh = ${JSON.stringify(TEST_HOST)}\nssh_args = ["-F", ${JSON.stringify(sshd.clientConfig)}]\nweft = ${JSON.stringify(`WEFT_HOME=${remote.dir} MOCK_API_KEY=sk-bench ${process.execPath} ${BIN}`)}\n`,
  );
  const env = (home: string) => ({
    PATH: process.env['PATH'] ?? '',
    HOME: process.env['HOME'] ?? '',
    WEFT_HOME: home,
    MOCK_API_KEY: 'sk-bench',
  });
  const answer = () => ({
    kind: 'sse' as const,
    events: [evCreated(), evOutputTextDelta('ok'), evAssistantMessage('ok'), evCompleted()],
  });

  async function turns(client: StdioRpcClient): Promise<number[]> {
    await client.initialize();
    const { thread } = await client.request<{ thread: { id: string } }>('thread/start', { cwd: project.dir });
    const times: number[] = [];
    for (let i = 0; i < WARM_UP + TURNS; i++) {
      mock.enqueue(answer());
      const from = client.received.length;
      const started = performance.now();
      const { turn } = await client.request<{ turn: { id: string } }>('turn/start', {
        threadId: thread.id,
        input: [{ type: 'text', text: `turn ${i}` }],
      });
      await client.notification('turn/completed', (p) => (p['turn'] as { id: string }).id === turn.id, from);
      if (i >= WARM_UP) times.push(performance.now() - started);
    }
    return times;
  }

  try {
    // The same home and server kind both ways: the direct app server first, then the relay over ssh.
    const direct = StdioRpcClient.start(env(remote.dir), project.dir, BIN);
    const localTimes = await turns(direct);
    await direct.close();

    const relayed = StdioRpcClient.attach(
      spawn(process.execPath, [BIN, 'app-server', '--env', 'box'], { cwd: local.dir, env: env(local.dir) }),
    );
    const handshakeStart = performance.now();
    const remoteTimes = await turns(relayed);
    const firstConnectMs = performance.now() - handshakeStart;

    const reconnects: number[] = [];
    for (let i = 0; i < CUTS; i++) {
      const from = relayed.received.length;
      const pid = relayed.child.pid ?? 0;
      const cutAt = performance.now();
      process.kill(await sshChild(pid), 'SIGKILL');
      await relayed.notification('weft/environment/status', (p) => p['state'] === 'connected', from);
      reconnects.push(performance.now() - cutAt);
    }
    await relayed.close();

    const localMs = median(localTimes);
    const remoteMs = median(remoteTimes);
    return {
      title: 'Remote environments (ssh to a loopback sshd)',
      rows: [
        { name: 'one turn, app server run directly (median)', value: Math.round(localMs * 10) / 10, unit: 'ms' },
        {
          name: 'the same turn through `--env box` over ssh (median)',
          value: Math.round(remoteMs * 10) / 10,
          unit: 'ms',
        },
        {
          name: 'overhead per turn',
          value: Math.round((remoteMs - localMs) * 10) / 10,
          unit: 'ms',
          target: '≤ 50 ms',
        },
        {
          name: 'reconnect after the ssh process is killed (median)',
          value: Math.round(median(reconnects)),
          unit: 'ms',
          note: `${CUTS} cuts; includes the first 250 ms backoff, ssh's handshake and the attach`,
        },
      ],
      notes: [
        `${TURNS} turns each after ${WARM_UP} to warm up; a turn is turn/start → turn/completed of a one-message answer from the mock model.`,
        `First connection through ssh, ${WARM_UP + TURNS} turns included: ${Math.round(firstConnectMs)} ms.`,
        `Wall-clock times on a machine shared with other work: a turn includes any time a process waited for a core. Machine load (1/5/15-minute averages) ${loadBefore.map((l) => l.toFixed(1)).join(' ')} before and ${loadavg()
          .map((l) => l.toFixed(1))
          .join(' ')} after, on ${availableParallelism()} cores.`,
      ],
    };
  } finally {
    const { pidFile, logFile } = userSocketPaths(remote.dir, {});
    const pid = Number((await readFile(pidFile, 'utf8').catch(() => '')).trim());
    if (pid > 0) process.kill(pid, 'SIGTERM');
    await rm(logFile, { force: true });
    await sshd.dispose();
    await mock.close();
    await project.cleanup();
    await local.cleanup();
    await remote.cleanup();
  }
}
