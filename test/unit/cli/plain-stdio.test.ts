import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, readSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { plainOutput, plainStdin } from '../../../src-main/cli/plain-stdio';

const dirs: string[] = [];
const fds: number[] = [];
afterEach(() => {
  for (const fd of fds.splice(0)) closeSync(fd);
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'weft-plain-stdio-'));
  dirs.push(dir);
  return dir;
}

const opened = (path: string, flags: number): number => {
  const fd = openSync(path, flags);
  fds.push(fd);
  return fd;
};

/** Both ends of a named pipe, non-blocking, as a pipe shared with a Node parent that reads its own stdin is. */
function nonBlockingPipe(): { reader: number; writer: number } {
  const path = join(tempDir(), 'pipe');
  execFileSync('mkfifo', [path]);
  const reader = opened(path, constants.O_RDONLY | constants.O_NONBLOCK);
  const writer = opened(path, constants.O_WRONLY | constants.O_NONBLOCK);
  return { reader, writer };
}

async function textOf(input: AsyncIterable<string | Buffer>): Promise<string> {
  let text = '';
  for await (const chunk of input) text += chunk.toString();
  return text;
}

const unused = (): never => {
  throw new Error('the stream was used');
};

describe('plainStdin', () => {
  it('reads a file to its end with plain reads, and only when iterated', async () => {
    const path = join(tempDir(), 'patch.txt');
    const text = `${'x'.repeat(100_000)}\nend\n`;
    writeFileSync(path, text);
    const fd = opened(path, constants.O_RDONLY);
    const input = plainStdin(fd, unused);
    expect(input.isTTY).toBe(false);
    // Nothing read yet: a command given its patch as an argument never waits on its input.
    expect(readSync(fd, Buffer.alloc(4), 0, 4, null)).toBe(4);
    expect(await textOf(input)).toBe(text.slice(4));
  });

  it('keeps what it read from a non-blocking pipe and takes the rest from the stream once the pipe is empty', async () => {
    const { reader, writer } = nonBlockingPipe();
    writeSync(writer, '*** Begin Patch\n');
    const rest = new PassThrough();
    const input = plainStdin(reader, () => rest);
    const chunks: string[] = [];
    const done = (async () => {
      for await (const chunk of input) {
        chunks.push(chunk.toString());
        // The first chunk is what was in the pipe; the stream's part is sent only then.
        if (chunks.length === 1) rest.end('*** End Patch\n');
      }
    })();
    await done;
    expect(chunks.join('')).toBe('*** Begin Patch\n*** End Patch\n');
  });

  it('leaves a character device (a terminal, /dev/null) to the stream, which says whether it is a terminal', async () => {
    const fd = opened('/dev/null', constants.O_RDONLY);
    const stream = Object.assign(new PassThrough(), { isTTY: true });
    const input = plainStdin(fd, () => stream);
    expect(input.isTTY).toBe(true);
    stream.end('typed');
    expect(await textOf(input)).toBe('typed');
  });
});

describe('plainOutput', () => {
  it('writes with plain writes', async () => {
    const path = join(tempDir(), 'out.txt');
    const fd = opened(path, constants.O_WRONLY | constants.O_CREAT);
    await new Promise<void>((resolve, reject) =>
      plainOutput(fd, unused).write('Success. Updated the following files:\nM a.txt\n', (error) =>
        error ? reject(error) : resolve(),
      ),
    );
    const back = Buffer.alloc(100);
    const n = readSync(opened(path, constants.O_RDONLY), back);
    expect(back.toString('utf8', 0, n)).toBe('Success. Updated the following files:\nM a.txt\n');
  });

  it('hands what a full non-blocking pipe cannot take to the stream, in order', async () => {
    const { reader, writer } = nonBlockingPipe();
    // More than a pipe holds (64 KiB on Linux), one line per number.
    const text = Array.from({ length: 40_000 }, (_, i) => `line ${i}`).join('\n');
    const rest = new PassThrough();
    let handed = '';
    rest.on('data', (chunk: Buffer) => (handed += chunk.toString()));
    await new Promise<void>((resolve, reject) =>
      plainOutput(writer, () => rest).write(text, (error) => (error ? reject(error) : resolve())),
    );
    const inPipe = Buffer.alloc(text.length);
    let got = 0;
    for (let n = readSync(reader, inPipe, got, inPipe.length - got, null); n > 0;) {
      got += n;
      try {
        n = readSync(reader, inPipe, got, inPipe.length - got, null);
      } catch {
        break;
      }
    }
    expect(got).toBeGreaterThan(0);
    expect(handed.length).toBeGreaterThan(0);
    expect(inPipe.toString('utf8', 0, got) + handed).toBe(text);
  });
});
