// `tty: true` commands: a pseudo-terminal from node-pty, for interactive programs (REPLs, prompts). The
// child is a session leader with the PTY as its controlling terminal, so its pid is its process group.
import type * as NodePty from 'node-pty';
import { PTY_COLS, PTY_ROWS } from './constants';
import type { ExecProcess, SpawnOptions } from './exec-process';
import { exitCodeFromSignal } from './exec-process';
import { killProcessGroup, signalGroup, trackGroup } from './process-group';

/**
 * Starts `argv` in a PTY. node-pty is loaded on first use, so a missing native build only affects
 * `tty: true` commands, with an error that says how to fix it.
 */
export async function startPtyProcess(argv: readonly string[], opts: SpawnOptions): Promise<ExecProcess> {
  const [file, ...args] = argv;
  if (file === undefined) throw new Error('cannot start a command from an empty argv');
  let ptyModule: typeof NodePty;
  try {
    ptyModule = await import('node-pty');
  } catch (err) {
    throw new Error(
      `tty: true needs the node-pty native addon, which failed to load (${errorMessage(err)}). ` +
        'Rebuild it with `npm rebuild node-pty`, or run the command with tty: false.',
      { cause: err },
    );
  }
  let term: NodePty.IPty;
  try {
    term = ptyModule.spawn(file, args, {
      name: opts.env.TERM ?? 'xterm-256color',
      cols: PTY_COLS,
      rows: PTY_ROWS,
      cwd: opts.cwd,
      env: opts.env,
    });
  } catch (err) {
    throw new Error(`could not start ${file} in a terminal: ${errorMessage(err)}`, { cause: err });
  }
  const pid = term.pid;
  const untrack = trackGroup(pid);
  let open = true;
  const dataSub = term.onData(opts.onOutput);
  const exited = new Promise<number>((resolve) => {
    // node-pty reports exit only after the terminal's output has been read to the end.
    const exitSub = term.onExit(({ exitCode, signal }) => {
      open = false;
      signalGroup(pid, 'SIGHUP');
      untrack();
      dataSub.dispose();
      exitSub.dispose();
      resolve(signal !== undefined && signal > 0 ? exitCodeFromSignal(signal) : exitCode);
    });
  });
  return {
    pid,
    tty: true,
    exited,
    write: (chars) => {
      if (!open) return false;
      term.write(chars);
      return true;
    },
    kill: () => killProcessGroup(pid, { leaderExited: exited }),
  };
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
