import { describe, expect, it } from 'vitest';
import type { BridgeNotification, BridgeServerRequest, RpcOutcome, WeftBridge } from '../../../src-preload/bridge';
import type { ClientRequestMethod, ParamsInput } from '../../../src-preload/protocol';
import { createBridgeClient, RpcError } from '../../../src-renderer/client';
import type { ConnectionState } from '../../../src-renderer/client';

/** A bridge whose answers the test scripts per method. */
function fakeBridge(answers: Partial<Record<ClientRequestMethod, RpcOutcome<ClientRequestMethod>>>) {
  const calls: { method: string; params: unknown }[] = [];
  const notificationListeners = new Set<(n: BridgeNotification) => void>();
  const responses: unknown[] = [];
  const bridge: WeftBridge = {
    platform: 'linux',
    request<M extends ClientRequestMethod>(method: M, params: ParamsInput<M>): Promise<RpcOutcome<M>> {
      calls.push({ method, params });
      const answer = answers[method];
      if (answer === undefined) return Promise.reject(new Error(`unscripted ${method}`));
      // The scripted outcome was written for this method.
      return Promise.resolve(answer as RpcOutcome<M>);
    },
    onNotification(listener) {
      notificationListeners.add(listener);
      return () => notificationListeners.delete(listener);
    },
    onServerRequest: (_listener: (r: BridgeServerRequest) => void) => () => undefined,
    respond: (request, result) => void responses.push({ request, result }),
    onShellEvent: () => () => undefined,
    openProject: () => Promise.resolve(false),
    chooseFolder: () => Promise.resolve(null),
  };
  return { bridge, calls, notificationListeners, responses };
}

const init = {
  ok: true as const,
  result: { userAgent: 'weft', codexHome: '/h', platformFamily: 'unix' as const, platformOs: 'linux' as const },
};

describe('createBridgeClient', () => {
  it('initializes first, then turns outcomes into results and RpcErrors', async () => {
    const fake = fakeBridge({
      initialize: init,
      'thread/list': { ok: true, result: { data: [], nextCursor: null } },
      'thread/read': { ok: false, error: { code: -32602, message: 'no such thread' } },
    });
    const client = createBridgeClient(fake.bridge, { name: 'weft-ui', version: '1' });
    const seen: ConnectionState[] = [];
    client.onConnection((s) => seen.push(s));
    expect(await client.request('thread/list', {})).toEqual({ data: [], nextCursor: null });
    await expect(client.request('thread/read', { threadId: 'x' })).rejects.toEqual(
      new RpcError('thread/read', -32602, 'no such thread'),
    );
    expect(fake.calls.map((c) => c.method)).toEqual(['initialize', 'thread/list', 'thread/read']);
    expect(fake.calls[0]?.params).toEqual({ clientInfo: { name: 'weft-ui', version: '1' } });
    expect(seen).toEqual([{ phase: 'connecting' }, { phase: 'open' }]);
    client.dispose();
  });

  it('reports a refused handshake as failed and unsubscribes from the bridge on dispose', async () => {
    const fake = fakeBridge({ initialize: { ok: false, error: { code: -32600, message: 'Already initialized' } } });
    const client = createBridgeClient(fake.bridge, { name: 'weft-ui', version: '1' });
    client.onNotification(() => undefined);
    expect(fake.notificationListeners.size).toBe(1);
    await expect(client.request('model/list', {})).rejects.toThrow('Already initialized');
    expect(client.state).toEqual({
      phase: 'failed',
      message: 'The desktop app refused the handshake: Already initialized',
    });
    client.dispose();
    expect(fake.notificationListeners.size).toBe(0);
  });
});
