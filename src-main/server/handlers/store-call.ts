// Store calls from handlers: the store's errors become JSON-RPC errors a client can show as they are.
import { ErrorCodes } from '../../../src-preload/protocol';
import { StoreError, StoreInputError, ThreadLockedError, ThreadNotFoundError } from '../../store/errors';
import { RpcError, invalidParams, invalidRequest } from '../rpc-error';

/** Store errors become JSON-RPC errors a client can show as they are. */
export function storeCall<T>(fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    throw toRpcError(error);
  }
}

/** `storeCall` for store operations that wait. */
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
