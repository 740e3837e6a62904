import type { ApplyPatchCliIo } from './apply-patch';

/**
 * `weft apply-patch` with its arguments (the words after `apply-patch`), on this process's stdio (or on `io`:
 * the one-file build's, without Node's streams; see plain-stdio.ts).
 */
export async function applyPatchCommand(argv: string[], io?: Omit<ApplyPatchCliIo, 'cwd'>): Promise<number> {
  const { runApplyPatchCli } = await import('./apply-patch');
  return runApplyPatchCli(argv, {
    stdin: io?.stdin ?? process.stdin,
    stdout: io?.stdout ?? process.stdout,
    stderr: io?.stderr ?? process.stderr,
    cwd: process.cwd(),
  });
}
