/**
 * The MCP servers an ACP client hands a session, as config overrides of that thread
 * (`mcp_servers.NAME = {...}`, the same keys as config.toml), so they join the servers the user
 * configured for the thread's lifetime.
 */
import type { McpServer } from '@agentclientprotocol/sdk';
import type { JsonValue } from '../../../src-preload/protocol';

export function mcpServerOverrides(servers: readonly McpServer[]): Record<string, JsonValue> {
  const overrides: Record<string, JsonValue> = {};
  for (const server of servers) {
    const key = `mcp_servers.${JSON.stringify(server.name)}`;
    if ('type' in server && (server.type === 'http' || server.type === 'sse')) {
      const headers = Object.fromEntries(server.headers.map((h) => [h.name, h.value]));
      overrides[key] =
        Object.keys(headers).length > 0 ? { url: server.url, http_headers: headers } : { url: server.url };
    } else if ('command' in server) {
      const env = Object.fromEntries(server.env.map((e) => [e.name, e.value]));
      overrides[key] =
        Object.keys(env).length > 0
          ? { command: server.command, args: server.args, env }
          : { command: server.command, args: server.args };
    }
  }
  return overrides;
}
