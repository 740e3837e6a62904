// The Electron main module (bundled to dist/electron/main.js). Its one job: hand the core's host factory
// to the desktop shell. API keys typed into the UI come from the OS keychain (SecretStore).
import { createAppHost } from '../server/app-host';
import type { AppHostFactory } from './host-types';
import { startDesktopApp } from './main';

const factory: AppHostFactory = ({ weftHome, secrets }) => createAppHost({ weftHome, secretLookup: (name) => secrets.get(name) });

startDesktopApp(factory);
