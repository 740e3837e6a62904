// Store calls from handlers: the store's errors become the JSON-RPC errors a client can act on, whether
// the call returns or waits, and the synchronous wrapper cannot be handed a call that waits.
import { describe, expect, it } from 'vitest';
import { ErrorCodes } from '../../../src-preload/protocol';
import { storeCall, storeCallAsync } from '../../../src-main/server/handlers/store-call';
import { RpcError } from '../../../src-main/server/rpc-error';
import { StoreInputError, ThreadLockedError, ThreadNotFoundError } from '../../../src-main/store/errors';

const rpc = (code: number, message: string) => new RpcError(code, message);

/** What `fn` throws. */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('nothing was thrown');
}

describe('storeCall', () => {
  it('turns the store errors of a synchronous call into JSON-RPC errors', () => {
    const missing = new ThreadNotFoundError('t-1', '/home/ada/.weft');
    expect(
      thrown(() =>
        storeCall(() => {
          throw missing;
        }),
      ),
    ).toEqual(rpc(ErrorCodes.InvalidParams, missing.message));
    expect(
      thrown(() =>
        storeCall(() => {
          throw new ThreadLockedError('t-1');
        }),
      ),
    ).toEqual(rpc(ErrorCodes.InvalidRequest, new ThreadLockedError('t-1').message));
    expect(storeCall(() => 42)).toBe(42);
  });

  it('turns the rejections of a call that waits into JSON-RPC errors', async () => {
    const missing = new ThreadNotFoundError('t-2', '/home/ada/.weft');
    await expect(storeCallAsync(() => Promise.reject(missing))).rejects.toEqual(
      rpc(ErrorCodes.InvalidParams, missing.message),
    );
    await expect(storeCallAsync(() => Promise.reject(new StoreInputError('numTurns must be …')))).rejects.toEqual(
      rpc(ErrorCodes.InvalidParams, 'numTurns must be …'),
    );
  });

  it('does not compile with a call that waits (its rejection would escape as an internal error)', async () => {
    const waits = (): Promise<number> => Promise.reject(new ThreadNotFoundError('t-3', '/home/ada/.weft'));
    // @ts-expect-error storeCall refuses promise-returning functions by type: use storeCallAsync.
    const escaped = storeCall(waits);
    // What the type rules out: the store's error passes through untranslated.
    await expect(escaped).rejects.toBeInstanceOf(ThreadNotFoundError);
  });
});
