// Big content is hashed, compressed and read off the event loop, in the same blob format as ever
// (sha256-named, deflate level 6): while 8 MiB files are stored and read back, a timer keeps ticking.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync, inflateSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { OFF_LOOP_BYTES, hashContent, strategyFor, writePacked } from '../../../src-main/checkpoints/blob-store';
import { makeFixture, type Fixture } from './helpers';
import { largestBuffer } from '../../support/largest-buffer';

/**
 * The longest gap between ticks of a 1 ms timer while `work` runs, and how many ticks there were. On a
 * loaded 2-core machine a gap also holds time the process waited for a core (the thread pool doing the
 * work competes for them), so bounds are set well above the target and far below what the synchronous
 * work took (every byte hashed and compressed in one stretch: 150-400 ms per 8 MiB here).
 */
async function longestGap<T>(work: () => Promise<T>): Promise<{ result: T; gapMs: number; ticks: number }> {
  let last = performance.now();
  let gapMs = 0;
  let ticks = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    gapMs = Math.max(gapMs, now - last);
    last = now;
    ticks += 1;
  }, 1);
  try {
    const result = await work();
    gapMs = Math.max(gapMs, performance.now() - last);
    return { result, gapMs, ticks };
  } finally {
    clearInterval(timer);
  }
}

const same = (a: Buffer, b: Buffer): boolean => a.equals(b);

/** 8 MiB that compress a little (base64 of random bytes), as a build output or a data file might. */
function bigContent(): Buffer {
  return Buffer.from(randomBytes(6 * 1024 * 1024).toString('base64'));
}

describe('content off the event loop', () => {
  let fx: Fixture | null = null;
  afterEach(async () => {
    await fx?.cleanup();
    fx = null;
  });

  it('hashes and packs big content exactly as the synchronous calls do', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weft-pack-'));
    try {
      const bytes = bigContent();
      expect(bytes.length).toBeGreaterThanOrEqual(OFF_LOOP_BYTES);
      expect(await hashContent(bytes)).toBe(createHash('sha256').update(bytes).digest('hex'));
      // Written chunk by chunk as the compression makes them: the same bytes as one synchronous deflate.
      const written = await writePacked(join(dir, 'big'), bytes);
      const packed = readFileSync(join(dir, 'big'));
      expect(written).toBe(packed.length);
      expect(written).toBeGreaterThan(2 * 1024 * 1024);
      expect(same(inflateSync(packed), bytes)).toBe(true);
      // (Random base64 gives string matching nothing to find: stored with Huffman coding alone, blob-strategy.test.ts.)
      expect(same(packed, deflateSync(bytes, { level: 6, strategy: strategyFor(bytes) }))).toBe(true);
      const small = Buffer.from('small\n');
      expect(await hashContent(small)).toBe(createHash('sha256').update(small).digest('hex'));
      expect(await writePacked(join(dir, 'small'), small)).toBe(readFileSync(join(dir, 'small')).length);
      expect(readFileSync(join(dir, 'small'))).toEqual(deflateSync(small, { level: 6 }));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('stores and reads 8 MiB blobs while the loop keeps turning; the file is the blob format', async () => {
    fx = await makeFixture({});
    const blobs = fx.service.blobs;
    const contents = [bigContent(), bigContent(), bigContent()];
    const {
      result: puts,
      gapMs,
      ticks,
    } = await longestGap(() => Promise.all(contents.map((bytes) => blobs.put(bytes))));
    expect({ slow: gapMs >= 250, ticked: ticks >= 5 }).toEqual({ slow: false, ticked: true });
    for (const [i, put] of puts.entries()) {
      const bytes = contents[i] ?? Buffer.alloc(0);
      expect(put.hash).toBe(createHash('sha256').update(bytes).digest('hex'));
      expect(put.written).toBeGreaterThan(0);
      expect(same(inflateSync(readFileSync(blobs.pathOf(put.hash))), bytes)).toBe(true);
    }
    // The same content again is not written again (also while the first put is still under way).
    const again = await Promise.all([
      blobs.put(contents[0] ?? Buffer.alloc(0)),
      blobs.put(contents[0] ?? Buffer.alloc(0)),
    ]);
    expect(again).toEqual([
      { hash: puts[0]?.hash, written: 0 },
      { hash: puts[0]?.hash, written: 0 },
    ]);
    const read = await longestGap(() => blobs.read(puts[1]?.hash ?? ''));
    expect(same(read.result, contents[1] ?? Buffer.alloc(0))).toBe(true);
    expect(read.gapMs).toBeLessThan(250);
  });

  it('a command that wrote 8 MiB files is checkpointed without holding the loop', async () => {
    fx = await makeFixture({ 'a.txt': 'alpha\n' });
    const { service, ws, sh } = fx;
    await service.beforeChange(ws.dir);
    sh('for i in 1 2 3 4; do head -c 6291456 /dev/urandom | base64 -w0 > big$i.txt; done');
    const {
      result: record,
      gapMs,
      ticks,
    } = await longestGap(() =>
      service.afterToolCall({ threadId: 'thread-1', turnId: 'turn-1', callId: null, root: ws.dir }),
    );
    expect(record?.changes.map((c) => [c.path, c.before, c.after?.kind === 'file' && c.after.hash !== null])).toEqual([
      ['big1.txt', null, true],
      ['big2.txt', null, true],
      ['big3.txt', null, true],
      ['big4.txt', null, true],
    ]);
    expect({ slow: gapMs >= 250, ticked: ticks >= 5 }).toEqual({ slow: false, ticked: true });
  });

  it('a big file is checkpointed through a buffer of its own size never: read, hashed and packed a piece at a time', async () => {
    fx = await makeFixture({ 'a.txt': 'alpha\n' });
    const { service, ws, sh } = fx;
    await service.beforeChange(ws.dir);
    sh('head -c 6291456 /dev/urandom | base64 -w0 > big.txt');
    const content = readFileSync(join(ws.dir, 'big.txt'));
    // Every Buffer the checkpoint allocates through Node's Buffer functions (fs reads and zlib use them).
    const { result: record, largest } = await largestBuffer(() =>
      service.afterToolCall({ threadId: 'thread-1', turnId: 'turn-1', callId: null, root: ws.dir }),
    );
    const after = record?.changes.find((c) => c.path === 'big.txt')?.after;
    expect(after?.kind === 'file' ? after.hash : null).toBe(createHash('sha256').update(content).digest('hex'));
    expect(largest).toBeLessThanOrEqual(2 * 1024 * 1024);
    // The blob is the file, packed in the blob format.
    const hash = after?.kind === 'file' ? (after.hash ?? '') : '';
    expect(same(inflateSync(readFileSync(service.blobs.pathOf(hash))), content)).toBe(true);
    expect(same(await service.blobs.read(hash), content)).toBe(true);
  });

  it('stores a file read through its handle once, leaves no temporary file, and says when it cannot read it', async () => {
    fx = await makeFixture({});
    const { service, ws, sh } = fx;
    sh('head -c 3000000 /dev/urandom | base64 -w0 > big.txt');
    const path = join(ws.dir, 'big.txt');
    const content = readFileSync(path);
    const tmp = join(service.dir, 'tmp');
    const first = await open(path, 'r');
    const second = await open(path, 'r');
    try {
      const stored = await service.blobs.putFile(first, content.length);
      expect(stored?.hash).toBe(createHash('sha256').update(content).digest('hex'));
      expect(stored?.size).toBe(content.length);
      expect(stored?.written).toBe(readFileSync(service.blobs.pathOf(stored?.hash ?? '')).length);
      // The same content again: found, not written again.
      expect(await service.blobs.putFile(second, content.length)).toEqual({ ...stored, written: 0 });
    } finally {
      await first.close();
      await second.close();
    }
    // A handle that cannot be read (closed): nothing stored.
    expect(await service.blobs.putFile(first, content.length)).toBeNull();
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('beside big files, a FIFO is left alone, a symlink to a big file outside is kept as a link, and an odd name is stored', async () => {
    fx = await makeFixture({ 'a.txt': 'alpha\n' });
    const { service, ws, sh, home } = fx;
    await service.beforeChange(ws.dir);
    sh(`head -c 200000 /dev/urandom | base64 -w0 > 'odd name\nwith line.txt'
        head -c 200000 /dev/urandom | base64 -w0 > ${JSON.stringify(join(home.dir, 'outside.txt'))}
        ln -s ${JSON.stringify(join(home.dir, 'outside.txt'))} link.txt
        mkfifo pipe`);
    const record = await service.afterToolCall({ threadId: 'thread-1', turnId: 'turn-1', callId: null, root: ws.dir });
    const after = new Map(record?.changes.map((c) => [c.path, c.after]));
    const odd = after.get('odd name\nwith line.txt');
    expect(odd?.kind === 'file' ? odd.hash : null).toBe(
      createHash('sha256')
        .update(readFileSync(join(ws.dir, 'odd name\nwith line.txt')))
        .digest('hex'),
    );
    expect(after.get('link.txt')).toMatchObject({ kind: 'symlink', target: join(home.dir, 'outside.txt') });
    // The FIFO is no file to keep: not recorded, and never opened for reading (that would wait for a writer).
    expect(after.has('pipe')).toBe(false);
  });

  it('stores what a file holds when it shrinks while it is read', async () => {
    fx = await makeFixture({});
    const { service, ws, sh } = fx;
    sh('head -c 3000000 /dev/urandom | base64 -w0 > big.txt');
    const path = join(ws.dir, 'big.txt');
    const statSize = readFileSync(path).length;
    const handle = await open(path, 'r');
    try {
      sh('truncate -s 100000 big.txt');
      const stored = await service.blobs.putFile(handle, statSize);
      const now = readFileSync(path);
      expect(stored).toEqual({
        hash: createHash('sha256').update(now).digest('hex'),
        size: now.length,
        written: expect.any(Number),
      });
      expect(same(inflateSync(readFileSync(service.blobs.pathOf(stored?.hash ?? ''))), now)).toBe(true);
    } finally {
      await handle.close();
    }
  });
});
