/** `weft acp` with its arguments (the words after `acp`): an editor starts one for each of its sessions. */
export async function acpCommand(argv: string[]): Promise<number> {
  const [{ runAcpCommand }, { createAppHost }] = await Promise.all([import('./acp'), import('../server/app-host')]);
  return runAcpCommand(argv, ({ cwd }) => createAppHost({ cwd }));
}
