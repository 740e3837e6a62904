// A chip in the thread header that says when MCP servers failed to start or exited; it opens Settings, where the MCP section
// shows why (the server's last start log); Settings opens at that section.
import { useController, useWeft } from '../store/app-context';

export function McpStatusChip() {
  const controller = useController();
  const failures = useWeft((s) => s.data.mcpFailures);
  const names = Object.keys(failures).sort();
  if (names.length === 0) return null;
  const label = names.length === 1 ? `MCP server ${names[0] ?? ''} failed` : `${names.length} MCP servers failed`;
  return (
    <button
      type="button"
      className="mcp-chip"
      title={names.map((n) => `${n}: ${failures[n] ?? ''}`).join('\n')}
      onClick={() => controller.openSettings('mcp')}
    >
      {label}
    </button>
  );
}
