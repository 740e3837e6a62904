// The Electron transport: `window.weft` (src-preload/bridge.ts) already speaks the protocol with parsed
// messages; this adapts it to WeftClient (handshake, errors as RpcError). IPC cannot drop, so the state
// goes from `connecting` to `open` and stays there.
import type {
  ClientInfo,
  InitializeCapabilities,
  ClientRequestMethod,
  ParamsInput,
  RequestId,
  ResultOf,
  ServerRequestMethod,
  ServerRequestResultInput,
} from '../../src-preload/protocol';
import type { WeftBridge } from '../../src-preload/protocol';
import { RpcError } from './types';
import type { ConnectionState, ReadyEvent, Unsubscribe, WeftClient } from './types';

export function createBridgeClient(
  bridge: WeftBridge,
  clientInfo: ClientInfo,
  capabilities?: InitializeCapabilities,
): WeftClient {
  let state: ConnectionState = { phase: 'connecting' };
  let disposed = false;
  const unsubscribes: Unsubscribe[] = [];
  const connectionListeners = new Set<(s: ConnectionState) => void>();
  const readyListeners = new Set<(e: ReadyEvent) => void>();
  let lastReady: ReadyEvent | null = null;

  const call = async <M extends ClientRequestMethod>(method: M, params: ParamsInput<M>): Promise<ResultOf<M>> => {
    const outcome = await bridge.request(method, params);
    if (outcome.ok) return outcome.result;
    throw new RpcError(method, outcome.error.code, outcome.error.message, outcome.error.data);
  };

  const handshake = call('initialize', { clientInfo, ...(capabilities === undefined ? {} : { capabilities }) }).then(
    (initialize) => {
      if (disposed) return;
      state = { phase: 'open' };
      for (const listener of [...connectionListeners]) listener(state);
      lastReady = { initialize, reconnect: false };
      for (const listener of [...readyListeners]) listener(lastReady);
    },
    (error: unknown) => {
      state = {
        phase: 'failed',
        message: `The desktop app refused the handshake: ${error instanceof Error ? error.message : String(error)}`,
      };
      for (const listener of [...connectionListeners]) listener(state);
      throw error;
    },
  );
  // Callers see the failure through `request` and the `failed` state; this only marks it handled.
  handshake.catch(() => undefined);

  const track = (unsubscribe: Unsubscribe): Unsubscribe => {
    unsubscribes.push(unsubscribe);
    return unsubscribe;
  };

  return {
    kind: 'bridge',
    get state() {
      return state;
    },
    async request<M extends ClientRequestMethod>(method: M, params: ParamsInput<M>): Promise<ResultOf<M>> {
      await handshake;
      return call(method, params);
    },
    onNotification: (listener) => track(bridge.onNotification(listener)),
    onServerRequest: (listener) => track(bridge.onServerRequest(listener)),
    respond<M extends ServerRequestMethod>(
      request: { id: RequestId; method: M },
      result: ServerRequestResultInput<M>,
    ): void {
      bridge.respond(request, result);
    },
    onConnection(listener) {
      connectionListeners.add(listener);
      listener(state);
      return () => {
        connectionListeners.delete(listener);
      };
    },
    onReady(listener) {
      readyListeners.add(listener);
      if (lastReady !== null) listener(lastReady);
      return () => {
        readyListeners.delete(listener);
      };
    },
    retry() {
      // IPC has no connection to retry; a failed handshake needs a reload of the window.
    },
    dispose() {
      disposed = true;
      for (const unsubscribe of unsubscribes.splice(0)) unsubscribe();
      connectionListeners.clear();
      readyListeners.clear();
    },
  };
}
