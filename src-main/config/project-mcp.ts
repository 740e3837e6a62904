/**
 * A session that asks for a read-only sandbox itself (`--sandbox read-only`, `-c sandbox_mode=…`, a
 * thread's `sandbox` or `config`) does not start the MCP servers a project's config defines: a stdio
 * server is a command that runs outside the sandbox, which is not what "read-only" promises. Each one
 * left out is reported; the session's own `mcp_servers.<name>.enabled = true` starts it anyway.
 */
import { getPath, isTable } from './document';
import type { ConfigLayer } from './layers';
import type { WeftConfig } from './schema';

export interface HeldBackMcpServer {
  name: string;
  /** The project file (closest to the cwd) that sets the server. */
  file: string;
}

/** `config` without the project's MCP servers when `override` asks for read-only, and the servers left out. */
export function holdBackProjectMcpServers(
  config: WeftConfig,
  projectLayers: readonly ConfigLayer[],
  override: ConfigLayer | null,
): { config: WeftConfig; heldBack: HeldBackMcpServer[] } {
  if (override === null || getPath(override.doc, ['sandbox_mode']) !== 'read-only') return { config, heldBack: [] };
  const heldBack: HeldBackMcpServer[] = [];
  const servers = { ...config.mcp_servers };
  for (const [name, server] of Object.entries(config.mcp_servers)) {
    if (server.enabled === false || getPath(override.doc, ['mcp_servers', name, 'enabled']) === true) continue;
    const setBy = [...projectLayers].reverse().find((layer) => isTable(getPath(layer.doc, ['mcp_servers', name])));
    if (setBy?.file == null) continue;
    heldBack.push({ name, file: setBy.file });
    Reflect.deleteProperty(servers, name);
  }
  return { config: { ...config, mcp_servers: servers }, heldBack };
}
