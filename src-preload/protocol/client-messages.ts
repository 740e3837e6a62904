// The client side of the wire: classifies one incoming JSON-RPC message (already JSON-parsed) and parses
// its payload with the method tables. Pure: the Electron bridge and the renderer's WebSocket client share
// it and each decides what to do with every kind.
import type { z } from 'zod';
import { JsonRpcError, JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from './jsonrpc';
import type { JsonRpcErrorObject, RequestId } from './jsonrpc';
import { describeZodError } from './errors';
import {
  ClientRequests,
  ServerNotifications,
  ServerRequests,
  isServerNotificationMethod,
  isServerRequestMethod,
} from './methods';
import type {
  ClientRequestMethod,
  NotificationParams,
  ResultOf,
  ServerNotification,
  ServerNotificationMethod,
  ServerRequestMethod,
  ServerRequestParams,
  ServerRequestResultInput,
} from './methods';

// The method tables, retyped per key so that indexing with a generic method keeps the link between a
// method and its schema (TypeScript checks each key of these assignments).
export const resultSchemas: { [K in ClientRequestMethod]: { result: z.ZodType<ResultOf<K>> } } = ClientRequests;

export const notificationSchemas: { [K in ServerNotificationMethod]: z.ZodType<NotificationParams<K>> } =
  ServerNotifications;

export const serverRequestSchemas: {
  [K in ServerRequestMethod]: {
    params: z.ZodType<ServerRequestParams<K>>;
    result: z.ZodType<unknown, ServerRequestResultInput<K>>;
  };
} = ServerRequests;

/** A server → client request (approval, question) with its JSON-RPC id, discriminated on `method`. */
export type IncomingServerRequest = {
  [M in ServerRequestMethod]: { id: RequestId; method: M; params: ServerRequestParams<M> };
}[ServerRequestMethod];

export type IncomingMessage =
  | { kind: 'notification'; notification: ServerNotification }
  | { kind: 'serverRequest'; request: IncomingServerRequest }
  /** A server request we cannot take: answer it with this error so the server does not wait forever. */
  | { kind: 'badServerRequest'; id: RequestId; code: number; message: string }
  | { kind: 'response'; id: RequestId; result: unknown }
  | { kind: 'error'; id: RequestId | null; error: JsonRpcErrorObject }
  /** Dropped: an unknown notification, params that do not parse, or not JSON-RPC at all. */
  | { kind: 'ignored'; why: string };

export function parseNotification<M extends ServerNotificationMethod>(
  method: M,
  params: unknown,
):
  | { ok: true; notification: { [K in M]: { method: K; params: NotificationParams<K> } }[M] }
  | { ok: false; why: string } {
  const parsed = notificationSchemas[method].safeParse(params);
  if (!parsed.success) return { ok: false, why: describeZodError(parsed.error) };
  return { ok: true, notification: { method, params: parsed.data } };
}

export function parseServerRequest<M extends ServerRequestMethod>(
  id: RequestId,
  method: M,
  params: unknown,
):
  | { ok: true; request: { [K in M]: { id: RequestId; method: K; params: ServerRequestParams<K> } }[M] }
  | { ok: false; why: string } {
  const parsed = serverRequestSchemas[method].params.safeParse(params);
  if (!parsed.success) return { ok: false, why: describeZodError(parsed.error) };
  return { ok: true, request: { id, method, params: parsed.data } };
}

/**
 * Classifies one message from the server. `clientName` names this client in the error answering a server
 * request it does not know ("The desktop app does not handle …").
 */
export function classifyMessage(message: unknown, clientName: string): IncomingMessage {
  // Each form is tried only when the fields it requires are there: a failed parse builds zod's issues,
  // and trying the request form first made every notification (most messages: the streams' deltas) cost
  // ten times what parsing it does. The order, and so the outcome, is the same as trying every form.
  if (typeof message !== 'object' || message === null) return { kind: 'ignored', why: 'not a JSON-RPC message' };
  const fields = message as { id?: unknown; method?: unknown; result?: unknown; error?: unknown };
  const hasMethod = typeof fields.method === 'string';
  const asRequest = hasMethod && fields.id !== undefined ? JsonRpcRequest.safeParse(message) : null;
  if (asRequest?.success === true) {
    const { id, method, params } = asRequest.data;
    if (!isServerRequestMethod(method)) {
      return {
        kind: 'badServerRequest',
        id,
        code: -32601,
        message: `${clientName} does not handle the server request "${method}".`,
      };
    }
    const parsed = parseServerRequest(id, method, params);
    if (!parsed.ok) return { kind: 'badServerRequest', id, code: -32602, message: `${method}: ${parsed.why}` };
    return { kind: 'serverRequest', request: parsed.request };
  }
  const asNotification = hasMethod ? JsonRpcNotification.safeParse(message) : null;
  if (asNotification?.success === true) {
    const { method, params } = asNotification.data;
    if (!isServerNotificationMethod(method)) return { kind: 'ignored', why: `unknown notification ${method}` };
    const parsed = parseNotification(method, params);
    if (!parsed.ok) return { kind: 'ignored', why: `notification ${method}: ${parsed.why}` };
    return { kind: 'notification', notification: parsed.notification };
  }
  const asError = fields.error !== undefined ? JsonRpcError.safeParse(message) : null;
  if (asError?.success === true) return { kind: 'error', id: asError.data.id, error: asError.data.error };
  const asResponse = fields.id !== undefined && fields.result !== undefined ? JsonRpcResponse.safeParse(message) : null;
  if (asResponse?.success === true) return { kind: 'response', id: asResponse.data.id, result: asResponse.data.result };
  return { kind: 'ignored', why: 'not a JSON-RPC message' };
}
