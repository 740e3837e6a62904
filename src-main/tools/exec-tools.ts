import { isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import { extractApplyPatchInvocation } from './apply-patch';
import type { ExecSessionManager } from './exec';
import type { CommandRequest } from './orchestrator';
import { functionTool, type ToolHandler } from './types';

/** Parameters every command tool takes for approvals (used by the approval flow). */
const approvalParams = {
  sandbox_permissions: z.enum(['use_default', 'require_escalated']).optional(),
  justification: z.string().optional(),
  prefix_rule: z.array(z.string()).optional(),
};

const ExecCommandArgs = z.object({
  cmd: z.string().min(1, 'cmd must not be empty'),
  workdir: z.string().optional(),
  shell: z.string().optional(),
  login: z.boolean().optional(),
  tty: z.boolean().optional(),
  yield_time_ms: z.number().int().nonnegative().optional(),
  max_output_tokens: z.number().int().positive().optional(),
  ...approvalParams,
});

const WriteStdinArgs = z.object({
  session_id: z.number().int(),
  chars: z.string().optional(),
  yield_time_ms: z.number().int().nonnegative().optional(),
  max_output_tokens: z.number().int().positive().optional(),
});

const approvalSchemaProps = {
  sandbox_permissions: {
    type: 'string',
    enum: ['use_default', 'require_escalated'],
    description:
      'Sandbox permissions for the command. Set to "require_escalated" to request running without sandbox restrictions; defaults to "use_default".',
  },
  justification: {
    type: 'string',
    description:
      'Only set if sandbox_permissions is "require_escalated". One short question asking the user to approve, e.g. "Do you want to run the test suite with network access?"',
  },
  prefix_rule: {
    type: 'array',
    items: { type: 'string' },
    description:
      'Only set if sandbox_permissions is "require_escalated". A command prefix (argv words) the user could approve once for similar future commands, e.g. ["npm", "test"].',
  },
};

export function execCommandTool(manager: ExecSessionManager): ToolHandler {
  return functionTool({
    name: 'exec_command',
    parallel: true,
    args: ExecCommandArgs,
    spec: {
      type: 'function',
      name: 'exec_command',
      description: 'Runs a command in a PTY, returning output or a session ID for ongoing interaction.',
      strict: false,
      parameters: {
        type: 'object',
        properties: {
          cmd: { type: 'string', description: 'Shell command to execute.' },
          workdir: {
            type: 'string',
            description: 'Optional working directory to run the command in; defaults to the turn cwd.',
          },
          shell: { type: 'string', description: "Shell binary to launch. Defaults to the user's default shell." },
          login: { type: 'boolean', description: 'Whether to run the shell with -l/-i semantics. Defaults to true.' },
          tty: {
            type: 'boolean',
            description:
              'Whether to allocate a TTY for the command. Defaults to false (plain pipes); set to true to open a PTY and access TTY process.',
          },
          yield_time_ms: {
            type: 'number',
            description: 'How long to wait (in milliseconds) for output before yielding.',
          },
          max_output_tokens: {
            type: 'number',
            description: 'Maximum number of tokens to return. Excess output will be truncated.',
          },
          ...approvalSchemaProps,
        },
        required: ['cmd'],
        additionalProperties: false,
      },
    },
    handle: async (args: z.output<typeof ExecCommandArgs>, _call, ctx) => {
      const workdir = args.workdir
        ? isAbsolute(args.workdir)
          ? args.workdir
          : resolve(ctx.cwd, args.workdir)
        : ctx.cwd;
      if (extractApplyPatchInvocation(args.cmd)) {
        // Models trained on shell-only harnesses send patches as heredocs; they go through the patch path.
        const result = await ctx.orchestrator.runPatch(ctx, args.cmd, workdir);
        const warning =
          'Warning: apply_patch was requested via exec_command. Use the apply_patch tool instead of exec_command.';
        return { ...result, output: `${warning}\n${typeof result.output === 'string' ? result.output : ''}` };
      }
      const command: CommandRequest = {
        cmd: args.cmd,
        workdir,
        escalationRequested: args.sandbox_permissions === 'require_escalated',
        justification: args.justification,
        prefixRule: args.prefix_rule,
      };
      return ctx.orchestrator.runCommand(ctx, command, (onOutput, launcher) =>
        manager.exec(
          {
            cmd: args.cmd,
            workdir,
            shell: args.shell,
            login: args.login,
            tty: args.tty,
            yieldTimeMs: args.yield_time_ms,
            maxOutputTokens: args.max_output_tokens,
            launcher,
            turnId: ctx.turnId,
          },
          { signal: ctx.signal, onOutput },
        ),
      );
    },
  });
}

export function writeStdinTool(manager: ExecSessionManager): ToolHandler {
  return functionTool({
    name: 'write_stdin',
    parallel: false,
    args: WriteStdinArgs,
    spec: {
      type: 'function',
      name: 'write_stdin',
      description: 'Writes characters to an existing unified exec session and returns recent output.',
      strict: false,
      parameters: {
        type: 'object',
        properties: {
          session_id: { type: 'number', description: 'Identifier of the running unified exec session.' },
          chars: { type: 'string', description: 'Bytes to write to stdin (may be empty to poll).' },
          yield_time_ms: {
            type: 'number',
            description: 'How long to wait (in milliseconds) for output before yielding.',
          },
          max_output_tokens: {
            type: 'number',
            description: 'Maximum number of tokens to return. Excess output will be truncated.',
          },
        },
        required: ['session_id'],
        additionalProperties: false,
      },
    },
    handle: async (args: z.output<typeof WriteStdinArgs>, _call, ctx) => {
      const result = await manager.writeStdin(
        {
          sessionId: args.session_id,
          chars: args.chars,
          yieldTimeMs: args.yield_time_ms,
          maxOutputTokens: args.max_output_tokens,
        },
        { signal: ctx.signal },
      );
      // What the command changed since the last look belongs to the turn that started it.
      await ctx.orchestrator.recordChanges(ctx, result.turnId === undefined ? {} : { owner: result.turnId });
      return { output: result.text, success: result.exitCode === null || result.exitCode === 0 };
    },
  });
}
