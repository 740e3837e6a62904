// The setup the hooks integration tests share: per test a mock model, a workspace, a WEFT_HOME that uses the
// model, and a hook recorder (test/support/hook-program.ts) whose runs the hooks.json written here starts;
// `weft` runs the built binary there, `client` starts `weft app-server` (closed after the test).
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { makeHookRecorder, type HookRecorder } from './hook-program';
import { startMockResponsesServer, type MockResponsesServer } from './mock-responses-server';
import { StdioRpcClient } from './rpc-client';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from './workspace';
import { runWeftCli, type WeftRun } from './weft-cli';

export type HookSpec = { event: string; matcher?: string; mode?: string; timeout?: number };

export interface HooksHarness {
  readonly server: MockResponsesServer;
  readonly ws: TempWorkspace;
  readonly home: WeftHome;
  readonly hooks: HookRecorder;
  /** Writes the hooks into WEFT_HOME/hooks.json. */
  writeHooks(specs: HookSpec[]): Promise<void>;
  weft(args: string[]): Promise<WeftRun>;
  /** A `weft app-server` in the workspace, initialized. */
  client(): Promise<StdioRpcClient>;
  /** Trusts every hook configured for the workspace, as it is now. */
  trustAll(c: StdioRpcClient): Promise<void>;
}

const PROVIDER = (url: string, extra: string) =>
  `model = "mock-model"\nmodel_provider = "mock"\n${extra}\n[model_providers.mock]\nname = "Mock"\nbase_url = "${url}"\nenv_key = "MOCK_API_KEY"\nwire_api = "responses"\nrequest_max_retries = 0\n`;

/** Registers the per-test setup; `extraConfig` goes into config.toml before the provider's table. */
export function useHooksHarness(extraConfig = ''): HooksHarness {
  let current: { server: MockResponsesServer; ws: TempWorkspace; home: WeftHome; hooks: HookRecorder } | null = null;
  const cleanups: (() => Promise<void> | void)[] = [];
  const now = () => {
    if (current === null) throw new Error('the hooks harness is used outside a test');
    return current;
  };
  beforeEach(async () => {
    const server = await startMockResponsesServer();
    const ws = await makeTempWorkspace({ 'notes.txt': 'alpha\n' });
    const home = await makeWeftHome(PROVIDER(server.url, extraConfig));
    const dir = join(home.dir, '..', `${home.dir.split('/').pop() ?? 'home'}-hook-runs`);
    await mkdir(dir, { recursive: true });
    current = { server, ws, home, hooks: await makeHookRecorder(dir) };
  });
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
    const done = current;
    current = null;
    if (done === null) return;
    await done.server.close();
    await done.ws.cleanup();
    await done.home.cleanup();
  });
  return {
    get server() {
      return now().server;
    },
    get ws() {
      return now().ws;
    },
    get home() {
      return now().home;
    },
    get hooks() {
      return now().hooks;
    },
    writeHooks: async (specs) => {
      const { home, hooks } = now();
      const table: Record<string, unknown[]> = {};
      for (const s of specs) {
        (table[s.event] ??= []).push({
          ...(s.matcher === undefined ? {} : { matcher: s.matcher }),
          hooks: [{ type: 'command', command: hooks.command(s.event, s.mode), timeout: s.timeout ?? 30 }],
        });
      }
      await writeFile(join(home.dir, 'hooks.json'), JSON.stringify({ hooks: table }, null, 2));
    },
    weft: (args) => runWeftCli(args, { cwd: now().ws.dir, weftHome: now().home.dir }),
    client: async () => {
      const c = StdioRpcClient.start({ WEFT_HOME: now().home.dir, MOCK_API_KEY: 'x' }, now().ws.dir);
      cleanups.push(() => c.close());
      await c.initialize();
      return c;
    },
    trustAll: async (c) => {
      const listed = await c.request<{ data: { hooks: { key: string; currentHash: string }[] }[] }>('hooks/list', {
        cwds: [now().ws.dir],
      });
      const all = listed.data[0]?.hooks ?? [];
      await c.request('weft/hooks/trust', {
        cwd: now().ws.dir,
        hooks: all.map((h) => ({ key: h.key, currentHash: h.currentHash })),
      });
    },
  };
}
