// The piecewise scan of a file a turn made, against the same facts computed from the whole content: also
// when the file shrinks while it is read, and when it is no regular file.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, truncateSync, writeFileSync, mkdirSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { scanNewFile, scanOf } from '../../../src-main/tools/new-file-scan';
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
