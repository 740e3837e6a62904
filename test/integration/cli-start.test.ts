// How the `weft` commands start, on the built command with a probe preloaded into it
// (test/support/start-probe.mjs):
// - `weft exec` and `weft apply-patch` run from a one-file build of their own (not cli.js and its chunks,
//   each of which Node resolves, reads and links on its own); `weft exec` with V8's code of every function
//   an earlier run compiled: bin/weft.js keeps it as `weft-exec.code` in the compile cache folder once a run
//   did the command's work, takes it when it matches the build, and makes it again when it is missing,
//   foreign or damaged, never failing the command for it;
// - no command sets a V8 flag before its work (a flag set at run time makes V8 compile every Node built-in
//   loaded after it from its source; see src-main/safety/approvals/shell-parse.ts).
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mockModelConfig, startMockResponsesServer, type MockResponsesServer } from '../support/mock-responses-server';
import { answerTurn, evCompleted, evCreated, evFunctionCall } from '../support/sse';
import { runWeftCli } from '../support/weft-cli';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../support/workspace';

const PROBE = resolve(__dirname, '../support/start-probe.mjs');
const DIST = resolve(__dirname, '../../dist/cli');

let server: MockResponsesServer;
let ws: TempWorkspace;
let home: WeftHome;

beforeEach(async () => {
  server = await startMockResponsesServer();
  ws = await makeTempWorkspace({ 'notes.txt': 'alpha\nbeta\n' });
  home = await makeWeftHome(mockModelConfig(server.url));
});

afterEach(async () => {
  await server.close();
  await ws.cleanup();
  await home.cleanup();
});

/** Runs `weft args` with the probe; what it loaded as modules from dist/cli (file names) and the flags it set. */
async function probed(args: string[], stdin = '', env: Record<string, string> = {}) {
  const log = join(home.dir, 'start-probe.log');
  await rm(log, { force: true });
  const run = await runWeftCli(
    args,
    { cwd: ws.dir, weftHome: home.dir },
    { nodeArgs: ['--import', PROBE], env: { WEFT_START_PROBE: log, NODE_COMPILE_CACHE: '', ...env }, stdin },
  );
  const lines = (await readFile(log, 'utf8')).trim().split('\n');
  const loaded = lines
    .filter((l) => l.startsWith('load '))
    .map((l) => decodeURIComponent(new URL(l.slice('load '.length)).pathname))
    .filter((p) => p.startsWith(`${DIST}/`))
    .map((p) => p.slice(DIST.length + 1));
  const flags = lines.filter((l) => l.startsWith('flag ')).map((l) => l.slice('flag '.length));
  const builtins = (lines.find((l) => l.startsWith('builtins ')) ?? '').split(' ').slice(1);
  const wasm = lines.filter((l) => l.startsWith('wasm ')).map((l) => l.slice('wasm '.length));
  return { run, loaded, flags, builtins, wasm };
}

/** The kept code of a one-file command in this home: its header's key (without the CRC), bytes and time. */
async function keptCode(name: string): Promise<{ key: string; bytes: Buffer; mtimeMs: number } | null> {
  const file = join(home.dir, 'cache', 'compile', `${name}.code`);
  try {
    const bytes = await readFile(file);
    const header = bytes.toString('latin1', 0, bytes.indexOf(10)).split(' ');
    return { key: header.slice(0, -1).join(' '), bytes, mtimeMs: (await stat(file)).mtimeMs };
  } catch {
    return null;
  }
}

/** The home's own compile cache folder, not the one `npm test` shares (see sharedCompileCache). */
const OWN_CACHE = { env: { NODE_COMPILE_CACHE: '' } };
const PATCH = '*** Begin Patch\n*** Update File: notes.txt\n@@\n-beta\n+gamma\n*** End Patch\n';
/** This build's name, as the one-file bundles end with it. */
const buildOf = async (name: string): Promise<string> =>
  /\/\/# weftBuild=(\w+)/.exec(await readFile(join(DIST, `${name}.cjs`), 'utf8'))?.[1] ?? 'none';

describe('weft command start-up', () => {
  it("apply-patch loads its one file, none of Node's streams, and sets no V8 flag", async () => {
    const { run, loaded, flags } = await probed(['apply-patch'], PATCH);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('Success. Updated the following files:\nM notes.txt\n');
    expect(await ws.read('notes.txt')).toBe('alpha\ngamma\n');
    expect(loaded).toEqual(['weft-apply-patch.cjs']);
    expect(flags).toEqual([]);
    // The patch came on a pipe and the answer went to one, read and written with plain system calls:
    // process.stdin and process.stdout would have loaded Node's streams (about 7 ms of a 44 ms start).
    await writeFile(join(ws.dir, 'notes.txt'), 'alpha\nbeta\n');
    const plain = await probed(['apply-patch'], PATCH, { WEFT_START_PROBE_BUILTINS: '1' });
    expect(plain.run.stdout).toBe('Success. Updated the following files:\nM notes.txt\n');
    expect(plain.builtins).toContain('fs');
    expect(plain.builtins.filter((id) => /^(stream|net|tty|internal\/streams\/readable)$/.test(id))).toEqual([]);
  });

  it('exec keeps its compiled code only from a run that did its work, and the next run takes it as it is', async () => {
    expect((await probed(['exec', '--help'])).run.code).toBe(0);
    // Help is not the command's work: nothing kept from it.
    expect(await keptCode('weft-exec')).toBeNull();
    server.enqueue(answerTurn('Hello'));
    expect((await runWeftCli(['exec', 'say hello'], { cwd: ws.dir, weftHome: home.dir }, OWN_CACHE)).code).toBe(0);
    const kept = await keptCode('weft-exec');
    expect(kept?.key).toBe(`${await buildOf('weft-exec')} ${process.version} ${process.arch}`);
    expect(kept?.bytes.length).toBeGreaterThan(100_000);
    // Taken as it is by the next run (one V8 rejected would be made again).
    server.enqueue(answerTurn('Hello again'));
    const second = await runWeftCli(['exec', 'say hello'], { cwd: ws.dir, weftHome: home.dir }, OWN_CACHE);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain('Hello again');
    const again = await keptCode('weft-exec');
    expect(again?.mtimeMs).toBe(kept?.mtimeMs);
    expect(again?.bytes.equals(kept?.bytes ?? Buffer.alloc(0))).toBe(true);
  });

  it('exec runs its one file to an answer, with the shell grammar, without a warning or a V8 flag before its work', async () => {
    // A script the simple reader leaves to the grammar (web-tree-sitter, imported by the one file).
    server.enqueueMany([
      {
        kind: 'sse',
        events: [
          evCreated(),
          evFunctionCall('c1', 'exec_command', { cmd: 'for x in a b; do echo "v=$(printf %s $x)"; done' }),
          evCompleted(),
        ],
      },
      answerTurn('Hello'),
    ]);
    const { run, loaded, flags } = await probed(['exec', 'say hello']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Hello');
    expect(run.stderr).not.toMatch(/Warning/);
    expect(JSON.stringify(server.requests[1]?.body)).toContain('v=a\\nv=b');
    expect(loaded).toEqual([]);
    // The grammar's loader keeps its WebAssembly on the baseline tier: the flags come with it, after the work began.
    expect(flags).toEqual(['--liftoff-only', '--no-wasm-tier-up', '--no-wasm-dynamic-tiering']);
    expect((await keptCode('weft-exec'))?.key).toBe(`${await buildOf('weft-exec')} ${process.version} ${process.arch}`);
  });

  it('exec talks to the model without compiling WebAssembly, so it has nothing to wait for when it ends', async () => {
    // Node's fetch parses HTTP with WebAssembly, which V8 compiled again on a background thread once hot, and
    // an ending process waited for that (30–38 ms of a run with one tool call): the model client is on node:http.
    server.enqueueMany([
      { kind: 'sse', events: [evCreated(), evFunctionCall('c1', 'exec_command', { cmd: 'echo hi' }), evCompleted()] },
      answerTurn('Hello'),
    ]);
    const { run, wasm } = await probed(['exec', 'say hello']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Hello');
    expect(server.requests).toHaveLength(2);
    expect(JSON.stringify(server.requests[1]?.body)).toContain('hi\\n');
    expect(wasm).toEqual([]);
  });

  it('exec makes its kept code again when it is foreign or corrupt, and runs all the same', async () => {
    const file = join(home.dir, 'cache', 'compile', 'weft-exec.code');
    const key = `${await buildOf('weft-exec')} ${process.version} ${process.arch}`;
    await mkdir(join(home.dir, 'cache', 'compile'), { recursive: true });
    for (const bad of [
      Buffer.from('not a cache at all'),
      Buffer.from(`another-build ${process.version} ${process.arch}\n${'x'.repeat(5000)}`),
      Buffer.concat([Buffer.from(`${key} 0\n`), Buffer.alloc(5000, 7)]),
    ]) {
      await writeFile(file, bad);
      server.enqueue(answerTurn('Hello'));
      const run = await runWeftCli(['exec', 'say hello'], { cwd: ws.dir, weftHome: home.dir }, OWN_CACHE);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain('Hello');
      const kept = await keptCode('weft-exec');
      expect(kept?.key).toBe(key);
      expect(kept?.bytes.length).toBeGreaterThan(100_000);
    }
  });

  it('exec does not take kept code whose bytes were damaged after it was written', async () => {
    server.enqueue(answerTurn('Hello'));
    expect((await runWeftCli(['exec', 'say hello'], { cwd: ws.dir, weftHome: home.dir }, OWN_CACHE)).code).toBe(0);
    const kept = await keptCode('weft-exec');
    if (kept === null) throw new Error('no code was kept');
    // Flip bytes in the middle of the code, keeping its header (and so its old CRC-32).
    const damaged = Buffer.from(kept.bytes);
    for (let i = damaged.length >> 1; i < (damaged.length >> 1) + 64; i++) damaged[i] = (damaged[i] ?? 0) ^ 0xff;
    await writeFile(join(home.dir, 'cache', 'compile', 'weft-exec.code'), damaged);
    server.enqueue(answerTurn('Hello'));
    const run = await runWeftCli(['exec', 'say hello'], { cwd: ws.dir, weftHome: home.dir }, OWN_CACHE);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Hello');
    // Made again: the damaged bytes are gone.
    expect((await keptCode('weft-exec'))?.bytes.equals(damaged)).toBe(false);
  });

  it('exec runs all the same when its cache folder cannot be made', async () => {
    // A file where the folder would be: neither Node's cache nor the kept code can be written.
    await mkdir(join(home.dir, 'cache'), { recursive: true });
    await writeFile(join(home.dir, 'cache', 'compile'), 'not a folder');
    for (const text of ['Hello', 'Hello again']) {
      server.enqueue(answerTurn(text));
      const run = await runWeftCli(['exec', 'say hello'], { cwd: ws.dir, weftHome: home.dir }, OWN_CACHE);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain(text);
    }
    expect(await readFile(join(home.dir, 'cache', 'compile'), 'utf8')).toBe('not a folder');
  });

  it('the other commands start from cli.js and set no V8 flag either', async () => {
    const { run, loaded, flags } = await probed(['threads', 'list']);
    expect(run.code, run.stderr).toBe(0);
    expect(loaded[0]).toBe('cli.js');
    expect(flags).toEqual([]);
  });
});
