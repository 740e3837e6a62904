import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonFile, memoryStore } from '../../../src-main/electron/state-file';
import { WindowStateStore, placeWindow } from '../../../src-main/electron/window-state';
import type { WindowState } from '../../../src-main/electron/window-state';

const laptop = { x: 0, y: 25, width: 1440, height: 875 };
const external = { x: 1440, y: 0, width: 2560, height: 1440 };
const defaults = { width: 1280, height: 860 };
const saved = (patch: Partial<WindowState> = {}): WindowState => ({
  x: 100,
  y: 100,
  width: 1200,
  height: 800,
  maximized: false,
  fullScreen: false,
  ...patch,
});

describe('placeWindow', () => {
  it('centres a first window at the default size, shrunk to the display', () => {
    expect(placeWindow(undefined, [laptop], defaults)).toEqual({
      width: 1280,
      height: 860,
      maximized: false,
      fullScreen: false,
    });
    expect(placeWindow(undefined, [{ x: 0, y: 0, width: 1024, height: 700 }], defaults)).toEqual({
      width: 1024,
      height: 700,
      maximized: false,
      fullScreen: false,
    });
  });

  it('restores a saved window where it was', () => {
    expect(placeWindow(saved({ x: 2000, y: 200, maximized: true }), [laptop, external], defaults)).toEqual({
      x: 2000,
      y: 200,
      width: 1200,
      height: 800,
      maximized: true,
      fullScreen: false,
    });
  });

  it('pulls a window that hangs off its display back inside, shrinking it if needed', () => {
    expect(placeWindow(saved({ x: 1000, y: 500 }), [laptop], defaults)).toEqual({
      x: 240,
      y: 100,
      width: 1200,
      height: 800,
      maximized: false,
      fullScreen: false,
    });
    expect(placeWindow(saved({ x: 1500, y: 0, width: 3000, height: 2000 }), [laptop, external], defaults)).toEqual({
      x: 1440,
      y: 0,
      width: 2560,
      height: 1440,
      maximized: false,
      fullScreen: false,
    });
  });

  it('centres a window whose display is gone on the primary one, keeping its size', () => {
    expect(placeWindow(saved({ x: 2000, y: 200, fullScreen: true }), [laptop], defaults)).toEqual({
      width: 1200,
      height: 800,
      maximized: false,
      fullScreen: true,
    });
  });

  it('a window barely showing (a sliver) counts as gone', () => {
    expect(placeWindow(saved({ x: 1400, y: 100 }), [laptop], defaults)).toEqual({
      width: 1200,
      height: 800,
      maximized: false,
      fullScreen: false,
    });
  });
});

describe('WindowStateStore', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('remembers each project separately and survives a reload from disk', async () => {
    dir = await mkdtemp(join(tmpdir(), 'weft-winstate-'));
    const file = join(dir, 'window-state.json');
    const store = await WindowStateStore.load(jsonFile(file), { now: () => 1 });
    await store.save('/p/a', saved({ x: 10 }));
    await store.save('/p/b', saved({ x: 20, maximized: true }));
    const again = await WindowStateStore.load(jsonFile(file));
    expect([again.get('/p/a'), again.get('/p/b'), again.get('/p/c')]).toEqual([
      saved({ x: 10 }),
      saved({ x: 20, maximized: true }),
      undefined,
    ]);
    expect(again.get('__proto__')).toBeUndefined();
  });

  it('forgets the least recently saved projects beyond the cap', async () => {
    let clock = 0;
    const memory = memoryStore();
    const store = await WindowStateStore.load(memory, { maxProjects: 2, now: () => ++clock });
    await store.save('/a', saved());
    await store.save('/b', saved());
    await store.save('/a', saved({ x: 5 }));
    await store.save('/c', saved());
    const reloaded = await WindowStateStore.load(memory);
    expect([reloaded.get('/a')?.x, reloaded.get('/b'), reloaded.get('/c')?.x]).toEqual([5, undefined, 100]);
  });

  it('starts empty, and says so, when the file is corrupt or has the wrong shape', async () => {
    dir = await mkdtemp(join(tmpdir(), 'weft-winstate-'));
    const file = join(dir, 'window-state.json');
    const problems: string[] = [];
    await writeFile(file, '{"version": 1, "projects": ');
    const fromBroken = await WindowStateStore.load(jsonFile(file), { onInvalidFile: (m) => problems.push(m) });
    expect(fromBroken.get('/a')).toBeUndefined();
    const fromWrongShape = await WindowStateStore.load(
      memoryStore({ version: 1, projects: { '/a': { state: { x: 'left' }, savedAt: 1 } } }),
      {
        onInvalidFile: (m) => problems.push(m),
      },
    );
    expect(fromWrongShape.get('/a')).toBeUndefined();
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^Window positions were not restored: .*window-state\.json is not valid JSON/);
    // The next save replaces the broken file with a good one.
    await fromBroken.save('/a', saved());
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({
      version: 1,
      projects: { '/a': { state: saved() } },
    });
  });

  it('flush waits for the last write, and does not reject when it failed', async () => {
    const writes: { value: unknown; finish: (error?: Error) => void }[] = [];
    const slow = {
      read: () => Promise.resolve(undefined),
      write: (value: unknown) =>
        new Promise<void>((resolve, reject) =>
          writes.push({ value, finish: (error) => (error === undefined ? resolve() : reject(error)) }),
        ),
    };
    const store = await WindowStateStore.load(slow);
    const saving = store.save('/a', saved());
    let flushed = false;
    const flushing = store.flush().then(() => {
      flushed = true;
    });
    await Promise.resolve();
    expect([writes.length, flushed]).toEqual([1, false]);
    writes[0]?.finish(new Error('disk full'));
    await expect(saving).rejects.toThrow('disk full');
    await flushing;
    expect(flushed).toBe(true);
  });

  it('refuses to save a malformed state', async () => {
    const store = await WindowStateStore.load(memoryStore());
    await expect(store.save('/a', saved({ width: 0 }))).rejects.toThrow();
  });
});
