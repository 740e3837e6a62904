import { keepCompiledCode } from '../util/compiled-code';

/** `weft mcp-server` with its arguments (the words after `mcp-server`). */
export async function mcpServerCommand(argv: string[]): Promise<number> {
  const [{ runMcpServerCommand }, { createAppHost }] = await Promise.all([
    import('./mcp-server'),
    import('../server/app-host'),
  ]);
  return runMcpServerCommand(argv, async ({ cwd }) => {
    const app = await createAppHost({ cwd });
    // A host that started serves: its compiled code is worth keeping for the next start.
    keepCompiledCode();
    return app;
  });
}

/** `weft acp` with its arguments (the words after `acp`): an editor starts one for each of its sessions. */
export async function acpCommand(argv: string[]): Promise<number> {
  const [{ runAcpCommand }, { createAppHost }] = await Promise.all([import('./acp'), import('../server/app-host')]);
  return runAcpCommand(argv, async ({ cwd }) => {
    const app = await createAppHost({ cwd });
    keepCompiledCode();
    return app;
  });
}
