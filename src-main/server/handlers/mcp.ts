import type { McpServerStatus } from '../../../src-preload/protocol';
import { McpManager } from '../../mcp/manager';
import { callResultOf } from '../../mcp/tools';
import { errorMessage } from '../../util/errors';
import type { HandlerTable } from '../dispatcher';
import { invalidParams, invalidRequest } from '../rpc-error';
import { threadConfig } from '../thread-factory';
import type { HandlerContext } from './context';

type McpHandlers = Pick<HandlerTable, 'mcpServerStatus/list' | 'config/mcpServer/reload' | 'mcpServer/tool/call'>;

export function mcpHandlers(ctx: HandlerContext): McpHandlers {
  const { manager, environment } = ctx;
  const threadMcp = (threadId: string): McpManager => {
    const entry = manager.get(threadId);
    if (!entry) throw invalidParams(`thread ${threadId} is not loaded; call thread/resume first`);
    const mcp = entry.session.options.mcp;
    if (!mcp) throw invalidRequest(`thread ${threadId} has no MCP servers`);
    return mcp;
  };
  return {
    'mcpServerStatus/list': async (params) => {
      let data: McpServerStatus[];
      if (params?.threadId) {
        data = threadMcp(params.threadId).statuses();
      } else {
        // No thread: start the configured servers once, list them, and stop them again.
        const { loaded } = await threadConfig(environment, {}, environment.defaultCwd);
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
        const { loaded } = await threadConfig(environment, {}, entry.session.currentSettings.cwd);
        await mcp.reload(loaded.config.mcp_servers);
      }
      return {};
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
