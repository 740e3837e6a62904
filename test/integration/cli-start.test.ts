// How the one-shot `weft` commands start, on the built command with a probe preloaded into it
// (test/support/start-probe.mjs): `weft exec` and `weft apply-patch` each load one module of the CLI (their
// one-file build, not cli.js and its chunks, each of which Node resolves, reads and links on its own), and
// no command sets a V8 flag before its work (a flag set at run time makes V8 compile every Node built-in
// loaded after it from its source; see src-main/safety/approvals/shell-parse.ts).
import { readFile, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mockModelConfig, startMockResponsesServer, type MockResponsesServer } from '../support/mock-responses-server';
import { evAssistantMessage, evCompleted, evCreated, evOutputTextDelta } from '../support/sse';
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

/** Runs `weft args` with the probe; what it loaded from dist/cli (file names, in order) and the flags it set. */
async function probed(args: string[], stdin = '') {
  const log = join(home.dir, 'start-probe.log');
  await rm(log, { force: true });
  const run = await runWeftCli(
    args,
    { cwd: ws.dir, weftHome: home.dir },
    {
      nodeArgs: ['--import', PROBE],
      env: { WEFT_START_PROBE: log },
      stdin,
    },
  );
  const lines = (await readFile(log, 'utf8')).trim().split('\n');
  const loaded = lines
    .filter((l) => l.startsWith('load '))
    .map((l) => decodeURIComponent(new URL(l.slice('load '.length)).pathname))
    .filter((p) => p.startsWith(`${DIST}/`))
    .map((p) => p.slice(DIST.length + 1));
  const flags = lines.filter((l) => l.startsWith('flag ')).map((l) => l.slice('flag '.length));
  return { run, loaded, flags };
}

describe('weft command start-up', () => {
  it('apply-patch loads its one file and sets no V8 flag', async () => {
    const patch = '*** Begin Patch\n*** Update File: notes.txt\n@@\n-beta\n+gamma\n*** End Patch\n';
    const { run, loaded, flags } = await probed(['apply-patch'], patch);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(await ws.read('notes.txt')).toBe('alpha\ngamma\n');
    expect(loaded).toEqual(['weft-apply-patch.js']);
    expect(flags).toEqual([]);
  });

  it('exec loads its one file and sets no V8 flag on its way to an answer', async () => {
    server.enqueue({
      kind: 'sse',
      events: [evCreated(), evOutputTextDelta('Hello'), evAssistantMessage('Hello'), evCompleted()],
    });
    const { run, loaded, flags } = await probed(['exec', 'say hello']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Hello');
    expect(loaded).toEqual(['weft-exec.js']);
    expect(flags).toEqual([]);
  });

  it('the other commands start from cli.js and set no V8 flag either', async () => {
    const { run, loaded, flags } = await probed(['threads', 'list']);
    expect(run.code, run.stderr).toBe(0);
    expect(loaded[0]).toBe('cli.js');
    expect(loaded).not.toContain('weft-exec.js');
    expect(flags).toEqual([]);
  });
});
