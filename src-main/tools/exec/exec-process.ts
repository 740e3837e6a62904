// One running command, whichever way it was started (pipes or a PTY).
import { constants as osConstants } from 'node:os';

export interface SpawnOptions {
  cwd: string;
  env: Record<string, string>;
  /** Receives decoded text as it arrives; multi-byte characters are never split between calls. */
  onOutput: (text: string) => void;
}

export interface ExecProcess {
  /** The leader's pid, which is also the id of the process group the command runs in. */
  readonly pid: number;
  readonly tty: boolean;
  /**
   * Resolves with the exit code once the leader has exited and its output has been delivered. A
   * process killed by a signal reports 128 + the signal number, as a shell would.
   */
  readonly exited: Promise<number>;
  /** Sends keystrokes; false when the command has no open stdin (pipe mode) or has exited. */
  write(chars: string): boolean;
  /** Terminates the whole process group (SIGTERM, then SIGKILL after a grace period) and waits for it. */
  kill(): Promise<void>;
}

export function exitCodeFromSignal(signal: NodeJS.Signals | number): number {
  const num = typeof signal === 'number' ? signal : osConstants.signals[signal];
  return 128 + num;
}
