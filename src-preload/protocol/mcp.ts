// MCP servers of a thread, in Codex's shapes: `mcpServerStatus/list`, `config/mcpServer/reload`,
// `mcpServer/tool/call`, `mcpServer/oauth/login`, and the `mcpServer/startupStatus/updated` /
// `item/mcpToolCall/progress` / `mcpServer/oauthLogin/completed` notifications. Weft's additions are named `weft…`.
import { z } from 'zod';
import { lazySchema } from './lazy-schema';
import { WeftEnvironmentName } from './weft-environments';
import { JsonValue } from './common';

/**
 * An MCP tool call waiting for the person's yes is asked as `item/tool/requestUserInput` whose `itemId` is
 * the call's `mcpToolCall` item and whose one question has this id, these option labels as answers, and
 * `destructiveNote` at the end of its text when the server says the tool may change or delete things.
 * Clients that know it draw an approval; the others show the question.
 */
export const MCP_TOOL_APPROVAL = {
  questionId: 'approval',
  header: 'MCP tool',
  allow: 'Allow',
  allowForSession: 'Allow for this session',
  allowAlways: 'Always allow this tool',
  decline: 'Decline',
  destructiveNote: 'The server says this tool may change or delete things.',
} as const;

export const McpServerStartupState = lazySchema(() => z.enum(['starting', 'ready', 'failed', 'cancelled']));
export type McpServerStartupState = z.infer<typeof McpServerStartupState>;

/** A server started, became ready, failed (or exited), or was cancelled. `threadId` null outside a thread. */
export const McpServerStartupStatusUpdatedNotification = lazySchema(() =>
  z.object({
    name: z.string(),
    status: McpServerStartupState,
    error: z.string().nullish(),
    failureReason: z.enum(['reauthenticationRequired']).nullish(),
    threadId: z.string().nullish(),
  }),
);
export type McpServerStartupStatusUpdatedNotification = z.infer<typeof McpServerStartupStatusUpdatedNotification>;

/** Progress of a running `mcpToolCall` item, as the server reported it. */
export const McpToolCallProgressNotification = lazySchema(() =>
  z.object({
    threadId: z.string(),
    turnId: z.string(),
    itemId: z.string(),
    message: z.string(),
    /** The server's progress number (it only grows), and the total when the server knows it. */
    weftProgress: z.number().optional(),
    weftTotal: z.number().nullish(),
  }),
);
export type McpToolCallProgressNotification = z.infer<typeof McpToolCallProgressNotification>;

export const McpServerConnectionStatus = lazySchema(() =>
  z.enum(['notStarted', 'starting', 'connected', 'authenticationRequired', 'failed', 'cancelled', 'disabled']),
);
export type McpServerConnectionStatus = z.infer<typeof McpServerConnectionStatus>;

export const McpToolInfo = lazySchema(() =>
  z.looseObject({
    name: z.string(),
    title: z.string().nullish(),
    description: z.string().nullish(),
    inputSchema: JsonValue,
    annotations: JsonValue.nullish(),
  }),
);
export type McpToolInfo = z.infer<typeof McpToolInfo>;

export const McpServerStatus = lazySchema(() =>
  z.object({
    name: z.string(),
    authStatus: z.enum(['unknown', 'unsupported', 'notLoggedIn', 'bearerToken', 'oAuth']),
    /** The thread's connection; null when the list was made without one. */
    runtimeStatus: McpServerConnectionStatus.nullish(),
    serverInfo: z.object({ name: z.string(), version: z.string(), title: z.string().nullish() }).nullish(),
    /** By tool name: every tool the server lists (including those the config hides from the model). */
    tools: z.record(z.string(), McpToolInfo),
    resources: z.array(JsonValue),
    resourceTemplates: z.array(JsonValue),
    httpOrigin: z.string().nullish(),
    /** How Weft reaches the server. */
    weftTransport: z.enum(['stdio', 'http']).optional(),
    /** false: configured with `enabled = false`. */
    weftEnabled: z.boolean().optional(),
    weftRequired: z.boolean().optional(),
    /** Why the server is not running, if it is not. */
    weftError: z.string().nullish(),
    /** What the server printed (stderr) and Weft noted during its last start, oldest first. */
    weftLog: z.array(z.string()).optional(),
    /** The tool names the model is offered (after enabled_tools / disabled_tools). */
    weftVisibleTools: z.array(z.string()).optional(),
  }),
);
export type McpServerStatus = z.infer<typeof McpServerStatus>;

/**
 * With `threadId`, that thread's servers; without, the servers configured for `weftCwd` (Weft's: the
 * project a client shows; absent = the server's own project) are started to be listed.
 */
export const McpServerStatusListParams = lazySchema(() =>
  z
    .object({
      threadId: z.string().nullish(),
      weftCwd: z.string().nullish(),
      serverName: z.string().nullish(),
      cursor: z.string().nullish(),
      limit: z.number().int().min(0).nullish(),
      detail: z.enum(['full', 'toolsAndAuthOnly']).nullish(),
      /** Weft: on this environment (see `WeftEnvironmentName`). */
      weftEnvironment: WeftEnvironmentName,
    })
    .optional(),
);
export type McpServerStatusListParams = z.infer<typeof McpServerStatusListParams>;

export const McpServerStatusListResult = lazySchema(() =>
  z.object({ data: z.array(McpServerStatus), nextCursor: z.string().nullish() }),
);
export type McpServerStatusListResult = z.infer<typeof McpServerStatusListResult>;

/** Reads config.toml again and restarts the MCP servers of every loaded thread. */
export const McpServerReloadParams = lazySchema(() =>
  z
    .object({
      /** Weft: on this environment (see `WeftEnvironmentName`). */
      weftEnvironment: WeftEnvironmentName,
    })
    .optional(),
);
export type McpServerReloadParams = z.infer<typeof McpServerReloadParams>;
export const McpServerReloadResult = lazySchema(() => z.object({}));
export type McpServerReloadResult = z.infer<typeof McpServerReloadResult>;

/** Calls a tool of one of a loaded thread's servers directly (no model, no approval: the client asked). */
export const McpServerToolCallParams = lazySchema(() =>
  z.object({
    threadId: z.string(),
    server: z.string(),
    tool: z.string(),
    arguments: JsonValue.optional(),
    _meta: JsonValue.optional(),
  }),
);
export type McpServerToolCallParams = z.infer<typeof McpServerToolCallParams>;

export const McpServerToolCallResult = lazySchema(() =>
  z.object({
    content: z.array(JsonValue),
    structuredContent: JsonValue.optional(),
    isError: z.boolean().nullish(),
    _meta: JsonValue.optional(),
  }),
);
export type McpServerToolCallResult = z.infer<typeof McpServerToolCallResult>;

/**
 * Starts the OAuth sign-in of a server reached by URL (what `weft mcp login NAME` does): the client opens
 * `authorizationUrl` in a browser, which comes back to a loopback listener of the app server; the
 * outcome arrives as `mcpServer/oauthLogin/completed`, and the server restarts in the loaded threads.
 */
export const McpServerOauthLoginParams = lazySchema(() =>
  z.object({
    name: z.string(),
    /** The servers of this loaded thread's config (its cwd now). */
    threadId: z.string().nullish(),
    /** Weft's: without `threadId`, the servers configured for this folder (absent = the server's project). */
    weftCwd: z.string().nullish(),
    /** Default: the server's configured `scopes`. */
    scopes: z.array(z.string()).nullish(),
    /** How long the listener waits for the browser (default 300 s). */
    timeoutSecs: z.number().int().positive().nullish(),
  }),
);
export type McpServerOauthLoginParams = z.infer<typeof McpServerOauthLoginParams>;

export const McpServerOauthLoginResult = lazySchema(() =>
  z.object({
    /** Null when the saved sign-in was still good (no browser needed; the notification follows). */
    authorizationUrl: z.string().nullable(),
  }),
);
export type McpServerOauthLoginResult = z.infer<typeof McpServerOauthLoginResult>;

export const McpServerOauthLoginCompletedNotification = lazySchema(() =>
  z.object({
    name: z.string(),
    success: z.boolean(),
    error: z.string().nullish(),
  }),
);
export type McpServerOauthLoginCompletedNotification = z.infer<typeof McpServerOauthLoginCompletedNotification>;
