// The project folder of a face run with `--env NAME`: a folder on the remote, checked there (through
// the remote's `weft/fs/complete`), never on this machine.
import type { HostClient } from '../faces/host-client';

/** The remote folder `cd` names (`~` when absent), made absolute there; throws when it is no folder. */
export async function remoteProjectDir(
  client: HostClient,
  environment: string,
  cd: string | undefined,
): Promise<string> {
  const asked = cd ?? '~';
  const found = await client.request('weft/fs/complete', { path: asked });
  if (found.kind === 'folder') return found.resolved;
  const what = found.kind === 'missing' ? 'does not exist' : found.kind === 'file' ? 'is a file' : 'cannot be read';
  throw new Error(`${found.resolved} ${what} on environment "${environment}"; give a folder there with --cd`);
}
