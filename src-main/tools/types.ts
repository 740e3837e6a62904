import type { z } from 'zod';
import type {
  AskForApproval,
  ContentItem,
  NotificationParams,
  SandboxPolicy,
  ServerNotification,
  ServerRequest,
  ServerRequestMethod,
  ServerRequestParams,
} from '../../src-preload/protocol';
import type { ToolSpec } from '../model/types';
import type { ToolOrchestrator } from './orchestrator';
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
  /** Decides approval and sandbox for every command and patch. */
  orchestrator: ToolOrchestrator;
  /** The session's environment (for $TMPDIR, the Weft home and the like). */
  env: Record<string, string | undefined>;
  /** Ends the whole turn as interrupted (the user chose "cancel" in an approval). */
  cancelTurn(): void;
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
