// This machine's host with the configured environments beside it (`faces/remote/environment-router.ts`):
// what `weft serve` and `weft app-server` serve, so one window holds local and remote projects. The
// config and the relays (environment-host.ts) are imported when a request first names an environment.
import { EnvironmentRouter } from '../faces/remote/environment-router';
import { stderrLog, type CliHost } from './transport-setup';

/**
 * `pages`: the clients are pages, which reload: the pipe of one that leaves waits for the next
 * (`RelayOptions.parkMs`), so a `command` that does not attach keeps its server there.
 */
export function withEnvironments(created: CliHost, { pages = false }: { pages?: boolean } = {}): CliHost {
  const router = new EnvironmentRouter({
    local: created.host,
    openEnvironment: async (name) => {
      const { openRemoteHost, relayParkMs } = await import('./environment-host');
      return (await openRemoteHost(name, { log: stderrLog, ...(pages ? { parkMs: relayParkMs() } : {}) })).host;
    },
    log: stderrLog,
  });
  return {
    host: router,
    ...(created.makeWay === undefined ? {} : { makeWay: () => created.makeWay?.() }),
    close: async () => {
      await router.close();
      await created.close();
    },
  };
}
