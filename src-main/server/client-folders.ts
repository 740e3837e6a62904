// The project folders each client has named by listing their threads (`thread/list {cwd}`), as a window
// that holds several projects does for each one it has open. `fs/readFile` reads in them for that client
// as it does in the server's own project: a client that may start a thread in a folder may read it.
import { resolve } from 'node:path';
import type { Client } from './dispatcher';

/** Folders kept per client; the oldest named goes first beyond it (a window holds a handful of projects). */
const MAX_FOLDERS = 64;

export class ClientFolders {
  private readonly byClient = new WeakMap<Client, string[]>();

  /** Records the folders a request of `client` named (a `cwd` param: one, several or none). */
  name(client: Client, cwd: string | readonly string[] | null | undefined): void {
    if (cwd === null || cwd === undefined) return;
    const named = (typeof cwd === 'string' ? [cwd] : cwd).map((c) => resolve(c));
    const kept = (this.byClient.get(client) ?? []).filter((f) => !named.includes(f));
    this.byClient.set(client, [...kept, ...named].slice(-MAX_FOLDERS));
  }

  of(client: Client): readonly string[] {
    return this.byClient.get(client) ?? [];
  }
}
