// The Electron main module (bundled to dist/electron/main.js). Its one job: hand the core's host factory
// to the desktop shell. The host runs the automations' scheduler as `weft serve` does. API keys saved in
// Settings go to the OS keychain (SecretStore) when it works, else to WEFT_HOME/auth.json (mode 0600), the
// core's default.
import type { KeyStore } from '../config/key-store';
import { withAutomationScheduler } from '../faces/automation-scheduler';
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

const factory: AppHostFactory = async ({ weftHome, secrets }) =>
  withAutomationScheduler(
    await createAppHost({ weftHome, ...(secrets.isAvailable() ? { keyStore: keychainKeyStore(secrets) } : {}) }),
    { weftHome, log: (line) => process.stderr.write(`${line}\n`) },
  );

startDesktopApp(factory);
