// `window.weft`: the desktop app's side of the protocol, built from the method tables. The preload
// (index.ts) hands this module a two-function view of ipcRenderer, so the logic runs (and is tested)
// without Electron. Imports only the protocol and zod, so esbuild can bundle it for a sandboxed preload.
import {
  ShellEvent,
  classifyMessage,
  describeZodError,
  isClientRequestMethod,
  isServerRequestMethod,
  resultSchemas,
  serverRequestSchemas,
} from './protocol';
import type {
  BridgeNotification,
  BridgePlatform,
  BridgeServerRequest,
  RpcOutcome,
  Unsubscribe,
  WeftBridge,
  ClientRequestMethod,
  JsonRpcErrorObject,
  RequestId,
  ParamsInput,
  ServerRequestMethod,
  ServerRequestResultInput,
} from './protocol';

/** The IPC channels between the preload and the main process. Only these exist. */
export const IpcChannels = {
  /** preload → main, no payload: this page's bridge starts; any earlier connection of the page ends. */
  open: 'weft:open',
  /** both ways: one JSON-RPC message (a plain object, as on the app server's stdio). */
  rpc: 'weft:rpc',
  /** main → preload: a ShellEvent (menus, notification clicks). */
  shell: 'weft:shell',
  /** preload → main, invoke with `string | null`, answers boolean: see WeftBridge.openProject. */
  openProject: 'weft:openProject',
  /** preload → main, invoke with no argument, answers `string | null`: see WeftBridge.chooseFolder. */
  chooseFolder: 'weft:chooseFolder',
} as const;

export type { BridgeNotification, BridgePlatform, BridgeServerRequest, RpcOutcome, Unsubscribe, WeftBridge };
export { ShellEvent };

/** The part of ipcRenderer the bridge uses. `on` never exposes the IPC event object. */
export interface BridgeIpc {
  send(channel: string, message: unknown): void;
  on(channel: string, listener: (message: unknown) => void): Unsubscribe;
  invoke(channel: string, argument: unknown): Promise<unknown>;
}

type RawOutcome = { ok: true; result: unknown } | { ok: false; error: JsonRpcErrorObject };

/** A request awaiting its answer; `settle` parses the result with the method's own schema. */
type Pending = (outcome: RawOutcome) => void;

export function toBridgePlatform(platform: string): BridgePlatform {
  return platform === 'darwin' || platform === 'linux' || platform === 'win32' ? platform : 'other';
}

/**
 * Builds the bridge and announces the page to the main process (`weft:open`). Listeners are called
 * synchronously in subscription order; one that throws does not stop the others.
 */
export function createWeftBridge(ipc: BridgeIpc, platform: string): WeftBridge {
  let nextId = 1;
  const pending = new Map<RequestId, Pending>();
  const openServerRequests = new Set<RequestId>();
  const heldServerRequests: BridgeServerRequest[] = [];
  const notificationListeners = new Set<(notification: BridgeNotification) => void>();
  const serverRequestListeners = new Set<(request: BridgeServerRequest) => void>();
  const shellListeners = new Set<(event: ShellEvent) => void>();

  const callEach = <T>(listeners: Iterable<(value: T) => void>, value: T): void => {
    for (const listener of [...listeners]) {
      try {
        listener(value);
      } catch (error) {
        console.error('weft bridge: a listener threw', error);
      }
    }
  };

  const send = (message: object): void => ipc.send(IpcChannels.rpc, message);

  const answerWithError = (id: RequestId, code: number, message: string): void => {
    send({ id, error: { code, message } });
  };

  const settle = (id: RequestId | null, outcome: RawOutcome): void => {
    if (id === null) {
      if (!outcome.ok) console.error(`weft bridge: the app rejected an unreadable message: ${outcome.error.message}`);
      return;
    }
    const entry = pending.get(id);
    if (entry === undefined) return;
    pending.delete(id);
    entry(outcome);
  };

  const deliverServerRequest = (request: BridgeServerRequest): void => {
    openServerRequests.add(request.id);
    if (serverRequestListeners.size === 0) heldServerRequests.push(request);
    else callEach(serverRequestListeners, request);
  };

  const onRpc = (message: unknown): void => {
    const incoming = classifyMessage(message, 'The desktop app');
    switch (incoming.kind) {
      case 'serverRequest':
        deliverServerRequest(incoming.request);
        return;
      case 'badServerRequest':
        answerWithError(incoming.id, incoming.code, incoming.message);
        return;
      case 'notification':
        if (incoming.notification.method === 'serverRequest/resolved') {
          openServerRequests.delete(incoming.notification.params.requestId);
        }
        callEach(notificationListeners, incoming.notification);
        return;
      case 'error':
        settle(incoming.id, { ok: false, error: incoming.error });
        return;
      case 'response':
        settle(incoming.id, { ok: true, result: incoming.result });
        return;
      case 'ignored':
        console.warn(`weft bridge: dropped a message: ${incoming.why}`);
        return;
    }
  };

  const onShell = (message: unknown): void => {
    const parsed = ShellEvent.safeParse(message);
    if (parsed.success) callEach(shellListeners, parsed.data);
  };

  ipc.on(IpcChannels.rpc, onRpc);
  ipc.on(IpcChannels.shell, onShell);
  ipc.send(IpcChannels.open, null);

  const subscribe = <T>(listeners: Set<(value: T) => void>, listener: (value: T) => void): Unsubscribe => {
    // A fresh wrapper per subscription: subscribing the same function twice yields two independent ones.
    const wrapper = (value: T): void => listener(value);
    listeners.add(wrapper);
    return () => {
      listeners.delete(wrapper);
    };
  };

  return {
    platform: toBridgePlatform(platform),
    request<M extends ClientRequestMethod>(method: M, params: ParamsInput<M>): Promise<RpcOutcome<M>> {
      if (!isClientRequestMethod(method)) {
        return Promise.reject(new Error(`"${String(method)}" is not a method of the Weft protocol.`));
      }
      const id = nextId++;
      const resultSchema = resultSchemas[method].result;
      return new Promise<RpcOutcome<M>>((resolve) => {
        pending.set(id, (outcome) => {
          if (!outcome.ok) {
            resolve(outcome);
            return;
          }
          const parsed = resultSchema.safeParse(outcome.result);
          if (!parsed.success) {
            const why = describeZodError(parsed.error, 'result');
            resolve({
              ok: false,
              error: { code: -32603, message: `The app's answer to ${method} is malformed (${why}).` },
            });
            return;
          }
          if (method === 'initialize') send({ method: 'initialized' });
          resolve({ ok: true, result: parsed.data });
        });
        send(params === undefined ? { id, method } : { id, method, params });
      });
    },
    onNotification: (listener) => subscribe(notificationListeners, listener),
    onServerRequest(listener) {
      const unsubscribe = subscribe(serverRequestListeners, listener);
      const held = heldServerRequests.splice(0);
      for (const request of held) callEach(serverRequestListeners, request);
      return unsubscribe;
    },
    respond<M extends ServerRequestMethod>(
      request: { id: RequestId; method: M },
      result: ServerRequestResultInput<M>,
    ): void {
      if (!openServerRequests.has(request.id)) {
        throw new Error(
          `There is no pending server request with id ${JSON.stringify(request.id)} to answer (it was answered or cancelled).`,
        );
      }
      if (!isServerRequestMethod(request.method)) {
        throw new Error(`"${String(request.method)}" is not a server request of the Weft protocol.`);
      }
      const parsed = serverRequestSchemas[request.method].result.safeParse(result);
      if (!parsed.success) {
        throw new Error(`The answer to ${request.method} is malformed (${describeZodError(parsed.error, 'result')}).`);
      }
      openServerRequests.delete(request.id);
      send({ id: request.id, result });
    },
    onShellEvent: (listener) => subscribe(shellListeners, listener),
    async openProject(path: string | null): Promise<boolean> {
      if (path !== null && (typeof path !== 'string' || path === '')) {
        throw new Error('openProject takes an absolute folder path, or null for the folder dialog.');
      }
      return (await ipc.invoke(IpcChannels.openProject, path)) === true;
    },
    async chooseFolder(): Promise<string | null> {
      const chosen = await ipc.invoke(IpcChannels.chooseFolder, null);
      return typeof chosen === 'string' && chosen !== '' ? chosen : null;
    },
  };
}
