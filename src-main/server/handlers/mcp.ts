import type { McpServerStatus } from '../../../src-preload/protocol';
import { McpManager } from '../../mcp/manager';
import { callResultOf } from '../../mcp/tools';
import { errorMessage } from '../../util/errors';
import type { HandlerTable } from '../dispatcher';
import { invalidParams, invalidRequest } from '../rpc-error';
import { resolveCwd, threadConfig } from '../thread-factory';
import type { HandlerContext } from './context';
import type { Disposable } from '../../util/disposable';

type McpHandlers = Pick<
  HandlerTable,
  'mcpServerStatus/list' | 'config/mcpServer/reload' | 'mcpServer/tool/call' | 'mcpServer/oauth/login'
>;

/** Sign-ins started by `mcpServer/oauth/login` and still waiting for the browser: one per server. */
export class McpLogins implements Disposable {
  private readonly running = new Map<string, { abort: AbortController; done: Promise<unknown> }>();

  /** Runs `login` for `server`, giving up the one already running for it. */
  run(server: string, login: (signal: AbortSignal) => Promise<void>): Promise<void> {
    this.running.get(server)?.abort.abort();
    const abort = new AbortController();
    const done = login(abort.signal).finally(() => {
      if (this.running.get(server)?.abort === abort) this.running.delete(server);
    });
    this.running.set(server, { abort, done: done.catch(() => undefined) });
    return done;
  }

  /** `dispose`. */
  close(): Promise<void> {
    return this.dispose();
  }

  /** Gives up every sign-in and waits for their listeners to close (the app server is closing). */
  async dispose(): Promise<void> {
    const all = [...this.running.values()];
    for (const r of all) r.abort.abort();
    await Promise.all(all.map((r) => r.done));
  }
}

export function mcpHandlers(ctx: HandlerContext, logins: McpLogins = new McpLogins()): McpHandlers {
  const { manager, environment } = ctx;
  const loadedEntry = (threadId: string) => {
    const entry = manager.get(threadId);
    if (!entry) throw invalidParams(`thread ${threadId} is not loaded; call thread/resume first`);
    return entry;
  };
  const threadMcp = (threadId: string): McpManager => {
    const mcp = loadedEntry(threadId).session.options.mcp;
    if (!mcp) throw invalidRequest(`thread ${threadId} has no MCP servers`);
    return mcp;
  };
  return {
    'mcpServerStatus/list': async (params) => {
      let data: McpServerStatus[];
      if (params?.threadId) {
        data = threadMcp(params.threadId).statuses();
      } else {
        // No thread: start the servers configured for the project named once, list them, and stop them again.
        const cwd = resolveCwd(params?.weftCwd, environment.defaultCwd);
        const { loaded } = await threadConfig(environment, {}, cwd);
        const probe = new McpManager({
          threadId: '',
          servers: loaded.config.mcp_servers,
          env: environment.env,
          weftHome: environment.weftHome,
          emit: () => undefined,
        });
        try {
          await probe.ready(new AbortController().signal).catch(() => undefined);
          data = probe.statuses();
        } finally {
          await probe.close();
        }
      }
      if (params?.serverName) data = data.filter((s) => s.name === params.serverName);
      return { data, nextCursor: null };
    },
    'config/mcpServer/reload': async () => {
      for (const id of manager.loadedIds()) {
        const entry = manager.get(id);
        const mcp = entry?.session.options.mcp;
        if (!entry || !mcp) continue;
        const { cwd, sandboxPolicy } = entry.session.currentSettings;
        // A read-only thread keeps the project's MCP servers stopped (they would run outside its sandbox).
        const overrides = sandboxPolicy.type === 'readOnly' ? { sandbox: 'read-only' as const } : {};
        const { loaded } = await threadConfig(environment, overrides, cwd);
        await mcp.reload(loaded.config.mcp_servers);
      }
      return {};
    },
    'mcpServer/oauth/login': async (params) => {
      const { name } = params;
      // The servers of the thread named (its cwd now), else of `weftCwd`, else of the server's `--cd`.
      const cwd = params.threadId
        ? loadedEntry(params.threadId).session.currentSettings.cwd
        : resolveCwd(params.weftCwd, environment.defaultCwd);
      const { loaded } = await threadConfig(environment, {}, cwd);
      const server = loaded.config.mcp_servers[name];
      if (server === undefined) throw invalidParams(`params.name: no MCP server named "${name}" in the config`);
      const url = server.url;
      if (url === undefined)
        throw invalidParams(`params.name: "${name}" is a stdio server; OAuth is for servers reached by URL`);
      const scopes = params.scopes ?? server.scopes;
      let shown: (url: string | null) => void = () => undefined;
      const authorizationUrl = new Promise<string | null>((resolve) => (shown = resolve));
      // Loaded on use: the OAuth module pulls in the MCP SDK, which a host without sign-ins never needs.
      const { mcpLogin } = await import('../../mcp/oauth');
      const login = logins.run(name, (signal) =>
        mcpLogin({
          weftHome: environment.weftHome,
          server: name,
          url,
          ...(scopes === undefined ? {} : { scopes }),
          timeoutMs: (params.timeoutSecs ?? 300) * 1000,
          signal,
          open: async (u) => shown(u.href),
        }),
      );
      // The request answers with the URL to open (or null when no browser was needed); the outcome
      // follows as a notification, once the threads' copies of the server have restarted with the sign-in.
      let answered = false;
      void login.then(
        async () => {
          shown(null);
          for (const id of manager.loadedIds()) {
            const mcp = manager.get(id)?.session.options.mcp;
            // A restart that fails shows in that thread's server status; the sign-in itself succeeded.
            if (mcp?.connection(name)?.config.url === url) await mcp.restartServer(name).catch(() => undefined);
          }
          manager.broadcast({ method: 'mcpServer/oauthLogin/completed', params: { name, success: true, error: null } });
        },
        (error: unknown) => {
          // Failing before the URL was shown fails the request itself (below).
          if (answered)
            manager.broadcast({
              method: 'mcpServer/oauthLogin/completed',
              params: { name, success: false, error: errorMessage(error) },
            });
        },
      );
      const result = await Promise.race([authorizationUrl, login.then(() => null)]).catch((error: unknown) => {
        throw invalidRequest(`sign-in to MCP server "${name}" failed: ${errorMessage(error)}`);
      });
      answered = true;
      return { authorizationUrl: result };
    },
    'mcpServer/tool/call': async (params) => {
      const mcp = threadMcp(params.threadId);
      await mcp.ready(new AbortController().signal).catch(() => undefined);
      const connection = mcp.connection(params.server);
      if (!connection)
        throw invalidParams(`params.server: thread ${params.threadId} has no MCP server named "${params.server}"`);
      const args = params.arguments;
      const record = args !== null && typeof args === 'object' && !Array.isArray(args) ? args : {};
      try {
        return callResultOf(await connection.callTool(params.tool, record, { signal: new AbortController().signal }));
      } catch (error) {
        throw invalidRequest(`${params.server}/${params.tool}: ${errorMessage(error)}`);
      }
    },
  };
}
