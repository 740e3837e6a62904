// Values shared by requests, objects and notifications.
import { z } from 'zod';
import { lazySchema } from './lazy-schema';

/** Compile-time exhaustiveness check for switches over tagged unions: a new variant becomes a compile error where this is called. */
export function assertNever(value: never, what = 'value'): never {
  throw new Error(`unexpected ${what}: ${JSON.stringify(value)}`);
}

/**
 * Any JSON value (config values, MCP tool arguments and results): what `z.json()` accepts, built the same
 * way, but recursing through this exported schema, so the JSON Schema export names the recursion JsonValue.
 */
export const JsonValue: z.ZodType<z.core.util.JSONType> = lazySchema(() =>
  z.lazy(() =>
    z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(JsonValue), z.record(z.string(), JsonValue)]),
  ),
);
export type JsonValue = z.infer<typeof JsonValue>;

/**
 * Marks a schema as a Weft extension: Codex's clients do not know it. `weft app-server
 * generate-json-schema` writes `"x-weft-extension": true` on it (and on every `weft…` field), and
 * `"x-weft-extension-values"` on an enum some of whose values are Weft's own.
 */
export const WEFT_EXTENSION = { 'x-weft-extension': true } as const;

/**
 * When the user is asked before a command runs. `on-failure` (run sandboxed, ask only when the sandbox
 * stops a command) is Weft's: Codex's clients are sent the nearest Codex value and `weftApprovalPolicy`.
 */
export const AskForApproval = lazySchema(() =>
  z.enum(['untrusted', 'on-failure', 'on-request', 'never']).meta({ 'x-weft-extension-values': ['on-failure'] }),
);
export type AskForApproval = z.infer<typeof AskForApproval>;

/**
 * Codex's fine-grained policy: for each kind of prompt, whether it may be shown (`true`) or is declined
 * without asking (`false`). Weft runs it as `on-request` when sandbox escalations may be asked, else `never`.
 */
export const GranularAskForApproval = lazySchema(() =>
  z.object({
    granular: z.object({
      sandbox_approval: z.boolean(),
      rules: z.boolean(),
      mcp_elicitations: z.boolean(),
      request_permissions: z.boolean().optional(),
      skill_approval: z.boolean().optional(),
    }),
  }),
);
export type GranularAskForApproval = z.infer<typeof GranularAskForApproval>;

/** An approval policy as a client may send it (Weft's values or Codex's granular object), read as Weft's. */
export const ApprovalPolicyParam = lazySchema(() =>
  z
    .union([AskForApproval, GranularAskForApproval])
    .transform((policy): AskForApproval =>
      typeof policy === 'string' ? policy : policy.granular.sandbox_approval ? 'on-request' : 'never',
    ),
);

/** The approval policy as Codex's clients read it: never Weft's `on-failure`. */
export const CodexAskForApproval = lazySchema(() =>
  z.union([z.enum(['untrusted', 'on-request', 'never']), GranularAskForApproval]),
);
export type CodexAskForApproval = z.infer<typeof CodexAskForApproval>;

/** Codex's value for a Weft policy (`on-failure` asks when a sandboxed command fails: the nearest is `on-request`). */
export function codexApprovalPolicy(policy: AskForApproval): CodexAskForApproval {
  return policy === 'on-failure' ? 'on-request' : policy;
}

/** Who answers approval requests. Weft always asks the user. */
export const ApprovalsReviewer = lazySchema(() => z.enum(['user', 'auto_review', 'guardian_subagent']));
export type ApprovalsReviewer = z.infer<typeof ApprovalsReviewer>;

/** The sandbox as a single word (`thread/start` `sandbox`, config `sandbox_mode`). */
export const SandboxMode = lazySchema(() => z.enum(['read-only', 'workspace-write', 'danger-full-access']));
export type SandboxMode = z.infer<typeof SandboxMode>;

/** Read-only filesystem. `networkAccess` omitted means no network. */
export const ReadOnlySandboxPolicy = lazySchema(() =>
  z.object({
    type: z.literal('readOnly'),
    networkAccess: z.boolean().optional(),
  }),
);
export type ReadOnlySandboxPolicy = z.infer<typeof ReadOnlySandboxPolicy>;

/**
 * Writes allowed under the cwd and `writableRoots` (absolute paths). Omitted booleans mean false: no
 * network, $TMPDIR and /tmp writable.
 */
export const WorkspaceWriteSandboxPolicy = lazySchema(() =>
  z.object({
    type: z.literal('workspaceWrite'),
    writableRoots: z.array(z.string()).optional(),
    networkAccess: z.boolean().optional(),
    excludeTmpdirEnvVar: z.boolean().optional(),
    excludeSlashTmp: z.boolean().optional(),
  }),
);
export type WorkspaceWriteSandboxPolicy = z.infer<typeof WorkspaceWriteSandboxPolicy>;

export const DangerFullAccessSandboxPolicy = lazySchema(() => z.object({ type: z.literal('dangerFullAccess') }));
export type DangerFullAccessSandboxPolicy = z.infer<typeof DangerFullAccessSandboxPolicy>;

/** The sandbox as an object (results, `turn/start` `sandboxPolicy`), tagged with camelCase `type`. */
export const SandboxPolicy = lazySchema(() =>
  z.discriminatedUnion('type', [ReadOnlySandboxPolicy, WorkspaceWriteSandboxPolicy, DangerFullAccessSandboxPolicy]),
);
export type SandboxPolicy = z.infer<typeof SandboxPolicy>;

/** The efforts Weft knows by name (its pickers offer these). */
export const ReasoningEffort = lazySchema(() => z.enum(['none', 'minimal', 'low', 'medium', 'high', 'xhigh']));
export type ReasoningEffort = z.infer<typeof ReasoningEffort>;

/** A reasoning effort on the wire: any non-empty value the model supports (Codex's rule), e.g. `max`. */
export const ReasoningEffortValue = lazySchema(() => z.string().min(1));
export type ReasoningEffortValue = z.infer<typeof ReasoningEffortValue>;

export const ReasoningSummary = lazySchema(() => z.enum(['auto', 'concise', 'detailed', 'none']));
export type ReasoningSummary = z.infer<typeof ReasoningSummary>;

export const TextUserInput = lazySchema(() => z.object({ type: z.literal('text'), text: z.string() }));
export type TextUserInput = z.infer<typeof TextUserInput>;

/** The largest image a turn accepts (the UI refuses bigger attachments, the core bigger local files): providers reject them and they eat the context. */
export const MAX_IMAGE_BYTES = 20 * 1024 * 1024;

/** An image by URL (https: or data:). */
export const ImageUserInput = lazySchema(() => z.object({ type: z.literal('image'), url: z.string() }));
export type ImageUserInput = z.infer<typeof ImageUserInput>;

/** An image file on the machine running the server (absolute path). */
export const LocalImageUserInput = lazySchema(() => z.object({ type: z.literal('localImage'), path: z.string() }));
export type LocalImageUserInput = z.infer<typeof LocalImageUserInput>;

/** A file or resource the user pointed at (`@name`); `path` is where it is. */
export const MentionUserInput = lazySchema(() =>
  z.object({ type: z.literal('mention'), name: z.string(), path: z.string() }),
);
export type MentionUserInput = z.infer<typeof MentionUserInput>;

/** A skill the user invoked by name; `path` is its SKILL.md (sent to the model with the message). */
export const SkillUserInput = lazySchema(() =>
  z.object({ type: z.literal('skill'), name: z.string(), path: z.string() }),
);
export type SkillUserInput = z.infer<typeof SkillUserInput>;

/** One piece of what the user sends. */
export const UserInput = lazySchema(() =>
  z.discriminatedUnion('type', [TextUserInput, ImageUserInput, LocalImageUserInput, MentionUserInput, SkillUserInput]),
);
export type UserInput = z.infer<typeof UserInput>;

const tokenCount = lazySchema(() => z.number().int().nonnegative());

/**
 * Token counts; `cachedInputTokens` is part of `inputTokens`, `reasoningOutputTokens` part of `outputTokens`.
 * `cacheWriteInputTokens` (Codex 0.169's, optional, absent = 0): input tokens the provider wrote to its
 * prompt cache (Anthropic-style cache creation), also part of `inputTokens`; Weft sends it when not 0.
 */
export const TokenUsageBreakdown = lazySchema(() =>
  z.object({
    totalTokens: tokenCount,
    inputTokens: tokenCount,
    cachedInputTokens: tokenCount,
    cacheWriteInputTokens: tokenCount.optional(),
    outputTokens: tokenCount,
    reasoningOutputTokens: tokenCount,
  }),
);
export type TokenUsageBreakdown = z.infer<typeof TokenUsageBreakdown>;

/** `total` over the thread, `last` of the latest model request; `modelContextWindow` null when unknown. */
export const ThreadTokenUsage = lazySchema(() =>
  z.object({
    total: TokenUsageBreakdown,
    last: TokenUsageBreakdown,
    modelContextWindow: z.number().int().nonnegative().nullable(),
  }),
);
export type ThreadTokenUsage = z.infer<typeof ThreadTokenUsage>;
