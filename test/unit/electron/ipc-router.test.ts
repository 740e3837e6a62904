import { describe, expect, it } from 'vitest';
import { IpcRouter } from '../../../src-main/electron/ipc-router';
import type { IpcPeer } from '../../../src-main/electron/ipc-router';
import type { ClientSink, ConnectionHost } from '../../../src-main/server/transport';

interface FakeConnection {
  sink: ClientSink;
  received: unknown[];
  closed: boolean;
}

function fakeHost(): ConnectionHost & { connections: FakeConnection[] } {
  const connections: FakeConnection[] = [];
  return {
    connections,
    connect(sink) {
      const connection: FakeConnection = { sink, received: [], closed: false };
      connections.push(connection);
      return {
        receive: (message) => connection.received.push(message),
        close: () => {
          connection.closed = true;
        },
      };
    },
  };
}

function fakePeer(id: number): IpcPeer & { sent: object[]; destroyed: boolean } {
  const peer = {
    id,
    sent: [] as object[],
    destroyed: false,
    send: (message: object) => peer.sent.push(message),
    isDestroyed: () => peer.destroyed,
  };
  return peer;
}

describe('IpcRouter', () => {
  it('gives each page its own connection and routes both ways', () => {
    const host = fakeHost();
    const router = new IpcRouter(host);
    const a = fakePeer(1);
    const b = fakePeer(2);
    router.open(a);
    router.open(b);
    expect(router.receive(1, { id: 1, method: 'initialize' })).toBe(true);
    expect(router.receive(2, { id: 1, method: 'thread/list' })).toBe(true);
    expect(host.connections.map((c) => [c.sink.label, c.received])).toEqual([
      ['ipc window 1', [{ id: 1, method: 'initialize' }]],
      ['ipc window 2', [{ id: 1, method: 'thread/list' }]],
    ]);
    host.connections[1]?.sink.send({ method: 'warning', params: { message: 'hi' } });
    expect([a.sent, b.sent]).toEqual([[], [{ method: 'warning', params: { message: 'hi' } }]]);
  });

  it('drops messages from a page that never opened', () => {
    const router = new IpcRouter(fakeHost());
    expect(router.receive(5, { id: 1, method: 'initialize' })).toBe(false);
  });

  it('a reload closes the old connection and starts a fresh one', () => {
    const host = fakeHost();
    const router = new IpcRouter(host);
    const peer = fakePeer(3);
    router.open(peer);
    router.open(peer);
    expect(host.connections.map((c) => c.closed)).toEqual([true, false]);
    router.receive(3, { method: 'initialized' });
    expect(host.connections[1]?.received).toEqual([{ method: 'initialized' }]);
    expect(router.openCount).toBe(1);
  });

  it('closing is idempotent, and nothing is sent to a destroyed page', () => {
    const host = fakeHost();
    const router = new IpcRouter(host);
    const peer = fakePeer(4);
    router.open(peer);
    peer.destroyed = true;
    host.connections[0]?.sink.send({ method: 'warning', params: { message: 'late' } });
    expect(peer.sent).toEqual([]);
    router.close(4);
    router.close(4);
    expect(host.connections[0]?.closed).toBe(true);
    expect(router.receive(4, {})).toBe(false);
  });

  it('closeAll releases every connection', () => {
    const host = fakeHost();
    const router = new IpcRouter(host);
    router.open(fakePeer(1));
    router.open(fakePeer(2));
    router.closeAll();
    expect(host.connections.map((c) => c.closed)).toEqual([true, true]);
    expect(router.openCount).toBe(0);
  });
});
