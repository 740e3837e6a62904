// Values shared by requests, objects and notifications.
import { z } from 'zod';

/** Any JSON value (config values, MCP tool arguments and results). */
export const JsonValue = z.json();
export type JsonValue = z.infer<typeof JsonValue>;

/** When the user is asked before a command runs. */
export const AskForApproval = z.enum(['untrusted', 'on-failure', 'on-request', 'never']);
export type AskForApproval = z.infer<typeof AskForApproval>;

/** The sandbox as a single word (`thread/start` `sandbox`, config `sandbox_mode`). */
export const SandboxMode = z.enum(['read-only', 'workspace-write', 'danger-full-access']);
export type SandboxMode = z.infer<typeof SandboxMode>;

/** Read-only filesystem. `networkAccess` omitted means no network. */
export const ReadOnlySandboxPolicy = z.object({
  type: z.literal('readOnly'),
  networkAccess: z.boolean().optional(),
});
export type ReadOnlySandboxPolicy = z.infer<typeof ReadOnlySandboxPolicy>;

/**
 * Writes allowed under the cwd and `writableRoots` (absolute paths). Omitted booleans mean false: no
 * network, $TMPDIR and /tmp writable.
 */
export const WorkspaceWriteSandboxPolicy = z.object({
  type: z.literal('workspaceWrite'),
  writableRoots: z.array(z.string()).optional(),
  networkAccess: z.boolean().optional(),
  excludeTmpdirEnvVar: z.boolean().optional(),
  excludeSlashTmp: z.boolean().optional(),
});
export type WorkspaceWriteSandboxPolicy = z.infer<typeof WorkspaceWriteSandboxPolicy>;

export const DangerFullAccessSandboxPolicy = z.object({ type: z.literal('dangerFullAccess') });
export type DangerFullAccessSandboxPolicy = z.infer<typeof DangerFullAccessSandboxPolicy>;

/** The sandbox as an object (results, `turn/start` `sandboxPolicy`), tagged with camelCase `type`. */
export const SandboxPolicy = z.discriminatedUnion('type', [
  ReadOnlySandboxPolicy,
  WorkspaceWriteSandboxPolicy,
  DangerFullAccessSandboxPolicy,
]);
export type SandboxPolicy = z.infer<typeof SandboxPolicy>;

export const ReasoningEffort = z.enum(['none', 'minimal', 'low', 'medium', 'high', 'xhigh']);
export type ReasoningEffort = z.infer<typeof ReasoningEffort>;

export const ReasoningSummary = z.enum(['auto', 'concise', 'detailed', 'none']);
export type ReasoningSummary = z.infer<typeof ReasoningSummary>;

export const TextUserInput = z.object({ type: z.literal('text'), text: z.string() });
export type TextUserInput = z.infer<typeof TextUserInput>;

/** An image by URL (https: or data:). */
export const ImageUserInput = z.object({ type: z.literal('image'), url: z.string() });
export type ImageUserInput = z.infer<typeof ImageUserInput>;

/** An image file on the machine running the server (absolute path). */
export const LocalImageUserInput = z.object({ type: z.literal('localImage'), path: z.string() });
export type LocalImageUserInput = z.infer<typeof LocalImageUserInput>;

/** One piece of what the user sends. */
export const UserInput = z.discriminatedUnion('type', [TextUserInput, ImageUserInput, LocalImageUserInput]);
export type UserInput = z.infer<typeof UserInput>;

const tokenCount = z.number().int().nonnegative();

/** Token counts; `cachedInputTokens` is part of `inputTokens`, `reasoningOutputTokens` part of `outputTokens`. */
export const TokenUsageBreakdown = z.object({
  totalTokens: tokenCount,
  inputTokens: tokenCount,
  cachedInputTokens: tokenCount,
  outputTokens: tokenCount,
  reasoningOutputTokens: tokenCount,
});
export type TokenUsageBreakdown = z.infer<typeof TokenUsageBreakdown>;

/** `total` over the thread, `last` of the latest model request; `modelContextWindow` null when unknown. */
export const ThreadTokenUsage = z.object({
  total: TokenUsageBreakdown,
  last: TokenUsageBreakdown,
  modelContextWindow: z.number().int().nonnegative().nullable(),
});
export type ThreadTokenUsage = z.infer<typeof ThreadTokenUsage>;
