// The one place that decides how a tool call that acts on the machine (or through an MCP server) runs: approval → the sandbox →
// run → on a sandbox denial, the escalation path. Every command and every patch goes through it, so no
// tool can run without the session's safety services: they are required, never optional.
import { runCommandItem, type CommandRequest, type CommandRunner } from './command-run';
import { runMcpItem, type McpCallRequest } from './mcp-run';
import { runPatchItem } from './patch-run';
import type { SafetyServices } from './safety-services';
import type { ToolContext, ToolResult } from './types';

export type { CommandRequest, CommandRunner } from './command-run';
export type { PatchReview } from './patch-run';

export class ToolOrchestrator {
  constructor(readonly safety: SafetyServices) {}

  /** A command as a `commandExecution` item; `run` starts it with the launcher chosen for it. */
  runCommand(ctx: ToolContext, command: CommandRequest, run: CommandRunner): Promise<ToolResult> {
    return runCommandItem(this.safety, ctx, command, run);
  }

  /** A patch as a `fileChange` item; relative paths in it resolve against `baseDir` (default the cwd). */
  runPatch(ctx: ToolContext, text: string, baseDir: string = ctx.cwd): Promise<ToolResult> {
    return runPatchItem(this.safety, ctx, text, baseDir);
  }

  /** An MCP tool call as an `mcpToolCall` item, asked about as its server's and tool's settings say. */
  runMcpCall(ctx: ToolContext, request: McpCallRequest): Promise<ToolResult> {
    return runMcpItem(this.safety, ctx, request);
  }
}
