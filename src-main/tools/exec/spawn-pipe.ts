// `tty: false` commands: child_process with stdout and stderr on pipes (merged into one output stream)
// and stdin on /dev/null, as Codex runs non-interactive commands. The child leads its own process group.
// It is started through the spawn host (util/spawn-host), so starting it never forks the host itself.
import type { Readable } from 'node:stream';
import { spawnHosted } from '../../util/spawn-host/hosted-child';
import type { SpawnedChild } from '../../util/spawn-host/hosted-child';
import { PIPE_DRAIN_MS } from './constants';
import type { ExecProcess, SpawnOptions } from './exec-process';
import { exitCodeFromSignal } from './exec-process';
import { killProcessGroup, signalGroup, trackGroup } from './process-group';

/** Starts `argv`; rejects with a readable error if it cannot be started (e.g. the program is missing). */
export function startPipeProcess(argv: readonly string[], opts: SpawnOptions): Promise<ExecProcess> {
  const [file, ...args] = argv;
  if (file === undefined) return Promise.reject(new Error('cannot start a command from an empty argv'));
  const child = spawnHosted(file, args, { cwd: opts.cwd, env: opts.env, detached: true });
  return new Promise((resolve, reject) => {
    child.once('error', (err) => reject(new Error(`could not start ${file}: ${err.message}`)));
    child.once('spawn', () => {
      if (child.pid === undefined) reject(new Error(`could not start ${file}: it has no process id`));
      else resolve(started(child, child.pid, opts));
    });
  });
}

function started(child: SpawnedChild, pid: number, opts: SpawnOptions): ExecProcess {
  child.on('error', () => {
    // Only failed signal deliveries can land here once the process runs; kills are checked separately.
  });
  const untrack = trackGroup(pid);
  pipeDecoded(child.stdout, opts.onOutput);
  pipeDecoded(child.stderr, opts.onOutput);
  const exited = waitForExit(child, pid).finally(untrack);
  return {
    pid,
    tty: false,
    exited,
    write: () => false,
    kill: () => killProcessGroup(pid, { leaderExited: exited }),
  };
}

function waitForExit(child: SpawnedChild, pid: number): Promise<number> {
  return new Promise((resolve) => {
    child.once('exit', (code, signal) => {
      // Whatever the leader left behind in its group gets the hang-up a closing terminal would send.
      signalGroup(pid, 'SIGHUP');
      const exitCode = code ?? (signal === null ? -1 : exitCodeFromSignal(signal));
      const { stdout, stderr } = child;
      if (stdout.closed && stderr.closed) {
        resolve(exitCode);
        return;
      }
      // A background child that ignored the hang-up may hold the pipes open; don't wait for it forever.
      const timer = setTimeout(() => {
        stdout.destroy();
        stderr.destroy();
        resolve(exitCode);
      }, PIPE_DRAIN_MS);
      child.once('close', () => {
        clearTimeout(timer);
        resolve(exitCode);
      });
    });
  });
}

function pipeDecoded(stream: Readable | null, onOutput: (text: string) => void): void {
  if (stream === null) return;
  const decoder = new TextDecoder('utf-8');
  stream.on('data', (chunk: Buffer) => {
    const text = decoder.decode(chunk, { stream: true });
    if (text !== '') onOutput(text);
  });
  stream.on('end', () => {
    const text = decoder.decode();
    if (text !== '') onOutput(text);
  });
  stream.on('error', () => {
    // A pipe destroyed after the command exited; the output already delivered is all there is.
  });
}
