/**
 * The stdio transport of `weft app-server`: one JSON object per line on stdin and stdout, one client.
 * stdout carries nothing but protocol messages; the transport's own log lines go to stderr.
 */
import type { Readable, Writable } from 'node:stream';
import { errorMessage } from '../util/errors';
import { JsonlDecoder, MAX_MESSAGE_BYTES } from './framing';
import { OutboundQueue } from './outbound-queue';
import type { ClientConnection, ConnectionHost } from './transport';

export interface StdioStreams {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
}

export interface StdioServerOptions {
  /** Longest incoming line, in bytes. Default 10 MiB. */
  maxLineBytes?: number;
  /** Outgoing bytes allowed to wait for a slow reader before the client is dropped. Default 64 MiB. */
  maxQueuedBytes?: number;
}

const LABEL = 'stdio';

/**
 * Serves one client on `io` until stdin ends (or closes, or the client is dropped for not reading its
 * output). Resolves after the connection has been closed and what was already sent has been handed to
 * stdout; never rejects.
 */
export function runStdioServer(
  host: ConnectionHost,
  io: StdioStreams = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr },
  options: StdioServerOptions = {},
): Promise<void> {
  const { stdin, stdout, stderr } = io;
  const log = (line: string): void => {
    stderr.write(`${line}\n`);
  };

  return new Promise<void>((resolve) => {
    let finished = false;
    let waitingForDrain = false;
    /** Set right after `connect`; the queue may call back (overflow) before that returns. */
    const client: { connection?: ClientConnection } = {};

    const queue = new OutboundQueue(
      {
        write(text) {
          const more = stdout.write(`${text}\n`);
          if (!more && !waitingForDrain) {
            waitingForDrain = true;
            stdout.once('drain', onDrain);
          }
          return more;
        },
      },
      {
        label: LABEL,
        log,
        onOverflow: () => finish('dropped'),
        ...(options.maxQueuedBytes === undefined ? {} : { maxQueuedBytes: options.maxQueuedBytes }),
      },
    );

    function onDrain(): void {
      waitingForDrain = false;
      queue.drained();
    }

    const decoder = new JsonlDecoder(
      (message) => {
        if (finished || client.connection === undefined) return;
        try {
          client.connection.receive(message);
        } catch (error) {
          log(`weft: app-server: the dispatcher failed on a message from ${LABEL}: ${errorMessage(error)}`);
        }
      },
      { maxLineBytes: options.maxLineBytes ?? MAX_MESSAGE_BYTES },
    );

    const onData = (chunk: Buffer | string): void => {
      if (!finished) decoder.push(chunk);
    };
    const onEnd = (): void => {
      if (finished) return;
      decoder.end();
      finish('ended');
    };
    const onStdinError = (error: Error): void => {
      log(`weft: app-server: reading stdin failed: ${error.message}`);
      finish('ended');
    };
    const onStdoutError = (error: Error): void => {
      // EPIPE and friends: the client stopped reading; nobody is left to answer.
      log(`weft: app-server: writing stdout failed (${error.message}); closing the connection`);
      queue.close();
      finish('ended');
    };

    function finish(reason: 'ended' | 'dropped'): void {
      if (finished) return;
      finished = true;
      stdin.off('data', onData);
      stdin.off('end', onEnd);
      stdin.off('close', onEnd);
      stdin.off('error', onStdinError);
      if (reason === 'dropped') stdin.pause();
      try {
        client.connection?.close();
      } catch (error) {
        log(`weft: app-server: closing the ${LABEL} connection failed: ${errorMessage(error)}`);
      }
      // A dropped client is not reading: waiting for its output to drain could wait forever.
      void (reason === 'dropped' ? Promise.resolve() : flush()).then(() => {
        stdout.off('drain', onDrain);
        stdout.off('error', onStdoutError);
        resolve();
      });
    }

    /** Waits until queued messages reach stdout and stdout has handed its buffer to the OS. */
    async function flush(): Promise<void> {
      await queue.whenIdle();
      queue.close();
      if (stdout.writableLength === 0 || stdout.destroyed || !stdout.writable) return;
      await new Promise<void>((done) => {
        stdout.write('', () => done());
      });
    }

    stdout.on('error', onStdoutError);
    stdin.on('error', onStdinError);
    client.connection = host.connect({
      label: LABEL,
      send: (message) => queue.send(message),
      whenSent: () => queue.whenSent(),
      boundsNesting: true,
    });
    stdin.on('data', onData);
    stdin.on('end', onEnd);
    stdin.on('close', onEnd);
  });
}
