/**
 * The hook tables as written, in `hooks.json` (`{"hooks": {"PreToolUse": [...]}}`) and in config.toml
 * (`[[hooks.PreToolUse]]` … `[[hooks.PreToolUse.hooks]]`), the same keys as Codex 0.169. Events are spelled
 * PascalCase in files; the wire uses camelCase (`HookEventName`). `[hooks.state."<key>"]` in the user's
 * config.toml records what the user decided about each hook (`trusted_hash`, `enabled`).
 */
import { z } from 'zod';
import type { HookEventName } from '../../../src-preload/protocol';

export const HOOK_EVENTS = [
  'SessionStart',
  'SessionEnd',
  'UserPromptSubmit',
  'PreToolUse',
  'PermissionRequest',
  'PostToolUse',
  'PreCompact',
  'PostCompact',
  'SubagentStart',
  'SubagentStop',
  'Stop',
  'Interrupt',
] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

/** Codex's default when a hook sets no `timeout` (seconds). */
export const DEFAULT_HOOK_TIMEOUT_SEC = 600;

export const commandHandlerSchema = z.strictObject({
  type: z.literal('command'),
  command: z.string().min(1, 'must be the command to run'),
  /** Seconds; the hook is killed (its whole process group) when it runs longer. */
  timeout: z.int().min(1, 'must be at least 1 second').optional(),
  /** Codex's alias of `timeout`. */
  timeoutSec: z.int().min(1, 'must be at least 1 second').optional(),
  statusMessage: z.string().optional(),
  /** true: started and not waited for (its decisions are ignored). */
  async: z.boolean().optional(),
  commandWindows: z.string().optional(),
});

/**
 * A hook that calls a tool of one of the thread's MCP servers (`[mcp_servers.<server>]`) with `input` as
 * its arguments; the tool's text content is read as a command hook's stdout JSON.
 */
const mcpToolHandlerSchema = z.strictObject({
  type: z.literal('mcp_tool'),
  server: z.string().min(1, 'must name a configured MCP server'),
  tool: z.string().min(1, 'must name a tool of the server'),
  input: z.record(z.string(), z.unknown()).optional(),
  timeout: z.int().min(1, 'must be at least 1 second').optional(),
  timeoutSec: z.int().min(1, 'must be at least 1 second').optional(),
  statusMessage: z.string().optional(),
  async: z.boolean().optional(),
});

/** What a hook runs: a command (`/bin/sh -c`), or a tool of a configured MCP server. */
export type HookAction =
  | { type: 'command'; command: string }
  | { type: 'mcpTool'; server: string; tool: string; input: Record<string, unknown> };

export const handlerSchema = z.discriminatedUnion('type', [commandHandlerSchema, mcpToolHandlerSchema], {
  error: 'must have type = "command" (or "mcp_tool")',
});

export const groupSchema = z.strictObject({
  /** A regular expression over the tool name (`Bash`, `apply_patch`, `mcp__server__tool`); absent or `*`: every tool. */
  matcher: z.string().optional(),
  hooks: z.array(handlerSchema),
});

export const hookStateSchema = z.strictObject({
  trusted_hash: z
    .string()
    .regex(/^sha256:[0-9a-f]{64}$/, 'must be "sha256:" and 64 hex digits')
    .optional(),
  enabled: z.boolean().optional(),
});
export type HookState = z.infer<typeof hookStateSchema>;

/** `PreToolUse` → `preToolUse` (the wire's name). */
export function wireEventName(event: HookEvent): HookEventName {
  const map: Record<HookEvent, HookEventName> = {
    SessionStart: 'sessionStart',
    SessionEnd: 'sessionEnd',
    UserPromptSubmit: 'userPromptSubmit',
    PreToolUse: 'preToolUse',
    PermissionRequest: 'permissionRequest',
    PostToolUse: 'postToolUse',
    PreCompact: 'preCompact',
    PostCompact: 'postCompact',
    SubagentStart: 'subagentStart',
    SubagentStop: 'subagentStop',
    Stop: 'stop',
    Interrupt: 'interrupt',
  };
  return map[event];
}

/** `PreToolUse` → `pre_tool_use` (the event's part of a hook's key and hash). */
export function snakeEventName(event: HookEvent): string {
  return event.replace(/[A-Z]/g, (c, i: number) => (i === 0 ? '' : '_') + c.toLowerCase());
}

export function isHookEvent(name: string): name is HookEvent {
  return (HOOK_EVENTS as readonly string[]).includes(name);
}
