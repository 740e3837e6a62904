// Params and results of the server → client requests (approvals, questions). After the answer, or when
// the request is cleared by the turn ending, the server sends `serverRequest/resolved`.
import { z } from 'zod';
import { lazySchema } from './lazy-schema';
import { CommandAction } from './items';

/** Allow, and remember the prefix `execpolicy_amendment` (argv words) as allowed. */
export const AcceptWithExecpolicyAmendment = lazySchema(() =>
  z.object({
    acceptWithExecpolicyAmendment: z.object({ execpolicy_amendment: z.array(z.string()) }),
  }),
);
export type AcceptWithExecpolicyAmendment = z.infer<typeof AcceptWithExecpolicyAmendment>;

/**
 * Allow (or deny) network access to `host` (Codex's network rule). Weft's sandbox has no per-host network
 * rules: `allow` runs this command with network access, `deny` declines it.
 */
export const ApplyNetworkPolicyAmendment = lazySchema(() =>
  z.object({
    applyNetworkPolicyAmendment: z.object({
      network_policy_amendment: z.object({ host: z.string(), action: z.enum(['allow', 'deny']) }),
    }),
  }),
);
export type ApplyNetworkPolicyAmendment = z.infer<typeof ApplyNetworkPolicyAmendment>;

/**
 * `accept`: this once; `acceptForSession`: also later identical requests in this session; `decline`: refuse
 * and let the model go on; `cancel`: refuse and interrupt the turn.
 */
export const CommandExecutionApprovalDecision = lazySchema(() =>
  z.union([
    z.enum(['accept', 'acceptForSession', 'decline', 'cancel']),
    AcceptWithExecpolicyAmendment,
    ApplyNetworkPolicyAmendment,
  ]),
);
export type CommandExecutionApprovalDecision = z.infer<typeof CommandExecutionApprovalDecision>;

export const CommandExecutionRequestApprovalResult = lazySchema(() =>
  z.object({ decision: CommandExecutionApprovalDecision }),
);
export type CommandExecutionRequestApprovalResult = z.infer<typeof CommandExecutionRequestApprovalResult>;

/**
 * Run a command that the policy does not allow on its own. `itemId` is the `commandExecution` item already
 * started. `proposedExecpolicyAmendment`: a command prefix the user may allow from now on.
 */
export const CommandExecutionRequestApprovalParams = lazySchema(() =>
  z.object({
    threadId: z.string(),
    turnId: z.string(),
    itemId: z.string(),
    /** When the request was made (unix milliseconds). */
    startedAtMs: z.number().int(),
    reason: z.string().nullish(),
    command: z.string(),
    cwd: z.string(),
    commandActions: z.array(CommandAction).nullish(),
    proposedExecpolicyAmendment: z.array(z.string()).nullish(),
    /** The decisions the client should offer, in order (Codex's field); absent = any of them. */
    availableDecisions: z.array(CommandExecutionApprovalDecision).nullish(),
  }),
);
export type CommandExecutionRequestApprovalParams = z.infer<typeof CommandExecutionRequestApprovalParams>;

/**
 * Apply the `fileChange` item `itemId`. `grantRoot`: a folder outside the writable roots that the user would
 * be allowing writes to for the session.
 */
export const FileChangeRequestApprovalParams = lazySchema(() =>
  z.object({
    threadId: z.string(),
    turnId: z.string(),
    itemId: z.string(),
    /** When the request was made (unix milliseconds). */
    startedAtMs: z.number().int(),
    reason: z.string().nullish(),
    grantRoot: z.string().nullish(),
  }),
);
export type FileChangeRequestApprovalParams = z.infer<typeof FileChangeRequestApprovalParams>;

export const FileChangeApprovalDecision = lazySchema(() => z.enum(['accept', 'acceptForSession', 'decline', 'cancel']));
export type FileChangeApprovalDecision = z.infer<typeof FileChangeApprovalDecision>;

/**
 * Weft per-hunk review: the verdict on hunk number `hunk` (0-based, in the order of the `@@` headers of
 * that path's diff in the item). `comment` is passed to the model with a declined hunk.
 */
export const WeftHunkDecision = lazySchema(() =>
  z.object({
    path: z.string(),
    hunk: z.number().int().nonnegative(),
    decision: z.enum(['accept', 'decline']),
    comment: z.string().optional(),
  }),
);
export type WeftHunkDecision = z.infer<typeof WeftHunkDecision>;

/**
 * With `weftHunks`, only the hunks judged `accept` are applied; a hunk not listed follows `decision`.
 * Without `weftHunks`, `decision` covers the whole patch.
 */
export const FileChangeRequestApprovalResult = lazySchema(() =>
  z.object({
    decision: FileChangeApprovalDecision,
    weftHunks: z.array(WeftHunkDecision).optional(),
  }),
);
export type FileChangeRequestApprovalResult = z.infer<typeof FileChangeRequestApprovalResult>;

export const ToolRequestUserInputOption = lazySchema(() => z.object({ label: z.string(), description: z.string() }));
export type ToolRequestUserInputOption = z.infer<typeof ToolRequestUserInputOption>;

/**
 * One question. `options` null = free text only; `isOther`: offer a free-text "Other" beside the options;
 * `isSecret`: mask what the user types.
 */
export const ToolRequestUserInputQuestion = lazySchema(() =>
  z.object({
    id: z.string(),
    header: z.string(),
    question: z.string(),
    isOther: z.boolean().optional(),
    isSecret: z.boolean().optional(),
    options: z.array(ToolRequestUserInputOption).nullable(),
  }),
);
export type ToolRequestUserInputQuestion = z.infer<typeof ToolRequestUserInputQuestion>;

/** `isBlocking`: the turn waits for the answer (always true in Weft). */
export const ToolRequestUserInputParams = lazySchema(() =>
  z.object({
    threadId: z.string(),
    turnId: z.string(),
    itemId: z.string(),
    isBlocking: z.boolean(),
    questions: z.array(ToolRequestUserInputQuestion),
  }),
);
export type ToolRequestUserInputParams = z.infer<typeof ToolRequestUserInputParams>;

/** The answer to one question: chosen option labels and/or typed text. */
export const ToolRequestUserInputAnswer = lazySchema(() => z.object({ answers: z.array(z.string()) }));
export type ToolRequestUserInputAnswer = z.infer<typeof ToolRequestUserInputAnswer>;

/** Answers keyed by question `id`; a question left out was not answered. */
export const ToolRequestUserInputResult = lazySchema(() =>
  z.object({
    answers: z.record(z.string(), ToolRequestUserInputAnswer),
  }),
);
export type ToolRequestUserInputResult = z.infer<typeof ToolRequestUserInputResult>;
