import type { z } from 'zod';
import type {
  AskForApproval,
  ContentItem,
  JsonValue,
  NotificationParams,
  SandboxPolicy,
  ServerNotification,
  ServerRequest,
  ServerRequestMethod,
  ServerRequestParams,
} from '../../src-preload/protocol';
import type { ToolSpec } from '../model/types';
import type { CommandLauncher, ExecResult } from './exec/types';
import type { TurnDiffTracker } from './turn-diff';

/** A tool call the model made, as the router sees it. */
export type ToolCall =
  | { kind: 'function'; callId: string; name: string; arguments: string; namespace?: string }
  | { kind: 'custom'; callId: string; name: string; input: string };

/** What goes back to the model as the call's output. */
export interface ToolResult {
  output: string | ContentItem[];
  /** False when the call failed; the model still gets the output. */
  success: boolean;
  /**
   * What PostToolUse hooks get as `tool_response` when it is not `output` (a command's own output, an MCP
   * tool's result as the server sent it).
   */
  hookResponse?: unknown;
  /** What PreToolUse / PostToolUse hooks asked to tell the model (`additionalContext`), in the order they ran. */
  hookContext?: string[];
}

/** A tool call as hooks see it (Codex's names: `Bash` for commands, `apply_patch`, MCP tools' names). */
export interface HookToolCall {
  toolName: string;
  toolInput: unknown;
  toolUseId: string;
}

/** What the hooks of one tool event decided: a block's reason (null: none), and context for the model. */
export interface ToolHookOutcome {
  blockReason: string | null;
  context: string[];
}

/** The thread's PreToolUse / PostToolUse hooks, as the router runs them around every call. */
export interface ToolHooks {
  /** A block's reason when a hook blocked the call (it is then not run). */
  preToolUse(call: HookToolCall, turnId: string): Promise<ToolHookOutcome>;
  /** After the call; a block here cannot undo it (Codex ignores it too), its context is kept. */
  postToolUse(call: HookToolCall & { toolResponse: unknown }, turnId: string): Promise<ToolHookOutcome>;
}

/** `T` with the fields named `K` made optional. */
type Loosen<T, K extends PropertyKey> = Omit<T, K & keyof T> & Partial<Pick<T, K & keyof T>>;

/**
 * A server request as tools build it. The session fills in what it knows better: `startedAtMs` on
 * approvals, `isBlocking` on questions.
 */
export type ToolServerRequest = {
  [M in ServerRequestMethod]: { method: M; params: Loosen<ServerRequestParams<M>, 'startedAtMs' | 'isBlocking'> };
}[ServerRequestMethod];

/** Sends a server request (approval, user input) to whoever drives the session and awaits the answer. */
export type ServerRequestSender = <R extends ToolServerRequest>(request: R, signal: AbortSignal) => Promise<unknown>;

/** How the host of a session (app server, `weft exec`) answers server requests, as they go on the wire. */
export type HostRequestSender = (request: ServerRequest, signal: AbortSignal) => Promise<unknown>;

/**
 * A notification as the core emits it. The session stamps `item/started` with `startedAtMs` and
 * `item/completed` with `completedAtMs` before anyone sees it.
 */
export type CoreNotification =
  | Exclude<ServerNotification, { method: 'item/started' | 'item/completed' }>
  | { method: 'item/started'; params: Loosen<NotificationParams<'item/started'>, 'startedAtMs'> }
  | { method: 'item/completed'; params: Loosen<NotificationParams<'item/completed'>, 'completedAtMs'> };

/** Everything a tool handler may use while it runs one call. */
export interface ToolContext {
  threadId: string;
  turnId: string;
  /** The turn's working directory (absolute). */
  cwd: string;
  /** Aborts when the turn is interrupted. */
  signal: AbortSignal;
  emit(notification: CoreNotification): void;
  sendRequest: ServerRequestSender;
  /** Extra input the next model request should carry (e.g. an image a tool loaded). */
  addPendingInput?(items: ContentItem[]): void;
  /** Collects the turn's aggregated diff. */
  turnDiff?: TurnDiffTracker;
  /** The turn's approval and sandbox policies. */
  policy: { approvalPolicy: AskForApproval; sandboxPolicy: SandboxPolicy };
  /** False: the turn may ask the person nothing (`TurnSettings.questions`); absent = it may. */
  questions?: boolean;
  /** Decides approval and sandbox for every command and patch. */
  orchestrator: Orchestrator;
  /** The session's environment (for $TMPDIR, the Weft home and the like). */
  env: Record<string, string | undefined>;
  /** Ends the whole turn as interrupted (the user chose "cancel" in an approval). */
  cancelTurn(): void;
  /** The thread's tool hooks; absent when it has none. */
  hooks?: ToolHooks;
}

interface ToolHandlerBase {
  name: string;
  /** Calls of tools that allow it run concurrently; others run alone, in call order. */
  parallel: boolean;
  spec: ToolSpec;
}

export interface FunctionToolHandler<S extends z.ZodType = z.ZodType> extends ToolHandlerBase {
  kind: 'function';
  args: S;
  handle(args: z.output<S>, call: ToolCall, ctx: ToolContext): Promise<ToolResult>;
}

export interface CustomToolHandler extends ToolHandlerBase {
  kind: 'custom';
  handle(input: string, call: ToolCall, ctx: ToolContext): Promise<ToolResult>;
}

export type ToolHandler = FunctionToolHandler | CustomToolHandler;

/**
 * Builds a function tool, keeping the argument type tied to its schema. The widening cast is sound:
 * the router only ever calls `handle` with the output of this same `args` schema.
 */
export function functionTool<S extends z.ZodType>(handler: Omit<FunctionToolHandler<S>, 'kind'>): FunctionToolHandler {
  return { kind: 'function', ...handler } as unknown as FunctionToolHandler;
}

/**
 * The one way tools act on the machine or call MCP servers (implemented by `ToolOrchestrator` in
 * orchestrator.ts): approval → the sandbox → run → on a sandbox denial, the escalation path.
 */
export interface Orchestrator {
  /** A command as a `commandExecution` item; `run` starts it with the launcher chosen for it. */
  runCommand(ctx: ToolContext, command: CommandRequest, run: CommandRunner): Promise<ToolResult>;
  /** A patch as a `fileChange` item; relative paths in it resolve against `baseDir` (default the cwd). */
  runPatch(ctx: ToolContext, text: string, baseDir?: string): Promise<ToolResult>;
  /**
   * Records what changed in the workspace since the last look as the turn `owner`'s (default this turn's):
   * e.g. after polling a command that turn started.
   */
  recordChanges(ctx: ToolContext, options?: { owner?: string }): Promise<void>;
  /** An MCP tool call as an `mcpToolCall` item. */
  runMcpCall(ctx: ToolContext, request: McpCallRequest): Promise<ToolResult>;
}

export interface CommandRequest {
  cmd: string;
  /** Absolute folder the command starts in. */
  workdir: string;
  escalationRequested: boolean;
  justification?: string;
  prefixRule?: string[];
}

/** Runs the command with a launcher (the sandbox chosen for it); output deltas go to `onOutput`. */
export type CommandRunner = (onOutput: (chunk: string) => void, launcher: CommandLauncher) => Promise<ExecResult>;

/** When to ask before a call: `on-request` asks unless the tool says it only reads. */
export type McpApproval = 'never' | 'on-request' | 'always';

/** A progress notification of the server: the number, the total if known, and its message if any. */
export interface McpProgress {
  progress: number;
  total?: number;
  message?: string;
}

/** What the server returned, in MCP's shape. */
export interface McpCallResult {
  content: JsonValue[];
  structuredContent?: JsonValue;
  isError?: boolean;
  _meta?: JsonValue;
}

export interface McpCallRequest {
  server: string;
  tool: string;
  arguments: Record<string, JsonValue>;
  approval: McpApproval;
  annotations: { readOnlyHint?: boolean; destructiveHint?: boolean } | undefined;
  /** Runs the call; progress messages go to the item. */
  call(signal: AbortSignal, onProgress: (progress: McpProgress) => void): Promise<McpCallResult>;
  /** The model's output for a finished call. */
  output(result: McpCallResult, durationMs: number): ToolResult['output'];
}
