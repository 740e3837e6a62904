import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { buildSync } from 'esbuild';
import { CheckpointService } from '../../../src-main/checkpoints/service';
import { makeFixture, picture, THREAD, type Fixture } from './helpers';

let bundleDir: string;
let childScript: string;

beforeAll(() => {
  bundleDir = mkdtempSync(join(tmpdir(), 'weft-restore-child-'));
  childScript = join(bundleDir, 'restore-child.mjs');
  buildSync({
    entryPoints: [join(import.meta.dirname, 'fixtures', 'restore-child.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: childScript,
    logLevel: 'error',
  });
});
afterAll(() => rmSync(bundleDir, { recursive: true, force: true }));

/** Starts the child, waits until it says "paused", kills it with SIGKILL. */
async function killMidRestore(fx: Fixture, stopAt: string): Promise<void> {
  const child = spawn(process.execPath, [childScript, fx.home.dir, fx.ws.dir, THREAD, 'turn-1', stopAt], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
  const lines = createInterface({ input: child.stdout });
  for await (const line of lines) {
    if (line === 'paused') break;
    throw new Error(`restore child said ${line} before pausing`);
  }
  child.kill('SIGKILL');
  expect(await exited).toBe('SIGKILL');
}

describe('a restore killed with SIGKILL', () => {
  let fx: Fixture;
  afterEach(async () => fx.cleanup());

  const files = { 'a.txt': 'a\n', 'b.txt': 'b\n', 'c.txt': 'c\n', 'dir/d.txt': 'd\n' };
  const script =
    'echo A > a.txt && echo B > b.txt && rm c.txt && echo D > dir/d.txt && mkdir -p n/m && echo e > n/m/e.txt';

  it('mid-way leaves, once Weft starts again, the restored state', async () => {
    fx = await makeFixture(files, { watch: false });
    const original = picture(fx.ws.dir);
    await fx.call('turn-1', script);
    const afterTurn = picture(fx.ws.dir);
    await fx.service.dispose();

    await killMidRestore(fx, '2');
    const torn = picture(fx.ws.dir, (rel) => rel.startsWith('.weft-restore-'));
    expect(torn).not.toEqual(original);
    expect(torn).not.toEqual(afterTurn);

    const next = new CheckpointService({ weftHome: fx.home.dir, watch: false });
    expect(await next.recover()).toEqual({ pending: [], warnings: [] });
    expect(picture(fx.ws.dir)).toEqual(original);
    expect(readdirSync(join(fx.home.dir, 'checkpoints', 'restores'))).toEqual([]);
    await next.dispose();
  });

  it('while staging leaves, once Weft starts again, the state before the restore', async () => {
    fx = await makeFixture(files, { watch: false });
    await fx.call('turn-1', script);
    const afterTurn = picture(fx.ws.dir);
    await fx.service.dispose();

    await killMidRestore(fx, 'staging');
    expect(readdirSync(fx.ws.dir).some((name) => name.startsWith('.weft-restore-'))).toBe(true);

    const next = new CheckpointService({ weftHome: fx.home.dir, watch: false });
    expect(await next.recover()).toEqual({ pending: [], warnings: [] });
    expect(picture(fx.ws.dir)).toEqual(afterTurn);
    expect(readdirSync(join(fx.home.dir, 'checkpoints', 'restores'))).toEqual([]);
    await next.dispose();
  });
});
