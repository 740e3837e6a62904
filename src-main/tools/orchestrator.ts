// The one place that decides how a tool call that acts on the machine (or through an MCP server) runs: approval → the sandbox →
// run → on a sandbox denial, the escalation path. Every command and every patch goes through it, so no
// tool can run without the session's safety services: they are required, never optional.
import { runCommandItem } from './command-run';
import { runMcpItem } from './mcp-run';
import { othersRunning, ownerOf, type BackgroundSessions } from './background-changes';
import type { BackgroundCommand, CheckpointedChange, FileCheckpoints } from './file-checkpoints';
import { runPatchItem } from './patch-run';
import { sendTurnDiff } from './turn-diff-send';
import type { SafetyServices } from './safety-services';
import type { CommandRequest, CommandRunner, McpCallRequest, Orchestrator, ToolContext, ToolResult } from './types';

export type { CommandRequest, CommandRunner } from './types';

export class ToolOrchestrator implements Orchestrator {
  constructor(
    readonly safety: SafetyServices,
    /** Checkpoints of the files each call changes (absent: none are taken). */
    private readonly checkpoints: FileCheckpoints | null = null,
    /** The commands left running in the background (absent: none are). */
    private readonly background: BackgroundSessions | null = null,
  ) {}

  /**
   * A command as a `commandExecution` item; `run` starts it with the launcher chosen for it. The
   * workspace is checkpointed right before the command runs (after any approval) and right after.
   */
  runCommand(ctx: ToolContext, command: CommandRequest, run: CommandRunner): Promise<ToolResult> {
    const checkpointed: CommandRunner = async (onOutput, launcher) => {
      const others = await this.takeStock(ctx);
      try {
        return await run(onOutput, launcher);
      } finally {
        await this.recordChanges(ctx, { background: others });
      }
    };
    return runCommandItem(this.safety, ctx, command, this.checkpoints === null ? run : checkpointed);
  }

  /** A patch as a `fileChange` item; relative paths in it resolve against `baseDir` (default the cwd). */
  async runPatch(ctx: ToolContext, text: string, baseDir: string = ctx.cwd): Promise<ToolResult> {
    const others = await this.takeStock(ctx);
    try {
      return await runPatchItem(this.safety, ctx, text, baseDir);
    } finally {
      await this.recordChanges(ctx, { background: others });
    }
  }

  /**
   * Records what changed in the workspace since the last look as the turn `owner`'s (default this
   * turn's; e.g. after a command that kept running in the background was polled: the turn that started
   * it). What this turn changed joins its diff, and `turn/diff/updated` goes out when that changed. A
   * checkpoint that fails never fails the call: the thread's clients get a `warning` naming the reason,
   * and the turn is marked as not undoable.
   */
  async recordChanges(
    ctx: ToolContext,
    options: { owner?: string; background?: readonly BackgroundCommand[] } = {},
  ): Promise<void> {
    if (this.checkpoints === null) return;
    const turnId = options.owner ?? ctx.turnId;
    try {
      const record = await this.checkpoints.afterToolCall({
        threadId: ctx.threadId,
        turnId,
        callId: null,
        root: ctx.cwd,
        ...(options.background === undefined || options.background.length === 0
          ? {}
          : { background: options.background }),
      });
      if (record !== null && turnId === ctx.turnId) await this.joinTurnDiff(ctx, record.changes);
    } catch (error) {
      await this.checkpointFailed(ctx, 'after', error);
    }
  }

  /**
   * Takes stock before a call: what changed since the last look is recorded as the turn of the oldest
   * command running in the background, if any (see background-changes.ts). Returns the commands of other
   * turns still running, which the call's record names.
   */
  private async takeStock(ctx: ToolContext): Promise<BackgroundCommand[]> {
    if (this.checkpoints === null) return [];
    const seen = this.background?.backgroundSessions() ?? [];
    const owner = ownerOf(seen);
    try {
      const record = await this.checkpoints.beforeChange(
        ctx.cwd,
        owner === null ? undefined : { threadId: ctx.threadId, turnId: owner },
      );
      if (record !== null && owner === ctx.turnId) await this.joinTurnDiff(ctx, record.changes);
    } catch (error) {
      await this.checkpointFailed(ctx, 'before', error);
    }
    this.background?.forgetExited(seen.filter((s) => s.exited).map((s) => s.sessionId));
    return othersRunning(seen, ctx.turnId);
  }

  /** Adds what this turn changed to its diff; sends `turn/diff/updated` when the diff is not what was last sent. */
  private async joinTurnDiff(ctx: ToolContext, changes: readonly CheckpointedChange[]): Promise<void> {
    const turnDiff = ctx.turnDiff;
    if (turnDiff === undefined || this.checkpoints === null || changes.length === 0) return;
    await turnDiff.addRecorded(changes, ctx.cwd, this.checkpoints);
    await sendTurnDiff(ctx, turnDiff, false);
  }

  private async checkpointFailed(ctx: ToolContext, when: 'before' | 'after', error: unknown): Promise<void> {
    const reason = error instanceof Error ? error.message : String(error);
    ctx.emit({
      method: 'warning',
      params: {
        threadId: ctx.threadId,
        message: `Checkpoint of the files in ${ctx.cwd} failed ${when === 'before' ? 'before' : 'after'} a tool call (${reason}): Undo of this turn cannot put back what the call changed.`,
      },
    });
    try {
      await this.checkpoints?.checkpointFailed({ threadId: ctx.threadId, turnId: ctx.turnId, root: ctx.cwd, reason });
    } catch {
      /* the service keeps it in memory too; the warning above has told the user */
    }
  }

  /** An MCP tool call as an `mcpToolCall` item, asked about as its server's and tool's settings say. */
  runMcpCall(ctx: ToolContext, request: McpCallRequest): Promise<ToolResult> {
    return runMcpItem(this.safety, ctx, request);
  }
}
