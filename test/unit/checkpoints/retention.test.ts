import { afterEach, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { CheckpointService } from '../../../src-main/checkpoints/service';
import { makeFixture, THREAD, type Fixture } from './helpers';

describe('retention and garbage collection', () => {
  let fx: Fixture;
  afterEach(async () => fx.cleanup());

  it('keeps the last N turns or the last D days, and removes blobs nothing refers to', async () => {
    let now = new Date('2026-01-01T00:00:00Z');
    fx = await makeFixture(
      { 'a.txt': 'start\n' },
      { watch: false, retention: { keepTurns: 2, keepDays: 7 }, now: () => now },
    );
    for (let turn = 1; turn <= 4; turn += 1) {
      await fx.call(`turn-${turn}`, `echo version-${turn} > a.txt`);
      now = new Date(now.getTime() + 3 * 24 * 60 * 60 * 1000);
    }
    // Turns were recorded on days 0, 3, 6, 9; "now" is day 12: day 6 and 9 are within 7 days,
    // and turns 3 and 4 are the last two.
    const records = await fx.service.records.read(THREAD);
    const hashOf = (turn: number): string => {
      const after = records.find((r) => r.turnId === `turn-${turn}`)?.changes[0]?.after;
      return after?.kind === 'file' && after.hash !== null ? after.hash : '';
    };
    const turn1Before = records[0]?.changes[0]?.before;
    const startHash = turn1Before?.kind === 'file' ? (turn1Before.hash ?? '') : '';
    const turn1Hash = hashOf(1);
    expect(existsSync(fx.service.blobs.pathOf(startHash))).toBe(true);

    const result = await fx.service.gc(0);
    expect((await fx.service.records.read(THREAD)).map((r) => r.turnId)).toEqual(['turn-3', 'turn-4']);
    expect(result.droppedRecords).toBe(2);
    // "start" and version-1 are referenced by nothing now; version-2 is turn 3's "before".
    expect(existsSync(fx.service.blobs.pathOf(startHash))).toBe(false);
    expect(existsSync(fx.service.blobs.pathOf(turn1Hash))).toBe(false);
    expect(existsSync(fx.service.blobs.pathOf(hashOf(3)))).toBe(true);
    expect(existsSync(fx.service.blobs.pathOf(hashOf(4)))).toBe(true);
    expect(result.removedBlobs).toBe(2);
  });

  it('never removes a blob written moments ago (a checkpoint in progress)', async () => {
    fx = await makeFixture({}, { watch: false });
    const fresh = await fx.service.blobs.put(Buffer.from('in flight'));
    const result = await new CheckpointService({ weftHome: fx.home.dir }).gc();
    expect(result.removedBlobs).toBe(0);
    expect((await fx.service.blobs.read(fresh.hash)).toString()).toBe('in flight');
  });
});
