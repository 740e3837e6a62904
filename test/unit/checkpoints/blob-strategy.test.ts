// Big content with nothing for deflate's string matching to find (random or encoded data, what is already
// compressed) is stored with Huffman coding alone: the same size in a fifth of the time. Content with
// repeats keeps deflate's usual matching. Either way the blob is one zlib stream that inflates to the file.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { constants, deflateSync, gzipSync, inflateSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BlobStore, strategyFor, writePacked } from '../../../src-main/checkpoints/blob-store';

const { Z_DEFAULT_STRATEGY, Z_HUFFMAN_ONLY } = constants;

/** Text with the repeats of source code: identifiers, keywords and indentation that recur. */
function sourceLike(bytes: number): Buffer {
  const lines: string[] = [];
  for (let i = 0, size = 0; size < bytes; i++) {
    const line = `  export function handler${i % 97}(request: Request${i % 13}): Promise<Response> { return send(request, ${i}); }`;
    lines.push(line);
    size += line.length + 1;
  }
  return Buffer.from(`${lines.join('\n')}\n`);
}

const randomBase64 = (bytes: number): Buffer => Buffer.from(randomBytes(Math.ceil((bytes * 3) / 4)).toString('base64'));

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'weft-strategy-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('the deflate strategy of a big blob', () => {
  it('is Huffman coding alone where string matching gains nothing, deflate’s usual otherwise', () => {
    expect(strategyFor(randomBase64(1024 * 1024))).toBe(Z_HUFFMAN_ONLY);
    expect(strategyFor(gzipSync(randomBytes(512 * 1024)))).toBe(Z_HUFFMAN_ONLY);
    expect(strategyFor(randomBytes(256 * 1024))).toBe(Z_HUFFMAN_ONLY);
    expect(strategyFor(sourceLike(1024 * 1024))).toBe(Z_DEFAULT_STRATEGY);
    expect(strategyFor(Buffer.alloc(1024 * 1024))).toBe(Z_DEFAULT_STRATEGY);
    // Random data repeated: high in entropy byte by byte, but matching finds the repeats.
    const block = randomBytes(4096);
    expect(strategyFor(Buffer.concat(Array.from({ length: 64 }, () => block)))).toBe(Z_DEFAULT_STRATEGY);
    // Too little to judge.
    expect(strategyFor(randomBytes(1000))).toBe(Z_DEFAULT_STRATEGY);
  });

  it('packs content in memory with the strategy its start calls for, byte for byte one synchronous deflate', async () => {
    for (const bytes of [randomBase64(3 * 1024 * 1024), sourceLike(2 * 1024 * 1024)]) {
      const file = join(dir, `packed-${bytes.length}`);
      await writePacked(file, bytes);
      const packed = readFileSync(file);
      expect(packed.equals(deflateSync(bytes, { level: 6, strategy: strategyFor(bytes) }))).toBe(true);
      expect(inflateSync(packed).equals(bytes)).toBe(true);
    }
  });

  it('stores a big file read a piece at a time with the strategy its first piece calls for', async () => {
    const store = new BlobStore(join(dir, 'blobs'));
    const cases = [
      { content: randomBase64(8 * 1024 * 1024), strategy: Z_HUFFMAN_ONLY },
      { content: sourceLike(3 * 1024 * 1024), strategy: Z_DEFAULT_STRATEGY },
    ];
    for (const { content, strategy } of cases) {
      const path = join(dir, `file-${strategy}`);
      writeFileSync(path, content);
      const handle = await open(path, 'r');
      const stored = await handle
        .stat()
        .then((st) => store.putFile(handle, st.size))
        .finally(() => handle.close());
      expect(stored).not.toBeNull();
      const blob = readFileSync(store.pathOf(stored?.hash ?? ''));
      expect(blob.equals(deflateSync(content, { level: 6, strategy }))).toBe(true);
      expect((await store.read(stored?.hash ?? '')).equals(content)).toBe(true);
    }
  });
});

describe('reading a blob back', () => {
  it('gives the content whether it packed small and inflates small or big, and refuses a damaged one', async () => {
    const store = new BlobStore(join(dir, 'blobs'));
    // Small content, and content that packs to about a kilobyte but inflates to 8 MiB (more than is
    // inflated on the event loop).
    for (const content of [Buffer.from('file 1\n'), sourceLike(60 * 1024), Buffer.alloc(8 * 1024 * 1024)]) {
      const { hash } = await store.put(content);
      expect((await store.read(hash)).equals(content)).toBe(true);
    }
    const { hash } = await store.put(Buffer.from('to be damaged\n'));
    writeFileSync(store.pathOf(hash), Buffer.from('not a zlib stream'));
    await expect(store.read(hash)).rejects.toThrow(/is missing or damaged/);
    const zeros = await store.put(Buffer.alloc(1024 * 1024));
    // Packed small, inflating to other content: the hash check catches it.
    writeFileSync(store.pathOf(zeros.hash), deflateSync(Buffer.alloc(1024 * 1024, 1)));
    await expect(store.read(zeros.hash)).rejects.toThrow(/is missing or damaged/);
  });
});
