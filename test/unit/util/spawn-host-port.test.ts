// The spawn host as the desktop app starts it: an Electron utility process talks to its parent through
// `process.parentPort`, not Node's IPC. Here a preload gives the built spawn host a parentPort of that
// shape (over the fork's channel), and commands run through it as they do through Node's channel.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnHostConnection, stopSpawnHost } from '../../../src-main/util/spawn-host/connection';
import { spawnHosted } from '../../../src-main/util/spawn-host/hosted-child';
import { buildSpawnHost } from '../../support/spawn-host-build';

let buildDir = '';
let removeBuild: () => Promise<void> = () => Promise.resolve();
const savedNodeOptions = process.env.NODE_OPTIONS;

beforeAll(async () => {
  const built = await buildSpawnHost('spawn-host-port');
  buildDir = built.dir;
  removeBuild = built.remove;
  // Electron's parentPort: postMessage(message), and 'message' events carrying { data }.
  const preload = join(buildDir, 'parent-port.mjs');
  writeFileSync(
    preload,
    [
      'const send = process.send.bind(process);',
      'const port = { postMessage: (message) => send(message), on: (event, listener) => process.on(event, (data) => listener({ data })) };',
      'process.parentPort = port;',
      // Nothing else may reach the channel: without the parentPort path, no report would arrive.
      'process.send = undefined;',
    ].join('\n'),
  );
  process.env.NODE_OPTIONS = `--import ${preload}`;
  process.env.WEFT_SPAWN_HOST = built.script;
});

afterAll(async () => {
  await stopSpawnHost();
  if (savedNodeOptions === undefined) delete process.env.NODE_OPTIONS;
  else process.env.NODE_OPTIONS = savedNodeOptions;
  delete process.env.WEFT_SPAWN_HOST;
  await removeBuild();
});

describe('spawn host over a parentPort', () => {
  it('starts commands and relays their output and exit codes', async () => {
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
    const child = spawnHosted('/bin/sh', ['-c', 'seq 1 200000; echo done >&2; exit 5'], { cwd: buildDir, env });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    const code = await new Promise<number | null>((resolveClose, reject) => {
      child.once('error', reject);
      child.once('close', (exitCode) => resolveClose(exitCode));
    });
    expect(code).toBe(5);
    expect(Buffer.concat(err).toString()).toBe('done\n');
    const lines = Buffer.concat(out).toString().trimEnd().split('\n');
    expect(lines.length).toBe(200_000);
    expect(lines.at(-1)).toBe('200000');
    expect((await spawnHostConnection())?.pid).toBeGreaterThan(0);
  });
});
