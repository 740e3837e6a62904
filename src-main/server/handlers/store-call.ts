// Store calls from handlers: the store's errors become JSON-RPC errors a client can show as they are.
import { ErrorCodes } from '../../../src-preload/protocol';
import { StoreError, StoreInputError, ThreadLockedError, ThreadNotFoundError } from '../../store/errors';
import { RpcError, invalidParams, invalidRequest } from '../rpc-error';

/**
 * A second argument only a promise-returning `fn` asks for, which no caller can give: `storeCall(async …)`
 * does not compile. (Its error would escape `storeCall`'s try as a rejection, and reach the client as an
 * internal error.)
 */
type SyncOnly<T> = [T] extends [never]
  ? []
  : [T] extends [PromiseLike<unknown>]
    ? [use_storeCallAsync_for_store_calls_that_wait: never]
    : [];

/** A synchronous store call; the store's errors become JSON-RPC errors a client can show as they are. */
export function storeCall<T>(fn: () => T, ..._syncOnly: SyncOnly<T>): T {
  try {
    return fn();
  } catch (error) {
    throw toRpcError(error);
  }
}

/** `storeCall` for store operations that wait: their rejections are translated as well. */
export async function storeCallAsync<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw toRpcError(error);
  }
}

export function toRpcError(error: unknown): unknown {
  if (error instanceof ThreadNotFoundError || error instanceof StoreInputError) return invalidParams(error.message);
  if (error instanceof ThreadLockedError) return invalidRequest(error.message);
  if (error instanceof StoreError) return new RpcError(ErrorCodes.InternalError, error.message);
  return error;
}
