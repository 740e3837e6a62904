import { ErrorCodes } from '../../src-preload/protocol';

/** An error a handler throws to answer a request with a specific JSON-RPC error. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'RpcError';
  }
}

export const invalidRequest = (message: string): RpcError => new RpcError(ErrorCodes.InvalidRequest, message);
export const invalidParams = (message: string): RpcError => new RpcError(ErrorCodes.InvalidParams, message);
