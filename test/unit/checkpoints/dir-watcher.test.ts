// The checkpoint tracker's directory watcher under a flood: a process renaming a file in a loop (a command
// the model left running) makes hundreds of thousands of inotify events a second. The watcher must stop
// reading them one by one on the host's thread, say the picture is lost (the next look walks), and watch
// again once the walk puts its watches back.
import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DirWatcher } from '../../../src-main/checkpoints/dir-watcher';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../../support/workspace';

// Renames `a` to `b` and back until told to stop; then, at "go N", makes N more renames and says "done".
const FLOODER = `
import os, sys, threading
os.chdir(sys.argv[1])
stop = threading.Event()
def flood():
    while not stop.is_set():
        os.rename('a', 'b'); os.rename('b', 'a')
t = threading.Thread(target=flood); t.start()
print('running', flush=True)
for line in sys.stdin:
    words = line.split()
    if words[0] == 'pause':
        stop.set(); t.join(); print('paused', flush=True)
    elif words[0] == 'go':
        for _ in range(int(words[1])):
            os.rename('a', 'b'); os.rename('b', 'a')
        print('done', flush=True)
`;
const havePython = spawnSync('python3', ['-c', 'import threading'], { encoding: 'utf8' }).status === 0;

let ws: TempWorkspace | null = null;
let home: WeftHome | null = null;
let watcher: DirWatcher | null = null;

afterEach(async () => {
  await watcher?.dispose();
  watcher = null;
  await ws?.cleanup();
  ws = null;
  await home?.cleanup();
  home = null;
});

describe.skipIf(!DirWatcher.supported() || !havePython)('the directory watcher under a flood of events', () => {
  it('closes its watches, reports the picture lost, reads nothing more, and watches again when re-armed', async () => {
    ws = await makeTempWorkspace({ a: 'x\n' });
    home = await makeWeftHome();
    const w = new DirWatcher(ws.dir, join(home.dir, 'barrier'));
    watcher = w;
    expect(w.add('')).toBe(true);

    const child = spawn('python3', ['-c', FLOODER, ws.dir], { stdio: ['pipe', 'pipe', 'inherit'] });
    const lines = createInterface({ input: child.stdout });
    const waiting: ((line: string) => void)[] = [];
    lines.on('line', (line) => waiting.shift()?.(line));
    const next = (): Promise<string> => new Promise((resolve) => waiting.push(resolve));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      expect(await next()).toBe('running');
      await vi.waitFor(() => expect(w.floods).toBeGreaterThan(0), { timeout: 30_000, interval: 20 });
      child.stdin.write('pause\n');
      expect(await next()).toBe('paused');
      await w.barrier();
      expect(w.size).toBe(0);
      expect(w.take()).toEqual({ paths: new Set(), lost: true });

      // 200,000 more events' worth of renames: none of them is read.
      const read = w.eventsRead;
      child.stdin.write('go 100000\n');
      expect(await next()).toBe('done');
      await w.barrier();
      expect(w.eventsRead - read).toBe(0);

      // A walk puts the watches back (add), and single changes are seen one by one again.
      expect(w.add('')).toBe(true);
      writeFileSync(ws.path('c'), 'new\n');
      await w.barrier();
      expect(w.take()).toEqual({ paths: new Set(['c']), lost: false });
    } finally {
      child.kill('SIGKILL');
      await exited;
      lines.close();
    }
  }, 60_000);

  it('keeps reading a burst below the flood rate, one path per name', async () => {
    ws = await makeTempWorkspace();
    home = await makeWeftHome();
    const w = new DirWatcher(ws.dir, join(home.dir, 'barrier'));
    watcher = w;
    w.add('');
    const names = Array.from({ length: 500 }, (_, i) => `f${i}`);
    for (const name of names) writeFileSync(ws.path(name), name);
    await w.barrier();
    expect(w.floods).toBe(0);
    expect(w.take()).toEqual({ paths: new Set(names), lost: false });
    expect(w.size).toBe(1);
  });
});
