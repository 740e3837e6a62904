// The Electron main module (bundled to dist/electron/main.js). Its one job: hand the core's host factory
// to the desktop shell. The host runs the automations' scheduler as `weft serve` does. API keys saved in
// Settings go to the OS keychain (SecretStore) when it works, else to WEFT_HOME/auth.json (mode 0600), the
// core's default.
import { loadConfig } from '../config';
import { environmentPipe } from '../config/environments';
import type { KeyStore } from '../config/key-store';
import type { OpenEnvironment } from '../faces/automation-executor';
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

/** The relay to an environment of the user's config.toml, for runs of automations with a `remote`. */
function environmentOpener(weftHome: string): OpenEnvironment {
  return async (name, options) => {
    const { config } = await loadConfig({ weftHome, cwd: weftHome, env: process.env });
    const environments = config.environments ?? {};
    const environment = environments[name];
    if (environment === undefined) {
      const names = Object.keys(environments).sort();
      throw new Error(
        `no environment named "${name}" in config.toml (${names.length === 0 ? 'none is configured' : `configured: ${names.join(', ')}`})`,
      );
    }
    return new RemoteHost({ ...options, target: environmentPipe(name, environment) });
  };
}

const factory: AppHostFactory = async ({ weftHome, secrets }) =>
  withAutomationScheduler(
    await createAppHost({ weftHome, ...(secrets.isAvailable() ? { keyStore: keychainKeyStore(secrets) } : {}) }),
    { weftHome, log: (line) => process.stderr.write(`${line}\n`), openEnvironment: environmentOpener(weftHome) },
  );

startDesktopApp(factory);
