// The piecewise scan of a file a turn made, against the same facts computed from the whole content: also
// when the file shrinks while it is read, and when it is no regular file.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, truncateSync, writeFileSync, mkdirSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { scanNewFile, scanNewFileOffThread, scanOf, stopScanWorker } from '../../../src-main/tools/new-file-scan';
import { largestBuffer } from '../../support/largest-buffer';
import { Slicer } from '../../../src-main/util/slicer';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'weft-scan-'));
});
afterEach(() => {
  vi.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

const MIB = 1024 * 1024;
const text = (bytes: number): Buffer =>
  Buffer.from(
    Array.from({ length: Math.ceil(bytes / 20) }, (_, i) => `line ${String(i).padStart(13, '0')}`).join('\n'),
  );

describe('scanNewFile', () => {
  it('counts what the whole content says, keeping only the head it is asked for', async () => {
    const content = text(3 * MIB + 123);
    const path = join(dir, 'big.txt');
    writeFileSync(path, content);
    const whole = scanOf(content);
    const scan = await scanNewFile(path, 1000, new Slicer());
    expect({ ...scan, head: null }).toEqual({ ...whole, head: null });
    expect(scan?.head.length).toBe(1001);
    expect(scan?.head.equals(content.subarray(0, 1001))).toBe(true);
    const none = await scanNewFile(path, 0, new Slicer());
    expect(none?.head.length).toBe(0);
  });

  it('reads a file that shrank while it was read again whole, as it is now', async () => {
    const path = join(dir, 'shrinking.txt');
    writeFileSync(path, text(3 * MIB));
    const handle = await open(path, 'r');
    const proto = Object.getPrototypeOf(handle) as { read: (...args: unknown[]) => Promise<unknown> };
    await handle.close();
    const read = proto.read;
    let calls = 0;
    vi.spyOn(proto, 'read').mockImplementation(async function (this: unknown, ...args: unknown[]) {
      // After the first piece, another program cuts the file to its first half.
      if (calls++ === 1) truncateSync(path, 1.5 * MIB);
      return read.apply(this, args);
    });
    const scan = await scanNewFile(path, 100, new Slicer());
    const now = text(3 * MIB).subarray(0, 1.5 * MIB);
    expect(scan).toEqual(scanOf(now));
  });

  it('is null for what is not a readable regular file', async () => {
    mkdirSync(join(dir, 'folder'));
    expect(await scanNewFile(join(dir, 'folder'), 100, new Slicer())).toBeNull();
    // A FIFO with no writer: not waited on.
    execFileSync('mkfifo', [join(dir, 'fifo')]);
    expect(await scanNewFile(join(dir, 'fifo'), 100, new Slicer())).toBeNull();
    expect(await scanNewFile(join(dir, 'missing'), 100, new Slicer())).toBeNull();
  });
});

describe('scanNewFileOffThread', () => {
  afterEach(() => stopScanWorker());

  it('gives what the whole content says, for every shape of file, without reading it on this thread', async () => {
    const shapes: [string, Buffer][] = [
      ['empty', Buffer.alloc(0)],
      ['no final line break', Buffer.from('one\ntwo')],
      ['crlf', Buffer.from('a\r\nb\r\n')],
      ['binary', Buffer.concat([Buffer.from('head'), Buffer.from([0, 1, 2]), Buffer.alloc(5000, 7)])],
      ['utf-8', Buffer.from('é€😀\n'.repeat(300_000))],
      ['big text', text(3 * MIB + 123)],
    ];
    // The worker starts on the first scan (loading its program makes buffers here): started before counting.
    writeFileSync(join(dir, 'first.txt'), 'first\n');
    expect((await scanNewFileOffThread(join(dir, 'first.txt'), 100, new Slicer()))?.lines).toBe(1);
    for (const [name, content] of shapes) {
      const path = join(dir, `${name}.bin`);
      writeFileSync(path, content);
      for (const room of [0, 100, 10 * MIB]) {
        const { result, largest } = await largestBuffer(() => scanNewFileOffThread(path, room, new Slicer()));
        const here = await scanNewFile(path, room, new Slicer());
        expect(result, `${name}, room ${room}`).toEqual(here);
        expect({ ...result, head: null }, name).toEqual({ ...scanOf(content), head: null });
        // The pieces are read and hashed on the worker: this thread makes no buffer larger than the head.
        expect(largest, `${name}, room ${room}`).toBeLessThanOrEqual(here?.head.length ?? 0);
      }
    }
  });

  it('is null for what is not a readable regular file, and a FIFO does not hold it', async () => {
    mkdirSync(join(dir, 'folder'));
    execFileSync('mkfifo', [join(dir, 'fifo')]);
    for (const name of ['folder', 'fifo', 'missing'])
      expect(await scanNewFileOffThread(join(dir, name), 100, new Slicer()), name).toBeNull();
    // The worker still answers afterwards.
    writeFileSync(join(dir, 'after.txt'), 'after\n');
    expect((await scanNewFileOffThread(join(dir, 'after.txt'), 100, new Slicer()))?.lines).toBe(1);
  });

  it('answers scans sent together, each with its own file', async () => {
    const files = Array.from({ length: 12 }, (_, i) => {
      const path = join(dir, `f${i}.txt`);
      writeFileSync(path, text(64 * 1024 * (i + 1)));
      return path;
    });
    const scans = await Promise.all(files.map((path) => scanNewFileOffThread(path, 50, new Slicer())));
    const here = await Promise.all(files.map((path) => scanNewFile(path, 50, new Slicer())));
    expect(scans).toEqual(here);
  });
});
