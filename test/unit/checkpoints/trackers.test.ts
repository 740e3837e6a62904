// One checkpoint service serves every workspace a host touches: its trackers (file index and inotify
// watches) are bounded and closed when idle, without losing what changed meanwhile; a turn's byte budget
// starts from nothing and old turns' budgets are forgotten.
import { readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CheckpointService } from '../../../src-main/checkpoints/service';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../../support/workspace';

/** The inotify watches this process holds (one `inotify wd:` line per watch in the fd's fdinfo). */
function inotifyWatches(): number {
  let watches = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    let target: string;
    try {
      target = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      continue;
    }
    if (target !== 'anon_inode:inotify') continue;
    watches += readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('inotify wd:')).length;
  }
  return watches;
}

const WORKSPACES = 12;
const FOLDERS = 5;

let home: WeftHome;
let spaces: TempWorkspace[] = [];
let service: CheckpointService | null = null;

afterEach(async () => {
  await service?.dispose();
  service = null;
  for (const ws of spaces) await ws.cleanup();
  spaces = [];
  await home.cleanup();
});

async function workspaces(n: number): Promise<TempWorkspace[]> {
  for (let i = 0; i < n; i++) {
    const files: Record<string, string> = {};
    for (let d = 0; d < FOLDERS; d++) files[`d${d}/f.txt`] = `workspace ${i} folder ${d}\n`;
    spaces.push(await makeTempWorkspace(files));
  }
  return spaces;
}

describe.skipIf(process.platform !== 'linux')('trackers of many workspaces', () => {
  it('are bounded: the least recently used is closed with its watches, and picks up what changed meanwhile', async () => {
    home = await makeWeftHome();
    const before = inotifyWatches();
    service = new CheckpointService({ weftHome: home.dir, maxTrackers: 3 });
    const all = await workspaces(WORKSPACES);
    for (const [i, ws] of all.entries()) {
      await service.beforeChange(ws.dir);
      writeFileSync(ws.path('d0/f.txt'), `turn ${i}\n`);
      await service.afterToolCall({ threadId: 'thread-1', turnId: `turn-${i}`, callId: null, root: ws.dir });
    }
    // Each open tracker watches its root and its folders; closed ones watch nothing.
    await expect.poll(() => service?.openTrackers).toEqual({ trackers: 3, watchedDirs: 3 * (FOLDERS + 1) });
    await expect.poll(() => inotifyWatches() - before).toBeLessThanOrEqual(3 * (FOLDERS + 2));

    // The first workspace's tracker was closed; a change made since is still found, and attributed.
    const first = all[0];
    if (first === undefined) throw new Error('no workspace');
    writeFileSync(first.path('d1/f.txt'), 'changed while nothing watched\n');
    const record = await service.afterToolCall({
      threadId: 'thread-1',
      turnId: 'turn-x',
      callId: null,
      root: first.dir,
    });
    expect(record?.changes.map((c) => [c.path, c.before?.kind, c.after?.kind])).toEqual([['d1/f.txt', 'file', 'file']]);
    expect(service.openTrackers.trackers).toBe(3);
  });

  it('are closed when idle, and none is closed while a call is under way', async () => {
    home = await makeWeftHome();
    service = new CheckpointService({ weftHome: home.dir, trackerIdleMs: 0 });
    const [a, b] = await workspaces(2);
    if (a === undefined || b === undefined) throw new Error('no workspace');
    await service.beforeChange(a.dir);
    // a is between beforeChange and afterToolCall: using b closes idle trackers, but not a's.
    await service.beforeChange(b.dir);
    writeFileSync(a.path('d0/f.txt'), 'by a command\n');
    expect(service.openTrackers.trackers).toBe(2);
    const record = await service.afterToolCall({ threadId: 't', turnId: 'turn-1', callId: null, root: a.dir });
    expect(record?.changes.map((c) => c.path)).toEqual(['d0/f.txt']);
    await service.afterToolCall({ threadId: 't', turnId: 'turn-1', callId: null, root: b.dir });
    // Both idle now: the next use of either closes the other.
    await service.beforeChange(a.dir);
    await expect.poll(() => service?.openTrackers.trackers).toBe(1);
    await service.afterToolCall({ threadId: 't', turnId: 'turn-2', callId: null, root: a.dir });
  });
});

describe('a turn budget', () => {
  it('starts from nothing for each turn, and only the latest turns are remembered', async () => {
    home = await makeWeftHome();
    service = new CheckpointService({ weftHome: home.dir, watch: false, limits: { maxTurnBytes: 150 } });
    const [ws] = await workspaces(1);
    if (ws === undefined) throw new Error('no workspace');
    await service.beforeChange(ws.dir);
    const tracker = await service.tracker(ws.dir);
    for (let turn = 0; turn < 20; turn++) {
      writeFileSync(ws.path('d0/f.txt'), `${turn}`.padEnd(100, '.'));
      const record = await service.afterToolCall({ threadId: 't', turnId: `turn-${turn}`, callId: null, root: ws.dir });
      // 100 bytes a turn, 2,000 in all, never over 150: each turn starts from nothing.
      expect(record?.notes).toEqual([]);
      expect(tracker.spentBy(`turn-${turn}`)).toBe(100);
    }
    expect(tracker.budgetsKept).toBeLessThanOrEqual(8);
    expect(tracker.spentBy('turn-0')).toBe(0);
    // Within one turn the budget holds: a second 60-byte write passes 150.
    writeFileSync(join(ws.dir, 'd1', 'f.txt'), 'x'.repeat(60));
    const over = await service.afterToolCall({ threadId: 't', turnId: 'turn-19', callId: null, root: ws.dir });
    expect(over?.notes).toEqual(["d1/f.txt: not checkpointed: too large (the turn's checkpoints passed 150 B)"]);
  });
});
