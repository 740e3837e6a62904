// The renderer's front door to the agent: `window.weft` when the Electron preload provided it, else the
// WebSocket of the `weft serve` that served this page.
import type { ClientInfo, InitializeCapabilities } from '../../src-preload/protocol';
import type { WeftBridge } from '../../src-preload/protocol';
import { createBridgeClient } from './bridge-client';
import { createRpcClient } from './rpc-client';
import { socketUrlFor, webSocketConnector } from './socket';
import type { WeftClient } from './types';

export * from './types';
export { createRpcClient } from './rpc-client';
export type { ConnectionHandlers, Connector, Timers } from './rpc-client';
export { createBridgeClient } from './bridge-client';
export { socketUrlFor } from './socket';

declare global {
  interface Window {
    /** Set by the Electron preload (src-preload/index.ts); absent in a browser. */
    weft?: WeftBridge;
  }
}

/** The bridge, if the page runs in the desktop app and the preload exposed a usable one. */
export function findBridge(win: Window): WeftBridge | null {
  const bridge = win.weft;
  if (bridge === undefined || bridge === null || typeof bridge !== 'object') return null;
  return typeof bridge.request === 'function' && typeof bridge.onNotification === 'function' ? bridge : null;
}

/**
 * What the page asks of the server: a turn's diff text only when a view shows it (`weft/turn/diff`), not
 * with every change of every thread the page follows.
 */
const PAGE_CAPABILITIES: InitializeCapabilities = { weftLazyTurnDiff: true };

/**
 * Connects to Weft from this page. Throws (with a message for people) when the page is neither in the
 * desktop app nor opened from the address `weft serve` printed.
 */
export function connectWeft(win: Window, clientInfo: ClientInfo): WeftClient {
  const bridge = findBridge(win);
  if (bridge !== null) return createBridgeClient(bridge, clientInfo, PAGE_CAPABILITIES);
  const url = socketUrlFor(win.location.href);
  if (url === null) {
    throw new Error(
      'This page has no access token. Open the full address that `weft serve` printed (it ends in ?token=…).',
    );
  }
  return createRpcClient({ connector: webSocketConnector(url), clientInfo, capabilities: PAGE_CAPABILITIES });
}
