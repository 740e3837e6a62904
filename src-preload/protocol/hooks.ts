// Lifecycle hooks: the user's programs run at points of a thread's life (Codex's `hooks/list`,
// `hook/started`, `hook/completed`, same names and shapes as Codex 0.169's app-server v2 schema; what
// Codex itself sends is kept in test/fixtures/codex-hooks-0.169). Weft's additions are prefixed `weft`.
import { z } from 'zod';
import { lazySchema } from './lazy-schema';
import { WeftEnvironmentName } from './weft-environments';

/** Codex's event names on the wire (camelCase); config files spell them PascalCase (`PreToolUse`). */
export const HookEventName = lazySchema(() =>
  z.enum([
    'preModelRequest',
    'postModelRequest',
    'preToolUse',
    'permissionRequest',
    'postToolUse',
    'preCompact',
    'postCompact',
    'sessionStart',
    'sessionEnd',
    'userPromptSubmit',
    'subagentStart',
    'subagentStop',
    'stop',
    'interrupt',
  ]),
);
export type HookEventName = z.infer<typeof HookEventName>;

export const HookHandlerType = lazySchema(() => z.enum(['command', 'mcpTool', 'prompt', 'agent']));
export type HookHandlerType = z.infer<typeof HookHandlerType>;

/** `async`: started and not waited for (`async = true` in the config). */
export const HookExecutionMode = lazySchema(() => z.enum(['sync', 'async']));
export type HookExecutionMode = z.infer<typeof HookExecutionMode>;

/** `thread`: a run about the thread (SessionStart, SessionEnd); `turn`: about one turn. */
export const HookScope = lazySchema(() => z.enum(['thread', 'turn']));
export type HookScope = z.infer<typeof HookScope>;

/** Which config the hook came from; Weft has `user` (WEFT_HOME) and `project` (a trusted project's `.weft/`). */
export const HookSource = lazySchema(() =>
  z.enum([
    'system',
    'user',
    'project',
    'mdm',
    'sessionFlags',
    'plugin',
    'cloudRequirements',
    'cloudManagedConfig',
    'legacyManagedConfigFile',
    'legacyManagedConfigMdm',
    'unknown',
  ]),
);
export type HookSource = z.infer<typeof HookSource>;

/** `blocked`: the hook said no (exit 2, or a `block`/`deny` decision on stdout); `failed`: it broke or timed out. */
export const HookRunStatus = lazySchema(() => z.enum(['running', 'completed', 'failed', 'blocked', 'stopped']));
export type HookRunStatus = z.infer<typeof HookRunStatus>;

export const HookOutputEntryKind = lazySchema(() => z.enum(['warning', 'stop', 'feedback', 'context', 'error']));
export type HookOutputEntryKind = z.infer<typeof HookOutputEntryKind>;

/** What a run said: `feedback` is a block's reason, `error` why it failed, `context` what it adds. */
export const HookOutputEntry = lazySchema(() => z.object({ kind: HookOutputEntryKind, text: z.string() }));
export type HookOutputEntry = z.infer<typeof HookOutputEntry>;

/**
 * One run of one hook. `id` is Codex's: `<event-kebab>:<displayOrder>:<sourcePath>` and, for tool
 * events, `:<tool call id>`. Times in `startedAt`/`completedAt` are Unix seconds (as Codex).
 */
export const HookRunSummary = lazySchema(() =>
  z.object({
    id: z.string(),
    eventName: HookEventName,
    handlerType: HookHandlerType,
    executionMode: HookExecutionMode,
    scope: HookScope,
    sourcePath: z.string(),
    source: HookSource.default('unknown'),
    displayOrder: z.number().int(),
    status: HookRunStatus,
    statusMessage: z.string().nullish(),
    startedAt: z.number().int(),
    completedAt: z.number().int().nullish(),
    durationMs: z.number().int().nullish(),
    entries: z.array(HookOutputEntry),
    /** Weft: the command that ran (as configured). */
    weftCommand: z.string().nullish(),
    /** Weft: its exit code; null while it runs, when it was killed (timeout) or could not start. */
    weftExitCode: z.number().int().nullish(),
    /** Weft: the end of what it wrote (stdout, then stderr), capped; null while it runs. */
    weftOutput: z.string().nullish(),
  }),
);
export type HookRunSummary = z.infer<typeof HookRunSummary>;

export const HookStartedNotification = lazySchema(() =>
  z.object({
    threadId: z.string(),
    turnId: z.string().nullish(),
    run: HookRunSummary,
  }),
);
export type HookStartedNotification = z.infer<typeof HookStartedNotification>;

export const HookCompletedNotification = HookStartedNotification;
export type HookCompletedNotification = z.infer<typeof HookCompletedNotification>;

/**
 * `trusted`: the user accepted the hook as it is (its hash is recorded); `untrusted`: never accepted;
 * `modified`: accepted with other contents. Only `trusted` hooks run (or every enabled one with
 * `weft exec --dangerously-bypass-hook-trust`). `managed` is Codex's (admin-managed); Weft has none.
 */
export const HookTrustStatus = lazySchema(() => z.enum(['managed', 'untrusted', 'trusted', 'modified']));
export type HookTrustStatus = z.infer<typeof HookTrustStatus>;

/** One configured hook (Codex's HookMetadata for `command` handlers, plus Weft's last run). */
export const HookMetadata = lazySchema(() =>
  z.object({
    /** `<sourcePath>:<event_snake>:<group index>:<handler index>`: the key of `[hooks.state."<key>"]`. */
    key: z.string(),
    eventName: HookEventName,
    handlerType: HookHandlerType,
    command: z.string().nullish(),
    async: z.boolean().default(false),
    matcher: z.string().nullable(),
    timeoutSec: z.number().int().min(0),
    statusMessage: z.string().nullish(),
    sourcePath: z.string(),
    source: HookSource,
    displayOrder: z.number().int(),
    enabled: z.boolean(),
    isManaged: z.boolean(),
    /** `sha256:<hex>` of the hook as configured: pass it back to trust exactly this hook. */
    currentHash: z.string(),
    trustStatus: HookTrustStatus,
    /** Weft: what an `mcpTool` hook calls (its server, tool and arguments); null for a command hook. */
    weftMcpTool: z.object({ server: z.string(), tool: z.string(), input: z.record(z.string(), z.unknown()) }).nullish(),
    /** Weft: the hook's latest run in this server process, with its output; null when it has not run. */
    weftLastRun: HookRunSummary.nullish(),
  }),
);
export type HookMetadata = z.infer<typeof HookMetadata>;

/** A hook config that could not be read: the file and the key, and what is wrong. */
export const HookErrorInfo = lazySchema(() => z.object({ path: z.string(), message: z.string() }));
export type HookErrorInfo = z.infer<typeof HookErrorInfo>;

export const HooksListEntry = lazySchema(() =>
  z.object({
    cwd: z.string(),
    hooks: z.array(HookMetadata),
    warnings: z.array(z.string()),
    errors: z.array(HookErrorInfo),
  }),
);
export type HooksListEntry = z.infer<typeof HooksListEntry>;

/** `cwds`: the folders whose hooks to list (their projects' `.weft/` hooks too); empty or absent: the server's folder. */
export const HooksListParams = lazySchema(() =>
  z
    .object({
      cwds: z.array(z.string()).nullish(),
      threadId: z.string().nullish(),
      /** Weft: on this environment (see `WeftEnvironmentName`). */
      weftEnvironment: WeftEnvironmentName,
    })
    .default({}),
);
export type HooksListParams = z.infer<typeof HooksListParams>;

export const HooksListResult = lazySchema(() => z.object({ data: z.array(HooksListEntry) }));
export type HooksListResult = z.infer<typeof HooksListResult>;

/**
 * Weft: trust hooks as listed (`key` and `currentHash` from `hooks/list`), recorded in the user's
 * config.toml as `[hooks.state."<key>"] trusted_hash` (where Codex records it). A hook whose hash
 * changed since it was listed is refused and nothing is recorded.
 */
export const WeftHooksTrustParams = lazySchema(() =>
  z.object({
    cwd: z.string().nullish(),
    hooks: z.array(z.object({ key: z.string(), currentHash: z.string() })).min(1),
    /** Weft: on this environment (see `WeftEnvironmentName`). */
    weftEnvironment: WeftEnvironmentName,
  }),
);
export type WeftHooksTrustParams = z.infer<typeof WeftHooksTrustParams>;

export const WeftHooksTrustResult = lazySchema(() => z.object({ trusted: z.array(z.string()) }));
export type WeftHooksTrustResult = z.infer<typeof WeftHooksTrustResult>;

/** Weft: turn a hook off or on again (`[hooks.state."<key>"] enabled`); a disabled hook never runs. */
export const WeftHooksSetEnabledParams = lazySchema(() =>
  z.object({
    key: z.string(),
    enabled: z.boolean(),
    /** Weft: on this environment (see `WeftEnvironmentName`). */
    weftEnvironment: WeftEnvironmentName,
  }),
);
export type WeftHooksSetEnabledParams = z.infer<typeof WeftHooksSetEnabledParams>;

export const WeftHooksSetEnabledResult = lazySchema(() => z.object({}));
export type WeftHooksSetEnabledResult = z.infer<typeof WeftHooksSetEnabledResult>;
