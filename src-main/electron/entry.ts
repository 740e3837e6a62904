// The Electron main module (bundled to dist/electron/main.js). Its one job: hand the core's host factory
// to the desktop shell. The host runs the automations' scheduler as `weft serve` does. API keys saved in
// Settings go to the OS keychain (SecretStore) when it works, else to WEFT_HOME/auth.json (mode 0600), the
// core's default.
import { loadConfig } from '../config';
import { namedEnvironmentPipe } from '../config/environments';
import type { KeyStore } from '../config/key-store';
import type { OpenEnvironment } from '../faces/automation-executor';
import { EnvironmentRouter } from '../faces/remote/environment-router';
import { withAutomationScheduler } from '../faces/automation-scheduler';
import { RemoteHost } from '../faces/remote/relay-host';
import { createAppHost } from '../server/app-host';
import type { AppHostFactory, SecretStore } from './host-types';
import { startDesktopApp } from './main';

/** Saved keys as keychain secrets named `provider.<id>.apiKey`. */
function keychainKeyStore(secrets: SecretStore): KeyStore {
  const name = (providerId: string): string => `provider.${providerId}.apiKey`;
  return {
    kind: 'keychain',
    get: (providerId) => secrets.get(name(providerId)),
    set: (providerId, key) => secrets.set(name(providerId), key),
    clear: (providerId) => secrets.delete(name(providerId)),
    list: async () => (await secrets.list()).flatMap((n) => /^provider\.(.+)\.apiKey$/.exec(n)?.[1] ?? []),
  };
}

const log = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

/**
 * The relay to environment `name` of config.toml (read when it is first needed, as `--env` reads it): for
 * runs of automations with a `remote`, and for the router that serves the configured environments beside
 * this machine's host.
 */
async function openRelay(
  weftHome: string,
  name: string,
  options: { log(line: string): void; onGiveUp?(why: string): void },
): Promise<RemoteHost> {
  const { config } = await loadConfig({ weftHome, cwd: weftHome, env: process.env });
  return new RemoteHost({ ...options, target: namedEnvironmentPipe(config.environments ?? {}, name) });
}

const factory: AppHostFactory = async ({ weftHome, secrets }) => {
  const openEnvironment: OpenEnvironment = (name, options) => openRelay(weftHome, name, options);
  const app = await withAutomationScheduler(
    await createAppHost({ weftHome, ...(secrets.isAvailable() ? { keyStore: keychainKeyStore(secrets) } : {}) }),
    { weftHome, log, openEnvironment },
  );
  // Projects on environments beside local ones: the windows talk to the router in front of the host.
  const host = new EnvironmentRouter({
    local: app.host,
    openEnvironment: (name) => openRelay(weftHome, name, { log }),
    log,
  });
  return Object.assign(app, { host });
};

startDesktopApp(factory);
