import type { CommandExecutionItem, ResponseItem } from '../../../src-preload/protocol';
import { runUserShell, userShellMessage } from '../../terminal/user-shell';
import { parseCommandActions } from '../../tools/command-actions';
import { errorMessage } from '../../util/errors';
import { newItemId } from '../../util/ids';
import type { SamplingHost } from '../sampling';
import type { TurnSettings } from '../types';

/** The user's own command (`thread/shellCommand`). */
export interface UserShellInput {
  userShell: string;
  timeoutMs: number;
}

/** The turn a user's command runs in (any kind: it runs in a turn of its own or joins the running one). */
interface ShellTurn {
  readonly id: string;
  readonly host: SamplingHost;
  readonly settings: TurnSettings;
  readonly signal: AbortSignal;
}

/** Runs one user command as a `commandExecution` item (source `userShell`); returns the model's view of it. */
export async function shellCommandItem(turn: ShellTurn, input: UserShellInput): Promise<ResponseItem> {
  const { host, settings } = turn;
  const { threadId } = host.options;
  const turnId = turn.id;
  const base: CommandExecutionItem = {
    type: 'commandExecution',
    id: newItemId(),
    command: input.userShell,
    cwd: settings.cwd,
    processId: null,
    source: 'userShell',
    status: 'inProgress',
    commandActions: parseCommandActions(input.userShell),
    aggregatedOutput: null,
    exitCode: null,
    durationMs: null,
  };
  host.emit({ method: 'item/started', params: { threadId, turnId, item: base } });
  try {
    const run = await runUserShell({
      command: input.userShell,
      cwd: settings.cwd,
      env: host.options.env ?? process.env,
      timeoutMs: input.timeoutMs,
      signal: turn.signal,
      onOutput: (delta) =>
        host.emit({
          method: 'item/commandExecution/outputDelta',
          params: { threadId, turnId, itemId: base.id, delta },
        }),
    });
    const item: CommandExecutionItem = {
      ...base,
      status: run.exitCode === 0 && !run.timedOut ? 'completed' : 'failed',
      aggregatedOutput: run.output,
      exitCode: run.exitCode,
      durationMs: run.durationMs,
      weftOutcome: run.aborted ? 'stopped' : 'exited',
    };
    host.emit({ method: 'item/completed', params: { threadId, turnId, item } });
    return userShellMessage(input.userShell, run);
  } catch (e) {
    const weftError = `could not run the command: ${errorMessage(e)}`;
    host.emit({
      method: 'item/completed',
      params: { threadId, turnId, item: { ...base, status: 'failed', weftOutcome: 'error', weftError } },
    });
    return {
      type: 'message',
      role: 'user',
      content: [
        {
          type: 'input_text',
          text: `<user_shell_command>\n<command>\n${input.userShell}\n</command>\n<result>\n${weftError}\n</result>\n</user_shell_command>`,
        },
      ],
    };
  }
}
