/** `weft apply-patch` with its arguments (the words after `apply-patch`), on this process's stdio. */
export async function applyPatchCommand(argv: string[]): Promise<number> {
  const { runApplyPatchCli } = await import('./apply-patch');
  return runApplyPatchCli(argv, {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    cwd: process.cwd(),
  });
}
