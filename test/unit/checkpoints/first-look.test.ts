// The first look at a workspace (a walk that stores every file's content) can start in the background as a
// turn starts, so that the turn's first command does not wait for it; closing the tracker stops a walk
// under way instead of waiting for it to end.
import { createHash } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { CheckpointService } from '../../../src-main/checkpoints/service';
import { TrackerClosedError, WorkspaceTracker } from '../../../src-main/checkpoints/tracker';
import { DEFAULT_LIMITS } from '../../../src-main/checkpoints/types';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../../support/workspace';
import { makeFixture, type Fixture } from './helpers';

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

function tree(count: number): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < count; i++) files[`d${i % 10}/f${i}.txt`] = `file ${i}\n`;
  return files;
}

describe('the first look, taken ahead', () => {
  let fx: Fixture;
  afterEach(async () => fx.cleanup());

  it('stores every file before any call, and the first call records against it', async () => {
    fx = await makeFixture({ ...tree(200), 'notes.txt': 'one\n' });
    await fx.service.prepare(fx.ws.dir);
    for (let i = 0; i < 200; i++) expect(existsSync(fx.service.blobs.pathOf(sha256(`file ${i}\n`)))).toBe(true);
    expect(existsSync(fx.service.blobs.pathOf(sha256('one\n')))).toBe(true);
    const record = await fx.call('turn-1', 'printf "two\\n" >> notes.txt && rm d3/f3.txt');
    const changes = Object.fromEntries((record?.changes ?? []).map((c) => [c.path, c]));
    expect(Object.keys(changes).sort()).toEqual(['d3/f3.txt', 'notes.txt']);
    const before = changes['notes.txt']?.before;
    expect(before?.kind === 'file' && (await fx.service.blobs.read(before.hash ?? '')).toString()).toBe('one\n');
  });

  it('is not taken again for a workspace already looked at: what changed since is a call’s to record', async () => {
    fx = await makeFixture({ 'a.txt': 'alpha\n' });
    await fx.call('turn-1', 'printf "beta\\n" > b.txt');
    writeFileSync(fx.ws.path('a.txt'), 'changed between calls\n');
    await fx.service.prepare(fx.ws.dir);
    // Not looked at by prepare: the next call still finds the change made between calls (and it belongs
    // to no turn), so the blob of the new content is not there yet.
    expect(existsSync(fx.service.blobs.pathOf(sha256('changed between calls\n')))).toBe(false);
    const before = await fx.service.beforeChange(fx.ws.dir, { threadId: 't', turnId: 'turn-2' });
    expect(before?.changes.map((c) => c.path)).toEqual(['a.txt']);
  });
});

describe('closing a tracker while it walks', () => {
  let ws: TempWorkspace;
  let home: WeftHome;
  afterEach(async () => {
    await ws.cleanup();
    await home.cleanup();
  });

  it('stops the walk at its next batch; the index is then not exact, and a new tracker starts over', async () => {
    ws = await makeTempWorkspace(tree(1000));
    home = await makeWeftHome();
    const service = new CheckpointService({ weftHome: home.dir });
    const options = { root: ws.dir, checkpointsDir: service.dir, blobs: service.blobs, limits: DEFAULT_LIMITS };
    const tracker = new WorkspaceTracker(options);
    const look = tracker.sync();
    const closed = tracker.close();
    await expect(look).rejects.toBeInstanceOf(TrackerClosedError);
    expect(await closed).toBe(false);
    const stored = [...Array(1000).keys()].filter((i) => existsSync(service.blobs.pathOf(sha256(`file ${i}\n`))));
    expect(stored.length).toBeLessThan(1000);

    const next = new WorkspaceTracker(options);
    expect((await next.sync()).changes).toEqual([]);
    for (let i = 0; i < 1000; i++) expect(existsSync(service.blobs.pathOf(sha256(`file ${i}\n`)))).toBe(true);
    expect(await next.close()).toBe(true);
    await service.dispose();
  });
});
