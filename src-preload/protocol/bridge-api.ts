// `window.weft` as the page sees it: the desktop bridge's interface (built by src-preload/bridge.ts).
// Part of the contract so the renderer depends on the protocol only, never on the preload's code.
import { z } from 'zod';
import { lazySchema } from './lazy-schema';
import type { IncomingServerRequest } from './client-messages';
import type { JsonRpcErrorObject, RequestId } from './jsonrpc';
import type {
  ClientRequestMethod,
  ParamsInput,
  ResultOf,
  ServerNotification,
  ServerRequestMethod,
  ServerRequestResultInput,
} from './methods';

/**
 * Things the desktop shell asks of the page that are not protocol traffic: a click on an OS notification
 * (`focusThread`), File → New Thread (`newThread`), File → Open Folder / Open Recent with this window in
 * front (`openProject`: the folder, checked by the shell, joins this window's projects), a click on the OS
 * notification of an automation's run that ended (`openInboxRun`: the review inbox, on that run).
 */
export const ShellEvent = lazySchema(() =>
  z.discriminatedUnion('type', [
    z.object({ type: z.literal('focusThread'), threadId: z.string() }),
    z.object({ type: z.literal('newThread') }),
    z.object({ type: z.literal('openProject'), path: z.string().min(1) }),
    z.object({ type: z.literal('openInboxRun'), automationId: z.string().min(1), runId: z.string().min(1) }),
  ]),
);
export type ShellEvent = z.infer<typeof ShellEvent>;

export type Unsubscribe = () => void;

/**
 * How a request ended. Server errors resolve (never reject) because an Error crossing contextBridge keeps
 * only its message, and the renderer needs the code; the promise rejects only for a method this protocol
 * does not have.
 */
export type RpcOutcome<M extends ClientRequestMethod> =
  { ok: true; result: ResultOf<M> } | { ok: false; error: JsonRpcErrorObject };

/** A notification as delivered: method and parsed params, discriminated on `method`. */
export type BridgeNotification = ServerNotification;

/** A server request awaiting `respond`, discriminated on `method`. */
export type BridgeServerRequest = IncomingServerRequest;

export type BridgePlatform = 'darwin' | 'linux' | 'win32' | 'other';

export interface WeftBridge {
  /**
   * Sends a client request and resolves with its outcome. After a successful `initialize` the bridge
   * sends the `initialized` notification itself, completing the handshake.
   */
  request<M extends ClientRequestMethod>(method: M, params: ParamsInput<M>): Promise<RpcOutcome<M>>;
  /** Every server notification whose params parse. Subscribe before `initialize` to miss none. */
  onNotification(listener: (notification: BridgeNotification) => void): Unsubscribe;
  /**
   * Server requests (approvals, user input). Requests that arrive while nobody listens are held and
   * handed to the first listener. Each must be answered once with `respond`.
   */
  onServerRequest(listener: (request: BridgeServerRequest) => void): Unsubscribe;
  /** Answers a server request; throws if the request is not pending or the result does not parse. */
  respond<M extends ServerRequestMethod>(
    request: { id: RequestId; method: M },
    result: ServerRequestResultInput<M>,
  ): void;
  /** Events from the desktop shell (menus, notification clicks). */
  onShellEvent(listener: (event: ShellEvent) => void): Unsubscribe;
  /**
   * Opens a project in its own window (the desktop app has one window per project; an open one is
   * focused). `null` asks with the native folder dialog. Resolves false when the person cancelled or the
   * folder could not be opened (the app has told them why); never switches this window's project.
   */
  openProject(path: string | null): Promise<boolean>;
  /**
   * Asks for a folder with the native dialog (parented to this window) and resolves with it once the app
   * has checked it is a folder it can open (and put it in Recent); null when the person cancelled or it
   * cannot be opened (the app has told them why). The page opens it among its projects.
   */
  chooseFolder(): Promise<string | null>;
  readonly platform: BridgePlatform;
}
