/** `weft mcp-server` with its arguments (the words after `mcp-server`). */
export async function mcpServerCommand(argv: string[]): Promise<number> {
  const [{ runMcpServerCommand }, { createAppHost }] = await Promise.all([
    import('./mcp-server'),
    import('../server/app-host'),
  ]);
  return runMcpServerCommand(argv, ({ cwd }) => createAppHost({ cwd }));
}
