/** `weft acp` on stdio: newline-delimited JSON-RPC, one ACP client, until stdin closes. */
import { Readable, Writable } from 'node:stream';
import { ndJsonStream } from '@agentclientprotocol/sdk';
import type { ConnectionHost } from '../../server/transport';
import { VERSION } from '../../version';
import { connectHostClient } from '../host-client';
import { createAcpAgent } from './agent';

export interface AcpStdioOptions {
  host: ConnectionHost;
  stdin: Readable;
  stdout: Writable;
  log: (line: string) => void;
}

export async function serveAcpStdio(options: AcpStdioOptions): Promise<void> {
  const client = await connectHostClient(options.host, {
    label: 'acp stdio',
    clientInfo: { name: 'weft-acp', title: 'Weft ACP agent', version: VERSION },
    log: options.log,
  });
  try {
    // stdin carries bytes (no encoding is set on it), which Node's typings do not express.
    const stream = ndJsonStream(
      Writable.toWeb(options.stdout),
      Readable.toWeb(options.stdin) as ReadableStream<Uint8Array>,
    );
    const connection = createAcpAgent({ client, log: options.log }).connect(stream);
    await connection.closed;
  } finally {
    client.close();
  }
}
