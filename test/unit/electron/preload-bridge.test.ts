// The preload's bridge, driven through a fake IPC (as the main process would answer).
import { describe, expect, it } from 'vitest';
import { IpcChannels, createWeftBridge } from '../../../src-preload/bridge';
import type { BridgeIpc, BridgeNotification, BridgeServerRequest, ShellEvent } from '../../../src-preload/bridge';

type FakeIpc = BridgeIpc & {
  sent: [string, unknown][];
  invoked: [string, unknown][];
  answer: unknown;
  emit(channel: string, message: unknown): void;
  listeners(): number;
};

function fakeIpc(): FakeIpc {
  const listeners = new Map<string, Set<(message: unknown) => void>>();
  return {
    sent: [],
    invoked: [],
    answer: undefined,
    invoke(channel, argument) {
      this.invoked.push([channel, argument]);
      return Promise.resolve(this.answer);
    },
    send(channel, message) {
      this.sent.push([channel, message]);
    },
    on(channel, listener) {
      const set = listeners.get(channel) ?? new Set();
      set.add(listener);
      listeners.set(channel, set);
      return () => set.delete(listener);
    },
    emit(channel, message) {
      for (const listener of [...(listeners.get(channel) ?? [])]) listener(message);
    },
    listeners: () => [...listeners.values()].reduce((n, set) => n + set.size, 0),
  };
}

const rpcSent = (ipc: { sent: [string, unknown][] }): unknown[] =>
  ipc.sent.filter(([channel]) => channel === IpcChannels.rpc).map(([, message]) => message);

const initializeResult = {
  userAgent: 'weft/0.1.0',
  codexHome: '/home/me/.weft',
  platformFamily: 'unix',
  platformOs: 'linux',
};

describe('createWeftBridge', () => {
  it('announces the page, and exposes only the documented members', () => {
    const ipc = fakeIpc();
    const bridge = createWeftBridge(ipc, 'linux');
    expect(ipc.sent).toEqual([[IpcChannels.open, null]]);
    expect(Object.keys(bridge).sort()).toEqual([
      'chooseFolder',
      'onNotification',
      'onServerRequest',
      'onShellEvent',
      'openProject',
      'platform',
      'request',
      'respond',
    ]);
    expect([bridge.platform, createWeftBridge(fakeIpc(), 'freebsd').platform]).toEqual(['linux', 'other']);
  });

  it('initialize resolves with the parsed result and completes the handshake', async () => {
    const ipc = fakeIpc();
    const bridge = createWeftBridge(ipc, 'darwin');
    const outcome = bridge.request('initialize', { clientInfo: { name: 'weft-desktop', version: '0.1.0' } });
    expect(rpcSent(ipc)).toEqual([
      { id: 1, method: 'initialize', params: { clientInfo: { name: 'weft-desktop', version: '0.1.0' } } },
    ]);
    ipc.emit(IpcChannels.rpc, { id: 1, result: initializeResult });
    expect(await outcome).toEqual({ ok: true, result: initializeResult });
    expect(rpcSent(ipc).at(-1)).toEqual({ method: 'initialized' });
  });

  it('server errors resolve with the code intact; no `initialized` after a failed initialize', async () => {
    const ipc = fakeIpc();
    const bridge = createWeftBridge(ipc, 'linux');
    const first = bridge.request('initialize', { clientInfo: { name: 'x', version: '1' } });
    const second = bridge.request('thread/archive', { threadId: '0190d6e2-0000-7000-8000-000000000000' });
    ipc.emit(IpcChannels.rpc, { id: 2, error: { code: -32602, message: 'params.threadId: not found' } });
    ipc.emit(IpcChannels.rpc, { id: 1, error: { code: -32600, message: 'Already initialized' } });
    expect(await second).toEqual({ ok: false, error: { code: -32602, message: 'params.threadId: not found' } });
    expect(await first).toEqual({ ok: false, error: { code: -32600, message: 'Already initialized' } });
    expect(
      rpcSent(ipc).filter((m) => typeof m === 'object' && m !== null && 'method' in m && m.method === 'initialized'),
    ).toEqual([]);
  });

  it('a malformed result becomes an internal error naming the field', async () => {
    const ipc = fakeIpc();
    const bridge = createWeftBridge(ipc, 'linux');
    const outcome = bridge.request('initialize', { clientInfo: { name: 'x', version: '1' } });
    ipc.emit(IpcChannels.rpc, { id: 1, result: { ...initializeResult, platformOs: 'beos' } });
    const settled = await outcome;
    expect(settled.ok).toBe(false);
    expect(settled.ok ? '' : settled.error.message).toMatch(
      /^The app's answer to initialize is malformed \(result\.platformOs/,
    );
    expect(settled.ok ? 0 : settled.error.code).toBe(-32603);
  });

  it('refuses a method the protocol does not have', async () => {
    const bridge = createWeftBridge(fakeIpc(), 'linux');
    // A page could call anything at run time; the types forbid it, so this goes through a widened reference.
    const request: (method: string, params: unknown) => Promise<unknown> = bridge.request.bind(bridge) as never;
    await expect(request('shell/exec', {})).rejects.toThrow('"shell/exec" is not a method of the Weft protocol.');
  });

  it('delivers parsed notifications and drops unknown or malformed ones', () => {
    const ipc = fakeIpc();
    const bridge = createWeftBridge(ipc, 'linux');
    const seen: BridgeNotification[] = [];
    const unsubscribe = bridge.onNotification((n) => seen.push(n));
    const warnings: unknown[] = [];
    const originalWarn = console.warn;
    console.warn = (message: unknown) => warnings.push(message);
    try {
      ipc.emit(IpcChannels.rpc, { method: 'warning', params: { message: 'careful' } });
      ipc.emit(IpcChannels.rpc, { method: 'future/thing', params: {} });
      ipc.emit(IpcChannels.rpc, { method: 'warning', params: { message: 42 } });
    } finally {
      console.warn = originalWarn;
    }
    expect(warnings).toEqual([
      'weft bridge: dropped a message: unknown notification future/thing',
      'weft bridge: dropped a message: notification warning: params.message: expected string, received number',
    ]);
    unsubscribe();
    ipc.emit(IpcChannels.rpc, { method: 'warning', params: { message: 'after' } });
    expect(seen).toEqual([{ method: 'warning', params: { message: 'careful' } }]);
  });

  it('one throwing listener does not stop the others', () => {
    const ipc = fakeIpc();
    const bridge = createWeftBridge(ipc, 'linux');
    const seen: string[] = [];
    bridge.onNotification(() => {
      throw new Error('listener bug');
    });
    bridge.onNotification((n) => seen.push(n.method));
    const originalError = console.error;
    console.error = () => undefined;
    try {
      ipc.emit(IpcChannels.rpc, { method: 'warning', params: { message: 'x' } });
    } finally {
      console.error = originalError;
    }
    expect(seen).toEqual(['warning']);
  });

  it('holds server requests until someone listens, then answers each once', () => {
    const ipc = fakeIpc();
    const bridge = createWeftBridge(ipc, 'linux');
    const approval = {
      id: 'srv-1',
      method: 'item/fileChange/requestApproval',
      params: { threadId: 't', turnId: 'u', itemId: 'i', startedAtMs: 1_759_320_000_000 },
    };
    ipc.emit(IpcChannels.rpc, approval);
    const seen: BridgeServerRequest[] = [];
    bridge.onServerRequest((request) => seen.push(request));
    expect(seen).toEqual([approval]);
    const [request] = seen;
    if (request === undefined || request.method !== 'item/fileChange/requestApproval') throw new Error('no approval');
    bridge.respond(request, { decision: 'accept' });
    expect(rpcSent(ipc).at(-1)).toEqual({ id: 'srv-1', result: { decision: 'accept' } });
    expect(() => bridge.respond(request, { decision: 'accept' })).toThrow(/no pending server request with id "srv-1"/);
  });

  it('refuses a malformed answer and keeps the request open', () => {
    const ipc = fakeIpc();
    const bridge = createWeftBridge(ipc, 'linux');
    ipc.emit(IpcChannels.rpc, {
      id: 7,
      method: 'item/fileChange/requestApproval',
      params: { threadId: 't', turnId: 'u', itemId: 'i', startedAtMs: 1_759_320_000_000 },
    });
    const answer: (request: { id: number; method: 'item/fileChange/requestApproval' }, result: unknown) => void =
      bridge.respond.bind(bridge) as never;
    expect(() => answer({ id: 7, method: 'item/fileChange/requestApproval' }, { decision: 'maybe' })).toThrow(
      /^The answer to item\/fileChange\/requestApproval is malformed \(result\.decision/,
    );
    bridge.respond({ id: 7, method: 'item/fileChange/requestApproval' }, { decision: 'decline' });
    expect(rpcSent(ipc).at(-1)).toEqual({ id: 7, result: { decision: 'decline' } });
  });

  it('a request resolved by the server (interrupt) can no longer be answered', () => {
    const ipc = fakeIpc();
    const bridge = createWeftBridge(ipc, 'linux');
    ipc.emit(IpcChannels.rpc, {
      id: 3,
      method: 'item/fileChange/requestApproval',
      params: { threadId: 't', turnId: 'u', itemId: 'i', startedAtMs: 1_759_320_000_000 },
    });
    ipc.emit(IpcChannels.rpc, { method: 'serverRequest/resolved', params: { threadId: 't', requestId: 3 } });
    expect(() => bridge.respond({ id: 3, method: 'item/fileChange/requestApproval' }, { decision: 'accept' })).toThrow(
      /no pending server request/,
    );
  });

  it('answers unknown or malformed server requests with an error so the server never waits', () => {
    const ipc = fakeIpc();
    createWeftBridge(ipc, 'linux');
    ipc.emit(IpcChannels.rpc, { id: 10, method: 'item/tool/launchRockets', params: {} });
    ipc.emit(IpcChannels.rpc, { id: 11, method: 'item/commandExecution/requestApproval', params: { threadId: 't' } });
    const [unknown, malformed] = rpcSent(ipc);
    expect(unknown).toEqual({
      id: 10,
      error: { code: -32601, message: 'The desktop app does not handle the server request "item/tool/launchRockets".' },
    });
    expect(malformed).toMatchObject({
      id: 11,
      error: {
        code: -32602,
        message: expect.stringMatching(/^item\/commandExecution\/requestApproval: params\.turnId/),
      },
    });
  });

  it('ignores responses to unknown ids and non-JSON-RPC noise', async () => {
    const ipc = fakeIpc();
    const bridge = createWeftBridge(ipc, 'linux');
    const outcome = bridge.request('thread/archive', { threadId: '0190d6e2-0000-7000-8000-000000000000' });
    const originalWarn = console.warn;
    const warnings: unknown[] = [];
    console.warn = (...args: unknown[]) => warnings.push(args);
    try {
      ipc.emit(IpcChannels.rpc, { id: 99, result: {} });
      ipc.emit(IpcChannels.rpc, 'garbage');
      ipc.emit(IpcChannels.rpc, { id: 1, result: {} });
    } finally {
      console.warn = originalWarn;
    }
    expect(await outcome).toEqual({ ok: true, result: {} });
    expect(warnings).toHaveLength(1);
  });

  it('delivers shell events that parse, and unsubscribes', () => {
    const ipc = fakeIpc();
    const bridge = createWeftBridge(ipc, 'linux');
    const seen: ShellEvent[] = [];
    const off = bridge.onShellEvent((event) => seen.push(event));
    ipc.emit(IpcChannels.shell, { type: 'focusThread', threadId: 'th-9' });
    ipc.emit(IpcChannels.shell, { type: 'formatDisk' });
    ipc.emit(IpcChannels.shell, { type: 'openProject', path: '/src/other' });
    ipc.emit(IpcChannels.shell, { type: 'openProject', path: '' });
    off();
    ipc.emit(IpcChannels.shell, { type: 'newThread' });
    expect(seen).toEqual([
      { type: 'focusThread', threadId: 'th-9' },
      { type: 'openProject', path: '/src/other' },
    ]);
  });

  it('openProject asks the shell, and is true only when the shell says so', async () => {
    const ipc = fakeIpc();
    const bridge = createWeftBridge(ipc, 'linux');
    ipc.answer = true;
    expect(await bridge.openProject('/src/other')).toBe(true);
    ipc.answer = 'yes';
    expect(await bridge.openProject(null)).toBe(false);
    expect(ipc.invoked).toEqual([
      [IpcChannels.openProject, '/src/other'],
      [IpcChannels.openProject, null],
    ]);
    await expect(bridge.openProject('')).rejects.toThrow(/absolute folder path/);
  });

  it('chooseFolder asks the shell, and gives the folder only when the shell names one', async () => {
    const ipc = fakeIpc();
    const bridge = createWeftBridge(ipc, 'linux');
    ipc.answer = '/src/other';
    expect(await bridge.chooseFolder()).toBe('/src/other');
    ipc.answer = null;
    expect(await bridge.chooseFolder()).toBeNull();
    ipc.answer = 42;
    expect(await bridge.chooseFolder()).toBeNull();
    expect(ipc.invoked).toEqual([
      [IpcChannels.chooseFolder, null],
      [IpcChannels.chooseFolder, null],
      [IpcChannels.chooseFolder, null],
    ]);
  });
});
