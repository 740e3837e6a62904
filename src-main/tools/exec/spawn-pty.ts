// `tty: true` commands: a pseudo-terminal from node-pty, for interactive programs (REPLs, prompts). The
// child is a session leader with the PTY as its controlling terminal, so its pid is its process group. It
// starts in the spawn host (util/spawn-host), so starting it never forks the host.
import { PtyStartError, spawnHostedPty } from '../../util/spawn-host/hosted-pty';
import type { HostedPty } from '../../util/spawn-host/hosted-pty';
import { PTY_COLS, PTY_ROWS } from './constants';
import type { ExecProcess, SpawnOptions } from './exec-process';
import { exitCodeFromSignal } from './exec-process';
import { killProcessGroup, signalGroup, trackGroup } from './process-group';

/**
 * Starts `argv` in a PTY (through the spawn host). node-pty is loaded on first use, so a missing native
 * build only affects `tty: true` commands, with an error that says how to fix it.
 */
export async function startPtyProcess(argv: readonly string[], opts: SpawnOptions): Promise<ExecProcess> {
  const [file, ...args] = argv;
  if (file === undefined) throw new Error('cannot start a command from an empty argv');
  let term: HostedPty;
  try {
    term = await spawnHostedPty(file, args, {
      name: opts.env.TERM ?? 'xterm-256color',
      cols: PTY_COLS,
      rows: PTY_ROWS,
      cwd: opts.cwd,
      env: opts.env,
    });
  } catch (err) {
    if (err instanceof PtyStartError && err.code === 'NO_PTY')
      throw new Error(
        `tty: true needs the node-pty native addon, which failed to load (${err.message}). ` +
          'Rebuild it with `npm rebuild node-pty`, or run the command with tty: false.',
        { cause: err },
      );
    throw new Error(`could not start ${file} in a terminal: ${errorMessage(err)}`, { cause: err });
  }
  const pid = term.pid;
  const untrack = trackGroup(pid);
  let open = true;
  const decoder = new TextDecoder('utf-8');
  term.onData((chunk) => {
    const text = decoder.decode(chunk, { stream: true });
    if (text !== '') opts.onOutput(text);
  });
  const exited = term.exited.then(({ exitCode, signal }) => {
    open = false;
    const rest = decoder.decode();
    if (rest !== '') opts.onOutput(rest);
    signalGroup(pid, 'SIGHUP');
    untrack();
    return signal !== null ? exitCodeFromSignal(signal) : exitCode;
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
