// `weft serve --env NAME`: the web UI served here, the agent on the environment. Each page that connects
// gets its own relay (its own pipe) to the remote's per-user app server; the project folder is checked
// on the remote before the URL is printed.
import { connectHostClient } from '../faces/host-client';
import { errorMessage } from '../util/errors';
import { VERSION } from '../version';
import { openRemoteHost, relayParkMs } from './environment-host';
import { remoteProjectDir } from './remote-project';
import { stderrLog, type CliHost } from './transport-setup';

/** The relay and the remote project folder; null (after saying why) when the environment cannot serve. */
export async function openServeRemote(
  name: string,
  cd: string | undefined,
): Promise<{ host: CliHost; cwd: string } | null> {
  let gaveUp: string | null = null;
  try {
    const opened = await openRemoteHost(name, { log: stderrLog, onGiveUp: (why) => (gaveUp = why) });
    const probe = await connectHostClient(opened.host, {
      label: `serve --env ${name}`,
      clientInfo: { name: 'weft-serve', version: VERSION },
      log: stderrLog,
    });
    try {
      const cwd = await remoteProjectDir(probe, name, cd);
      // Pages get relays that log and keep retrying, and whose pipes wait for a page that reloads; the probe's
      // failure alone ends `weft serve`.
      const served = await openRemoteHost(name, { log: stderrLog, parkMs: relayParkMs() });
      return { host: served, cwd };
    } finally {
      probe.close();
    }
  } catch (error) {
    process.stderr.write(`weft serve: ${gaveUp ?? errorMessage(error)}\n`);
    return null;
  }
}
