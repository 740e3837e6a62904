import { readFile, stat } from 'node:fs/promises';
import { platform } from 'node:os';
import type { ServerNotification } from '../../src-preload/protocol';
import { resolveWeftHome } from '../config/home';
import { rulesDir } from '../safety/approvals/rules';
import { ThreadStore } from '../store/thread-store';
import { sharedRuleStore } from '../tools/safety-services';
import { VERSION } from '../version';
import { RpcDispatcher } from './dispatcher';
import { threadHandlers } from './handlers/threads';
import { serviceHandlers } from './handlers/services';
import { turnHandlers } from './handlers/turns';
import type { HostEnvironment } from './thread-factory';
import { ThreadManager } from './thread-manager';
import type { ConnectionHost } from './transport';

export interface AppHostOptions {
  weftHome?: string;
  env?: NodeJS.ProcessEnv;
  /** Project new threads open on when the client names no cwd (default: the process cwd). */
  cwd?: string;
  log?: (line: string) => void;
  /** Idle threads with no subscriber are unloaded after this long (default 30 minutes). */
  unloadAfterMs?: number;
  modelClient?: HostEnvironment['modelClient'];
}

export interface AttentionEvent {
  threadId: string;
  kind: 'approval' | 'turnFinished';
  title: string;
}

export interface AppHost {
  host: ConnectionHost;
  /** Threads needing the person (an approval or question waits, a turn finished). */
  onAttention(listener: (e: AttentionEvent) => void): () => void;
  close(): Promise<void>;
}

/** The whole agent behind the protocol: store, threads, sessions and the dispatcher. */
export async function createAppHost(options: AppHostOptions = {}): Promise<AppHost> {
  const env = options.env ?? process.env;
  const weftHome = options.weftHome ?? resolveWeftHome(env);
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const store = ThreadStore.open(weftHome, { onWarning: (m) => log(`weft app-server: warning: ${m}`) });
  const rules = await sharedRuleStore(rulesDir(weftHome), (w) => log(`weft app-server: warning: ${w}`));
  const environment: HostEnvironment = { weftHome, env, defaultCwd: options.cwd ?? process.cwd(), rules, log, modelClient: options.modelClient };
  const manager = new ThreadManager({ log, unloadAfterMs: options.unloadAfterMs ?? 30 * 60_000 });
  const attention = new Set<(e: AttentionEvent) => void>();
  const notifyAttention = (threadId: string, n: ServerNotification): void => {
    if (attention.size === 0) return;
    const title = manager.get(threadId)?.thread.name ?? manager.get(threadId)?.thread.preview ?? 'Weft';
    if (n.method === 'thread/status/changed' && n.params.status.type === 'active' && n.params.status.activeFlags.length > 0) {
      for (const l of attention) l({ threadId, kind: 'approval', title });
    }
    if (n.method === 'turn/completed') for (const l of attention) l({ threadId, kind: 'turnFinished', title });
  };
  const context = { store, manager, environment, onSessionEvent: notifyAttention };
  const dispatcher = new RpcDispatcher({
    handlers: {
      ...threadHandlers(context),
      ...turnHandlers(context),
      ...serviceHandlers(context),
      initialize: async () => {
        throw new Error('initialize is handled by the dispatcher');
      },
      'fs/readFile': async (params) => {
        const info = await stat(params.path).catch(() => null);
        if (!info?.isFile()) throw new Error(`${params.path} is not a readable file`);
        if (info.size > 50 * 1024 * 1024) throw new Error(`${params.path} is ${(info.size / 1048576).toFixed(0)} MiB; files over 50 MiB are not sent`);
        return { dataBase64: (await readFile(params.path)).toString('base64') };
      },
    },
    serverInfo: () => ({
      userAgent: `weft/${VERSION} (${platform()}; node ${process.versions.node})`,
      codexHome: weftHome,
      platformFamily: process.platform === 'win32' ? 'windows' : 'unix',
      platformOs: process.platform === 'darwin' ? 'macos' : process.platform === 'win32' ? 'windows' : 'linux',
    }),
    log,
  });
  return {
    host: dispatcher,
    onAttention: (listener) => {
      attention.add(listener);
      return () => attention.delete(listener);
    },
    close: async () => {
      await manager.closeAll();
      await store.close();
    },
  };
}
