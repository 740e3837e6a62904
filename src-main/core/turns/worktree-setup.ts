import type { CommandExecutionItem, ResponseItem } from '../../../src-preload/protocol';
import { commandEnv } from '../../safety/command-env';
import { runPiped, userShellArgv } from '../../terminal/user-shell';
import { parseCommandActions } from '../../tools/command-actions';
import { truncateMiddle } from '../../tools/exec';
import { errorMessage } from '../../util/errors';
import { newItemId } from '../../util/ids';
import type { TurnSettings } from '../types';
import { TurnTask, type TurnEnd, type TurnHost } from './base';

/** Output kept on the item (tokens of ~4 bytes, head and tail): an install prints a lot. */
const ITEM_OUTPUT_TOKENS = 64_000;
/** What the model is told of it. */
const MODEL_OUTPUT_TOKENS = 2_000;

/** How a setup run ended. */
interface SetupRun {
  exitCode: number | null;
  output: string;
  durationMs: number;
  aborted: boolean;
  /** Why it could not run at all (then `exitCode` is null). */
  error: string | null;
}

/**
 * A worktree thread's setup (`[worktree] setup` of the project's config, such as `npm ci`): the command
 * runs in the thread's cwd under the thread's sandbox policy, as a `commandExecution` item marked
 * `weftWorktreeSetup`, its output streamed as `item/commandExecution/outputDelta`. No model request. A
 * failure is the item's (failed, with its exit code) and a `warning`: the turn completes and the thread
 * goes on. The model is told how it went with the next turn.
 */
export class WorktreeSetupTurn extends TurnTask {
  constructor(
    host: TurnHost,
    settings: TurnSettings,
    private readonly script: string,
  ) {
    super(host, settings);
  }

  protected async run(): Promise<TurnEnd> {
    const { threadId } = this.host.options;
    const turnId = this.id;
    const base: CommandExecutionItem = {
      type: 'commandExecution',
      id: newItemId(),
      command: this.script,
      cwd: this.settings.cwd,
      processId: null,
      status: 'inProgress',
      commandActions: parseCommandActions(this.script),
      aggregatedOutput: null,
      exitCode: null,
      durationMs: null,
      weftWorktreeSetup: true,
    };
    this.host.emit({ method: 'item/started', params: { threadId, turnId, item: base } });
    const run = await this.runScript((delta) =>
      this.host.emit({
        method: 'item/commandExecution/outputDelta',
        params: { threadId, turnId, itemId: base.id, delta },
      }),
    );
    const ok = run.exitCode === 0 && !run.aborted;
    const item: CommandExecutionItem = {
      ...base,
      status: ok ? 'completed' : 'failed',
      aggregatedOutput: truncateMiddle(run.output, ITEM_OUTPUT_TOKENS).text,
      exitCode: run.exitCode,
      durationMs: run.durationMs,
      ...(run.error === null
        ? { weftOutcome: run.aborted ? ('stopped' as const) : ('exited' as const) }
        : { weftOutcome: 'error' as const, weftError: run.error }),
    };
    this.host.emit({ method: 'item/completed', params: { threadId, turnId, item } });
    if (!ok && !run.aborted) {
      const why = run.error ?? `it exited with code ${run.exitCode ?? 'unknown'}`;
      this.host.emit({
        method: 'warning',
        params: {
          threadId,
          message: `The worktree setup script \`${this.script}\` failed: ${why}. The thread works in its worktree all the same; run what is missing yourself or ask the agent.`,
        },
      });
    }
    this.host.appendHistory(this.modelNote(run));
    return { status: this.signal.aborted ? 'interrupted' : 'completed', error: null };
  }

  private async runScript(onOutput: (delta: string) => void): Promise<SetupRun> {
    const started = Date.now();
    const { options } = this.host;
    const env = commandEnv(options.env ?? process.env, options.envPolicy);
    const { cwd, sandboxPolicy } = this.settings;
    const failed = (error: string): SetupRun => ({
      exitCode: null,
      output: '',
      durationMs: Date.now() - started,
      aborted: false,
      error,
    });
    const sandbox = await options.safety.sandboxFor(sandboxPolicy, cwd, env);
    // Never run outside the sandbox the thread asked for: nobody is there to approve it.
    if (!sandbox.available) return failed(`the sandbox cannot run (${sandbox.reason}) ${sandbox.fix}`);
    let launched: Awaited<ReturnType<typeof sandbox.launcher>> | null = null;
    try {
      launched = await sandbox.launcher(userShellArgv(this.script, env), { cwd, env });
      const run = await runPiped({
        argv: launched.argv,
        cwd,
        env: launched.env ?? env,
        signal: this.signal,
        onOutput,
      });
      return {
        exitCode: run.exitCode,
        output: run.output,
        durationMs: run.durationMs,
        aborted: run.aborted,
        error: null,
      };
    } catch (error) {
      return failed(`could not start it: ${errorMessage(error)}`);
    } finally {
      await launched?.release?.();
    }
  }

  /** What the model learns with the next turn: the script ran here, and how it ended. */
  private modelNote(run: SetupRun): ResponseItem {
    const ending =
      run.error !== null ? `Not run: ${run.error}` : run.aborted ? 'Stopped' : `Exit code: ${run.exitCode ?? '?'}`;
    const text = [
      '<worktree_setup>',
      "This thread works in a git worktree of its own. The project's setup script ran in it first:",
      '<command>',
      this.script,
      '</command>',
      '<result>',
      ending,
      'Output:',
      truncateMiddle(run.output, MODEL_OUTPUT_TOKENS).text,
      '</result>',
      '</worktree_setup>',
    ].join('\n');
    return { type: 'message', role: 'user', content: [{ type: 'input_text', text }] };
  }
}
