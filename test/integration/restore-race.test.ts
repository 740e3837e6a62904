// A restore (Undo, Redo) while a background process attacks it, as a command the model left running
// would: (1) it renames whatever the restore stages in the workspace (`.weft-restore-<id>…`: a staging
// folder, staged files) aside the moment it appears, and puts a symlink to the outside folder (or to a
// file in it) in its place; (2) it exchanges a folder the restore writes into with a symlink to the
// outside folder (renameat2 RENAME_EXCHANGE) as fast as it can. However the race falls, nothing may land
// outside the workspace, and what the result calls restored must be in the workspace with the restored
// content; what it could not restore is named.
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import type { RestoreOutcome } from '../../src-main/checkpoints/service';
import { makeTempWorkspace, type TempWorkspace } from '../support/workspace';
import { makeFixture, THREAD, type Fixture } from '../unit/checkpoints/helpers';

const TRIES = Number(process.env['TRIES'] ?? 40);
const FILES = 60;

// Both attackers pause on SIGUSR1 (the flipper first puts the folder back in place), say "paused", and
// go on at SIGUSR2; the signals are taken synchronously, so none is lost between two checks.
const STAGING_THIEF = `
import os, signal, sys
outside = sys.argv[2]
os.chdir(sys.argv[1])
signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGUSR1, signal.SIGUSR2])
print('running', flush=True)
while True:
    if signal.sigtimedwait([signal.SIGUSR1], 0) is not None:
        print('paused', flush=True)
        signal.sigwait([signal.SIGUSR2])
    for name in os.listdir('.'):
        if name.startswith('.weft-restore-') and not name.endswith('.aside') and not os.path.islink(name):
            try:
                folder = os.path.isdir(name)
                os.rename(name, name + '.aside')
                os.symlink(outside if folder else os.path.join(outside, name), name)
            except OSError:
                pass
`;
const FLIPPER = `
import ctypes, os, signal, sys
libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD, RENAME_EXCHANGE = -100, 2
os.chdir(sys.argv[1])
def flip():
    libc.renameat2(AT_FDCWD, b'd', AT_FDCWD, b'link', RENAME_EXCHANGE)
signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGUSR1, signal.SIGUSR2])
print('running', flush=True)
while True:
    if signal.sigtimedwait([signal.SIGUSR1], 0) is not None:
        if os.path.islink('d'):
            flip()
        print('paused', flush=True)
        signal.sigwait([signal.SIGUSR2])
    flip()
`;
const havePython =
  spawnSync('python3', ['-c', 'import ctypes, signal; ctypes.CDLL(None).renameat2; signal.sigtimedwait'], {
    encoding: 'utf8',
  }).status === 0;

/** A running attacker: a real process, paused and resumed by signals. */
class Attacker {
  private readonly lines: Interface;
  private readonly waiting: ((line: string) => void)[] = [];
  private readonly exited: Promise<void>;

  constructor(private readonly child: ChildProcessWithoutNullStreams) {
    this.lines = createInterface({ input: child.stdout });
    this.lines.on('line', (line) => this.waiting.shift()?.(line));
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
  }

  static async start(script: string, ws: string, outside: string): Promise<Attacker> {
    const attacker = new Attacker(spawn('python3', ['-c', script, ws, outside], { stdio: 'pipe' }));
    expect(await attacker.next()).toBe('running');
    return attacker;
  }

  private next(): Promise<string> {
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  async pause(): Promise<void> {
    const said = this.next();
    this.child.kill('SIGUSR1');
    expect(await said).toBe('paused');
  }

  resume(): void {
    this.child.kill('SIGUSR2');
  }

  async stop(): Promise<void> {
    this.child.kill('SIGKILL');
    await this.exited;
    this.lines.close();
  }
}

let fx: Fixture | null = null;
let outsideWs: TempWorkspace | null = null;
let attacker: Attacker | null = null;

afterEach(async () => {
  await attacker?.stop();
  attacker = null;
  await fx?.cleanup();
  fx = null;
  await outsideWs?.cleanup();
  outsideWs = null;
});

const content = (i: number): string => `file ${i} of the folder\n`;

/**
 * A workspace whose folder `d` holds FILES files and a symlink `link` to a folder outside it; one turn
 * deleted every file of `d`, so undoing it writes them all back and redoing removes them again.
 */
async function setUp(): Promise<{ fx: Fixture; outside: string }> {
  const files: Record<string, string> = {};
  for (let i = 0; i < FILES; i++) files[`d/f${i}`] = content(i);
  fx = await makeFixture(files);
  outsideWs = await makeTempWorkspace();
  symlinkSync(outsideWs.dir, join(fx.ws.dir, 'link'));
  await fx.call('turn-1', 'rm d/f*');
  return { fx, outside: outsideWs.dir };
}

/** Every path under `dir`, for a message that shows what landed where it must not. */
function listing(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort();
}

/**
 * What the result says was restored is in the workspace, with the restored content (`present`) or gone,
 * and the restore's record (what Redo takes back) holds exactly those paths: nothing another process did.
 * `complete`: every file of `d` was either restored or named as not restored.
 */
function expectHonest(outcome: RestoreOutcome, ws: string, present: boolean, complete: boolean): void {
  const planned = Array.from({ length: FILES }, (_, i) => `d/f${i}`).sort();
  const named = [...outcome.restored, ...outcome.notRestored.map((item) => item.path)].sort();
  if (complete) expect(named).toEqual(planned);
  else expect(named.filter((path) => !planned.includes(path))).toEqual([]);
  for (const item of outcome.notRestored) expect(item.reason).not.toBe('');
  const actual = outcome.restored.map((path) => {
    let text: string | null;
    try {
      text = readFileSync(join(ws, path), 'utf8');
    } catch {
      text = null;
    }
    return [path, text];
  });
  expect(actual).toEqual(outcome.restored.map((path) => [path, present ? content(Number(path.slice(3))) : null]));
  expect(outcome.record?.changes.map((change) => change.path) ?? []).toEqual(outcome.restored);
}

describe.skipIf(process.platform !== 'linux' || !havePython)('a restore attacked by a background process', () => {
  it(
    `whose staged files are swapped for symlinks writes nothing outside, in ${TRIES} undo/redo pairs`,
    { timeout: 300_000 },
    async () => {
      const { fx, outside } = await setUp();
      attacker = await Attacker.start(STAGING_THIEF, fx.ws.dir, outside);
      let notRestored = 0;
      for (let i = 0; i < TRIES; i++) {
        const undone = await fx.service.revert({ threadId: THREAD, root: fx.ws.dir, turnIds: ['turn-1'], force: true });
        expect({ outside: listing(outside), try: i }).toEqual({ outside: [], try: i });
        await attacker.pause();
        expectHonest(undone, fx.ws.dir, true, true);
        notRestored += undone.notRestored.length;
        attacker.resume();
        // Nothing restored (the thief took every staged copy): nothing to redo.
        if (undone.record === null) continue;
        const redone = await fx.service.redo({ threadId: THREAD, root: fx.ws.dir, force: true });
        expect({ outside: listing(outside), try: i }).toEqual({ outside: [], try: i });
        await attacker.pause();
        // Redo takes back what the undo changed: the files it could not restore are not part of it.
        expectHonest(redone, fx.ws.dir, false, false);
        attacker.resume();
      }
      // The attack was real: files could not be restored (the thief had taken their staged copy). How many
      // went through while it ran is up to the scheduler (on a busy machine the thief can win every one).
      expect(notRestored).toBeGreaterThan(0);
      // With the thief held, the same restore brings back every file the attacked ones could not: what they
      // left behind (its symlinks, moved copies) does not stand in the way.
      await attacker.pause();
      const calm = await fx.service.revert({ threadId: THREAD, root: fx.ws.dir, turnIds: ['turn-1'], force: true });
      expectHonest(calm, fx.ws.dir, true, true);
      expect({ restored: calm.restored.length, notRestored: calm.notRestored }).toEqual({
        restored: FILES,
        notRestored: [],
      });
    },
  );

  it(
    `while a folder it writes into is exchanged with a symlink writes nothing outside, in ${TRIES} undo/redo pairs`,
    // Each flip is an inotify event: the checkpoint tracker's watcher gives up on the flood (closes its
    // watches, walks at the next look) rather than reading hundreds of thousands of them a second.
    { timeout: 300_000 },
    async () => {
      const { fx, outside } = await setUp();
      mkdirSync(join(outside, 'keep'));
      writeFileSync(join(outside, 'keep', 'mine.txt'), 'not the workspace\n');
      const before = listing(outside);
      attacker = await Attacker.start(FLIPPER, fx.ws.dir, outside);
      let landed = 0;
      for (let i = 0; i < TRIES; i++) {
        const undone = await fx.service.revert({ threadId: THREAD, root: fx.ws.dir, turnIds: ['turn-1'], force: true });
        expect({ outside: listing(outside), try: i }).toEqual({ outside: before, try: i });
        // While the folder flips, a look by path sees the folder, the symlink or the outside at any moment.
        // What the restore calls restored was in the folder it wrote into, that folder then at its name
        // `d`, and stays there: the flipper only moves that one folder, and puts it back as `d` when paused.
        // Were the flips part of the restore's record, Redo would turn `link` into a second folder, and
        // which of the two is `d` after a pause would be chance.
        await attacker.pause();
        expectHonest(undone, fx.ws.dir, true, false);
        landed += readdirSync(fx.ws.path('d')).length;
        attacker.resume();
        // Nothing restored (the folder was a symlink when it was opened): nothing to redo.
        if (undone.record === null) continue;
        const redone = await fx.service.redo({ threadId: THREAD, root: fx.ws.dir, force: true });
        expect({ outside: listing(outside), try: i }).toEqual({ outside: before, try: i });
        await attacker.pause();
        expectHonest(redone, fx.ws.dir, false, false);
        attacker.resume();
      }
      expect(readFileSync(join(outside, 'keep', 'mine.txt'), 'utf8')).toBe('not the workspace\n');
      // Restores still wrote into the workspace's folder, whatever its name was at the time.
      expect(landed).toBeGreaterThan(0);
    },
  );
});
