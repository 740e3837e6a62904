// The Electron main module (bundled to dist/electron/main.js). Its one job: hand the core's host factory
// to the desktop shell.
// TODO(lead): replace `hostNotWired` with `createAppHost` from '../server/app-host' once it exists.
import type { AppHostFactory } from './host-types';
import { startDesktopApp } from './main';

const hostNotWired: AppHostFactory = () =>
  Promise.reject(
    new Error('this build has no agent core wired in (src-main/electron/entry.ts still passes a placeholder host factory).'),
  );

startDesktopApp(hostNotWired);
