// JSON-RPC 2.0 framing as Codex's app server speaks it: the "jsonrpc" field is neither sent nor expected.
import { z } from 'zod';
import { lazySchema } from './lazy-schema';

/** A request id: a string or an integer, echoed unchanged in the response. */
export const RequestId = lazySchema(() => z.union([z.string(), z.number().int()]));
export type RequestId = z.infer<typeof RequestId>;

/** A field that must be present (any JSON value, including null) — `undefined` means the key was missing. */
const present = lazySchema(() =>
  z.unknown().refine((value) => value !== undefined, { message: 'required', abort: true }),
);

/** `{id, method, params?}`. Any other field (Codex's optional `trace`, a stray `jsonrpc`) is dropped. */
export const JsonRpcRequest = lazySchema(() =>
  z.object({
    id: RequestId,
    method: z.string(),
    params: z.unknown().optional(),
  }),
);
export type JsonRpcRequest = z.infer<typeof JsonRpcRequest>;

/** `{method, params?}` — a message without an id expects no answer. */
export const JsonRpcNotification = lazySchema(() =>
  z.object({
    method: z.string(),
    params: z.unknown().optional(),
  }),
);
export type JsonRpcNotification = z.infer<typeof JsonRpcNotification>;

/** `{id, result}` — `result` must be present; methods without a payload answer `{}`. */
export const JsonRpcResponse = lazySchema(() =>
  z.object({
    id: RequestId,
    result: present,
  }),
);
export type JsonRpcResponse = z.infer<typeof JsonRpcResponse>;

export const JsonRpcErrorObject = lazySchema(() =>
  z.object({
    code: z.number().int(),
    message: z.string(),
    data: z.unknown().optional(),
  }),
);
export type JsonRpcErrorObject = z.infer<typeof JsonRpcErrorObject>;

/**
 * `{id, error: {code, message, data?}}`. `id` is null only when the failing message's id could not be
 * read at all (a line that is not JSON, or has no usable id).
 */
export const JsonRpcError = lazySchema(() =>
  z.object({
    id: RequestId.nullable(),
    error: JsonRpcErrorObject,
  }),
);
export type JsonRpcError = z.infer<typeof JsonRpcError>;

/**
 * Any framed message. Order matters: a request is tried before a notification (both carry `method`), and
 * a response before an error (both carry `id`).
 */
export const JsonRpcMessage = lazySchema(() =>
  z.union([JsonRpcRequest, JsonRpcNotification, JsonRpcResponse, JsonRpcError]),
);
export type JsonRpcMessage = z.infer<typeof JsonRpcMessage>;

/** Standard JSON-RPC error codes used by the server. `InvalidParams` messages name the bad field. */
export const ErrorCodes = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
} as const;
