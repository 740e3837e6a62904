// The scan of the files a turn created (see new-file-scan.ts), on a worker thread of its own: a file's git
// blob id (SHA-1 over all of it), its lines and its first bytes. With busy agents writing big files, this
// hashing was the largest single cost left on the host's main thread (bench/PROFILES.md, "Many agents: the
// host's threads and the cores"). The worker reads synchronously: it is its own thread, never the main one.
import { closeSync, constants, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { ScanRequest, type ScanReply } from './new-file-scan-messages';
import { PIECE, ScanBuilder, scanOf, type NewFileScan } from './new-file-scan';

/** Reads `path` a piece at a time through one buffer; null when it is not a readable regular file. */
function scanFile(path: string, room: number, piece: Buffer): NewFileScan | null {
  let fd: number;
  try {
    // Not blocking: a FIFO put in the file's place would hold the open until a writer came.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return null;
    const scan = new ScanBuilder(st.size, room);
    while (scan.read < st.size) {
      const bytesRead = readSync(fd, piece, 0, Math.min(piece.length, st.size - scan.read), scan.read);
      // Shorter than its stat said: read it again whole, as it is now.
      if (bytesRead === 0) return scanOf(readFileSync(fd));
      scan.add(piece.subarray(0, bytesRead));
    }
    return scan.finish();
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** Below the main thread for the CPU, as the pool is (Linux: a nice value is a thread's own). */
function yieldTheCpu(): void {
  if (process.platform !== 'linux') return;
  try {
    setPriority(10);
  } catch {
    // Not allowed here: the scan runs at the process's priority.
  }
}

yieldTheCpu();
const piece = Buffer.allocUnsafeSlow(PIECE);
parentPort?.on('message', (raw: unknown) => {
  const request = ScanRequest.safeParse(raw);
  if (!request.success) return;
  const scan = scanFile(request.data.path, request.data.room, piece);
  if (scan === null) {
    parentPort?.postMessage({ id: request.data.id, scan: null } satisfies ScanReply);
    return;
  }
  const head = new Uint8Array(scan.head.buffer, scan.head.byteOffset, scan.head.byteLength);
  // A head that has its memory to itself moves to the main thread without a copy; a slice of Node's shared
  // pool of small buffers is copied (the pool cannot be moved).
  const own = head.byteOffset === 0 && head.byteLength === head.buffer.byteLength;
  const reply: ScanReply = { id: request.data.id, scan: { ...scan, head } };
  parentPort?.postMessage(reply, own && head.buffer instanceof ArrayBuffer ? [head.buffer] : []);
});
