// The preload: runs sandboxed, with context isolation, before the page. It exposes `window.weft` (see
// bridge.ts) and nothing else; ipcRenderer itself and IPC event objects never reach the page.
// Bundled by scripts/build-electron.mjs into dist/electron/preload.cjs (sandboxed preloads must be CJS).
import { contextBridge, ipcRenderer } from 'electron';
import { z } from 'zod';
import { createWeftBridge } from './bridge';
import type { BridgeIpc } from './bridge';

// The page's CSP has no 'unsafe-eval': keep zod from compiling parsers with `new Function` (and from
// probing for it, which the CSP reports as a violation).
z.config({ jitless: true });

const ipc: BridgeIpc = {
  send(channel, message) {
    ipcRenderer.send(channel, message);
  },
  on(channel, listener) {
    const handler = (_event: Electron.IpcRendererEvent, message: unknown): void => listener(message);
    ipcRenderer.on(channel, handler);
    return () => {
      ipcRenderer.removeListener(channel, handler);
    };
  },
  invoke: (channel, argument) => ipcRenderer.invoke(channel, argument),
};

contextBridge.exposeInMainWorld('weft', createWeftBridge(ipc, process.platform));

export type { WeftBridge, BridgeNotification, BridgeServerRequest, RpcOutcome, ShellEvent } from './bridge';
