// Bundles the preload as scripts/build-electron.mjs does and runs it the way a sandboxed renderer would:
// a classic script whose require() knows only `electron`, with no Node globals but `process.platform`,
// and with code generation from strings disabled, as under the page's CSP (no 'unsafe-eval').
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

async function bundlePreload(): Promise<string> {
  const result = await build({
    entryPoints: [join(import.meta.dirname, '../../../src-preload/index.ts')],
    bundle: true,
    format: 'cjs',
    platform: 'browser',
    target: 'chrome140',
    external: ['electron'],
    write: false,
    logLevel: 'silent',
  });
  const text = result.outputFiles[0]?.text;
  if (text === undefined) throw new Error('esbuild produced no preload');
  return text;
}

describe('the bundled preload', () => {
  it('runs with only `electron` to require and exposes window.weft, never ipcRenderer', async () => {
    const code = await bundlePreload();
    const required: string[] = [];
    const exposed = new Map<string, unknown>();
    const sent: [string, unknown][] = [];
    const handlers = new Map<string, (event: unknown, message: unknown) => void>();
    const ipcRenderer = {
      send: (channel: string, message: unknown) => sent.push([channel, message]),
      on: (channel: string, handler: (event: unknown, message: unknown) => void) => handlers.set(channel, handler),
      removeListener: (channel: string) => handlers.delete(channel),
      invoke: (channel: string, argument: unknown) => Promise.resolve([channel, argument]),
    };
    const electron = {
      contextBridge: { exposeInMainWorld: (key: string, api: unknown) => exposed.set(key, api) },
      ipcRenderer,
    };
    const module = { exports: {} };
    runInNewContext(
      code,
      {
        require: (name: string) => {
          required.push(name);
          if (name !== 'electron') throw new Error(`a sandboxed preload cannot require ${name}`);
          return electron;
        },
        module,
        exports: module.exports,
        process: { platform: 'darwin' },
        console,
        // Web APIs every renderer, and so a sandboxed preload, has.
        TextDecoder,
        TextEncoder,
      },
      { contextCodeGeneration: { strings: false, wasm: false } },
    );

    expect(required).toEqual(['electron']);
    expect([...exposed.keys()]).toEqual(['weft']);
    const weft = exposed.get('weft');
    if (typeof weft !== 'object' || weft === null) throw new Error('window.weft is not an object');
    expect(Object.values(weft)).not.toContain(ipcRenderer);
    expect(Object.keys(weft).sort()).toEqual([
      'chooseFolder',
      'onNotification',
      'onServerRequest',
      'onShellEvent',
      'openProject',
      'platform',
      'request',
      'respond',
    ]);
    expect('platform' in weft && weft.platform).toBe('darwin');
    expect(sent).toEqual([['weft:open', null]]);
    expect([...handlers.keys()].sort()).toEqual(['weft:rpc', 'weft:shell']);

    // A page listener gets the message alone, never the IPC event (which carries ipcRenderer as `sender`).
    const received: unknown[][] = [];
    if (!('onShellEvent' in weft) || typeof weft.onShellEvent !== 'function') throw new Error('no onShellEvent');
    weft.onShellEvent((...args: unknown[]) => received.push(args));
    handlers.get('weft:shell')?.({ sender: ipcRenderer }, { type: 'newThread' });
    expect(received).toEqual([[{ type: 'newThread' }]]);

    // Protocol parsing works without eval: a notification with nested objects goes through zod.
    const notifications: unknown[] = [];
    if (!('onNotification' in weft) || typeof weft.onNotification !== 'function') throw new Error('no onNotification');
    weft.onNotification((n: unknown) => notifications.push(n));
    const usage = { totalTokens: 3, inputTokens: 2, cachedInputTokens: 0, outputTokens: 1, reasoningOutputTokens: 0 };
    const params = { threadId: 't', turnId: 'u', tokenUsage: { total: usage, last: usage, modelContextWindow: null } };
    handlers.get('weft:rpc')?.({}, { method: 'thread/tokenUsage/updated', params });
    expect(notifications).toEqual([{ method: 'thread/tokenUsage/updated', params }]);
  });
});
