// `weft apply-patch`: apply a patch in the current directory and print what the model would be told.

import { realpathSync } from 'node:fs';
import { resolve, sep } from 'node:path';
import { isInsidePath, resolveForWrite } from '../safety/sandbox/writable-roots';
import { applyPatchText } from '../tools/apply-patch';
import type { CliInput, CliOutput } from './plain-stdio';

export interface ApplyPatchCliIo {
  stdin: CliInput;
  stdout: CliOutput;
  stderr: CliOutput;
  cwd: string;
}

export const APPLY_PATCH_USAGE = `Usage: weft apply-patch [--root DIR] [PATCH]

Applies a patch in the apply_patch format to files under the current directory:

  *** Begin Patch
  *** Update File: src/app.ts
  @@ function main() {
  -  run();
  +  await run();
  *** End Patch

The patch is the PATCH argument, or standard input when there is no argument. Every hunk is checked
before anything is written: if any fails, no file is changed.

Only files under the current directory are written (paths are resolved through symlinks, also while
writing), never anything in a .git folder. --root DIR allows writing anywhere under DIR instead.

Exit status: 0 applied, 1 the patch could not be applied, 2 usage error.
`;

function write(stream: CliOutput, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    stream.write(text, (error) => (error ? reject(error) : resolve()));
  });
}

async function readAll(stream: CliInput): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/** Runs the command; resolves to the exit status (0 applied, 1 rejected, 2 usage). */
export async function runApplyPatchCli(args: string[], io: ApplyPatchCliIo): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    await write(io.stdout, APPLY_PATCH_USAGE);
    return 0;
  }
  let rootArg: string | null = null;
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '--root') {
      const value = args[++i];
      if (value === undefined) {
        await write(io.stderr, `weft apply-patch: --root needs a folder.\n\n${APPLY_PATCH_USAGE}`);
        return 2;
      }
      rootArg = value;
    } else if (arg.startsWith('--root=')) {
      rootArg = arg.slice('--root='.length);
    } else {
      positional.push(arg);
    }
  }
  if (positional.length > 1) {
    await write(
      io.stderr,
      `weft apply-patch: expected at most one argument (the patch), got ${positional.length}.\n\n${APPLY_PATCH_USAGE}`,
    );
    return 2;
  }
  let root: string;
  try {
    root = realpathSync(resolve(io.cwd, rootArg ?? '.'));
  } catch {
    await write(io.stderr, `weft apply-patch: the folder ${rootArg ?? io.cwd} does not exist.\n`);
    return 2;
  }
  let patch = positional[0];
  if (patch === undefined) {
    if (io.stdin.isTTY === true) {
      await write(
        io.stderr,
        `weft apply-patch: no patch given; pass it as an argument or on standard input.\n\n${APPLY_PATCH_USAGE}`,
      );
      return 2;
    }
    patch = await readAll(io.stdin);
  }
  if (patch.trim() === '') {
    await write(io.stderr, `weft apply-patch: the patch is empty.\n\n${APPLY_PATCH_USAGE}`);
    return 2;
  }
  const resolved = new Map<string, string | null>();
  /** Why the resolved (symlink-free) `real` may not be written, given as `absPath`; null when it may. */
  const refusal = (real: string, absPath: string): string | null => {
    if (!isInsidePath(real, root))
      return `it is outside ${root}${rootArg === null ? ' (the current directory; --root widens it)' : ''}`;
    if (real.split(sep).includes('.git') || absPath.split(sep).includes('.git')) return 'it is inside a .git folder';
    return null;
  };
  const confine = (absPath: string): string | null => {
    const real = resolveForWrite(absPath, resolved);
    return real === null ? 'it is a symlink loop' : refusal(real, absPath);
  };
  // At write time the writer has just resolved the path itself (see CommitOptions.mayWrite): resolving it
  // again would look up every file a second time.
  const outcome = await applyPatchText(patch, {
    cwd: io.cwd,
    isWritable: confine,
    mayWrite: (real) => refusal(real, real),
    // A one-shot command: nothing else waits for this process's event loop.
    blocking: true,
  });
  if (outcome.ok) {
    await write(io.stdout, outcome.output);
    return 0;
  }
  await write(io.stderr, outcome.output.endsWith('\n') ? outcome.output : `${outcome.output}\n`);
  return 1;
}
