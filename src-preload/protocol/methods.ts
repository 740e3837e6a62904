// THE method table. Every RPC method, notification and server request is listed here with its schemas;
// the typed client, the server's handler table and the allowlists are derived from these maps, so a
// method cannot be half-wired.
import { z } from 'zod';
import { lazySchema } from './lazy-schema';
import {
  CheckpointPreviewParams,
  CheckpointPreviewFileParams,
  CheckpointPreviewFileResult,
  CheckpointPreviewResult,
  CheckpointRedoParams,
  CheckpointRedoResult,
  CheckpointRevertHunkParams,
  CheckpointRevertHunkResult,
  CheckpointSizeParams,
  CheckpointSizeResult,
  ThreadRevertedNotification,
  ThreadRevertParams,
  WeftThreadTurnsRestoredNotification,
  ThreadRevertResult,
} from './checkpoints';
import {
  WeftForksBringBackParams,
  WeftForksBringBackResult,
  WeftForksCompareParams,
  WeftForksCompareResult,
  WeftForksListParams,
  WeftForksListResult,
  WeftForksRemoveParams,
  WeftForksRemoveResult,
} from './forks';
import {
  WeftWorktreeHandoffParams,
  WeftWorktreeHandoffPreviewParams,
  WeftWorktreeHandoffPreviewResult,
  WeftWorktreeHandoffResult,
  WeftWorktreeRemoveParams,
  WeftWorktreeRemoveResult,
} from './worktree-handoff';
import { WeftWorktreeCompareParams, WeftWorktreeCompareResult } from './worktree-compare';
import {
  WeftBrowserLiveClosed,
  WeftBrowserLiveFrame,
  WeftBrowserLiveInputParams,
  WeftBrowserLiveInputResult,
  WeftBrowserLiveStartParams,
  WeftBrowserLiveStartResult,
  WeftBrowserLiveStopParams,
  WeftBrowserLiveStopResult,
} from './weft-browser-live';
import { InitializeParams, InitializeResult } from './initialize';
import {
  McpServerOauthLoginCompletedNotification,
  McpServerOauthLoginParams,
  McpServerOauthLoginResult,
  McpServerReloadParams,
  McpServerReloadResult,
  McpServerStartupStatusUpdatedNotification,
  McpServerStatusListParams,
  McpServerStatusListResult,
  McpServerToolCallParams,
  McpServerToolCallResult,
  McpToolCallProgressNotification,
} from './mcp';
import {
  CommandExecutionRequestApprovalParams,
  CommandExecutionRequestApprovalResult,
  FileChangeRequestApprovalParams,
  FileChangeRequestApprovalResult,
  ToolRequestUserInputParams,
  ToolRequestUserInputResult,
} from './server-requests';
import {
  AgentMessageDeltaNotification,
  CommandExecutionOutputDeltaNotification,
  ErrorNotification,
  FileChangeOutputDeltaNotification,
  ItemCompletedNotification,
  ItemStartedNotification,
  ReasoningSummaryPartAddedNotification,
  ReasoningSummaryTextDeltaNotification,
  ReasoningTextDeltaNotification,
  ServerRequestResolvedNotification,
  ThreadArchivedNotification,
  ThreadClosedNotification,
  ThreadNameUpdatedNotification,
  ThreadReadStateChangedNotification,
  ThreadStartedNotification,
  ThreadStatusChangedNotification,
  ThreadTokenUsageUpdatedNotification,
  ThreadUnarchivedNotification,
  TurnCompletedNotification,
  TurnDiffUpdatedNotification,
  TurnPlanUpdatedNotification,
  WeftTurnDiffChangedNotification,
  WeftTurnDiffParams,
  WeftTurnDiffResult,
  TurnStartedNotification,
  WeftThreadsIndexedNotification,
  WarningNotification,
} from './notifications';
import {
  ThreadArchiveParams,
  ThreadArchiveResult,
  ThreadCompactStartParams,
  ThreadCompactStartResult,
  ThreadForkParams,
  ThreadForkResult,
  ThreadListParams,
  ThreadListResult,
  ThreadLoadedListParams,
  ThreadLoadedListResult,
  ThreadNameSetParams,
  ThreadNameSetResult,
  ThreadReadParams,
  ThreadReadResult,
  ThreadReadStateUpdateParams,
  ThreadReadStateUpdateResult,
  ThreadResumeParams,
  ThreadResumeResult,
  ThreadRollbackParams,
  ThreadRollbackResult,
  ThreadStartParams,
  ThreadStartResult,
  ThreadTurnsListParams,
  ThreadTurnsListResult,
  ThreadUnarchiveParams,
  ThreadUnarchiveResult,
  ThreadUnsubscribeParams,
  ThreadUnsubscribeResult,
  TurnInterruptParams,
  TurnInterruptResult,
  TurnStartParams,
  TurnStartResult,
  TurnSteerParams,
  TurnSteerResult,
  WeftThreadPinParams,
  WeftThreadPinResult,
} from './requests';
import {
  AccountReadParams,
  AccountReadResult,
  ConfigReadParams,
  ConfigReadResult,
  ConfigValueWriteParams,
  ConfigValueWriteResult,
  FsReadFileParams,
  FsReadFileResult,
  ModelListParams,
  ModelListResult,
  SkillsListParams,
  SkillsListResult,
} from './service-requests';
import {
  WeftAuthClearKeyParams,
  WeftAuthClearKeyResult,
  WeftAuthSetKeyParams,
  WeftAuthSetKeyResult,
  WeftFsCompleteParams,
  WeftFsCompleteResult,
  WeftProviderListParams,
  WeftProviderListResult,
  WeftRulesListParams,
  WeftRulesListResult,
  WeftRulesRevokeParams,
  WeftRulesRevokeResult,
} from './weft-setup';
import {
  WeftProjectConfigListParams,
  WeftProjectConfigListResult,
  WeftProjectConfigTrustParams,
  WeftProjectConfigTrustResult,
} from './weft-project-config';
import {
  HookCompletedNotification,
  HookStartedNotification,
  HooksListParams,
  HooksListResult,
  WeftHooksSetEnabledParams,
  WeftHooksSetEnabledResult,
  WeftHooksTrustParams,
  WeftHooksTrustResult,
} from './hooks';
import {
  CommandExecOutputDeltaNotification,
  CommandExecParams,
  CommandExecResizeParams,
  CommandExecResizeResult,
  CommandExecResult,
  CommandExecTerminateParams,
  CommandExecTerminateResult,
  CommandExecWriteParams,
  CommandExecWriteResult,
  FuzzyFileSearchParams,
  FuzzyFileSearchResult,
  ThreadShellCommandParams,
  ThreadShellCommandResult,
  WeftTerminalAdoptParams,
  WeftTerminalReleaseParams,
  WeftTerminalReleaseResult,
} from './terminal';
import {
  WeftGitBranchesParams,
  WeftGitBranchesResult,
  WeftGitCheckoutParams,
  WeftGitCheckoutResult,
  WeftGitCommitMessageParams,
  WeftGitCommitMessageResult,
  WeftGitCommitParams,
  WeftGitCommitResult,
  WeftGitLastCommitParams,
  WeftGitLastCommitResult,
  WeftGitDiffParams,
  WeftGitDiffResult,
  WeftGitDiscardListParams,
  WeftGitDiscardListResult,
  WeftGitDiscardRestoreParams,
  WeftGitDiscardRestoreResult,
  WeftGitDiscardResult,
  WeftGitPathParams,
  WeftGitPathResult,
  WeftGitProgressNotification,
  WeftGitPushParams,
  WeftGitPushResult,
  WeftGitStatusParams,
  WeftGitStatusResult,
} from './weft-git';
import {
  WeftEnvironmentListParams,
  WeftEnvironmentListResult,
  WeftEnvironmentStatusNotification,
  WeftEnvironmentInstallParams,
  WeftEnvironmentInstallResult,
  WeftEnvironmentInstallCancelParams,
  WeftEnvironmentInstallCancelResult,
  WeftEnvironmentInstallProgressNotification,
} from './weft-environments';
import { ReviewStartParams, ReviewStartResult } from './review';
import { WeftUsageDailyParams, WeftUsageDailyResult } from './weft-cost';
import {
  WeftAutomationRunEndedNotification,
  WeftAutomationsCheckScheduleParams,
  WeftAutomationsCheckScheduleResult,
  WeftAutomationsCreateParams,
  WeftAutomationsCreateResult,
  WeftAutomationsInboxDiscardParams,
  WeftAutomationsInboxDiscardResult,
  WeftAutomationsInboxKeepParams,
  WeftAutomationsInboxKeepResult,
  WeftAutomationsInboxListParams,
  WeftAutomationsInboxListResult,
  WeftAutomationsInboxMarkSeenParams,
  WeftAutomationsInboxMarkSeenResult,
  WeftAutomationsInboxReadParams,
  WeftAutomationsInboxReadResult,
  WeftAutomationsListParams,
  WeftAutomationsListResult,
  WeftAutomationsReadParams,
  WeftAutomationsReadResult,
  WeftAutomationsRemoveParams,
  WeftAutomationsRemoveResult,
  WeftAutomationsRunNowParams,
  WeftAutomationsRunNowResult,
  WeftAutomationsRunsParams,
  WeftAutomationsRunsResult,
  WeftAutomationsUpdateParams,
  WeftAutomationsUpdateResult,
} from './weft-automations';

/**
 * How a request that names a thread (`params.threadId`) is ordered among that thread's requests:
 * - `exclusive`: it waits for every request of the thread before it, and the ones after it wait until it
 *   has answered (a resume, a rename, a turn's start, an archive…).
 * - `shared`: after the exclusive requests before it, alongside other shared ones; an exclusive request
 *   after it waits for its answer (reads: `thread/read`, `thread/turns/list`).
 * - `after`: after the exclusive requests before it, holding nothing while it runs (a call that may last,
 *   such as an MCP tool call, must not hold the thread's next requests back).
 * - null: the request takes no thread's queue (it names no thread, or one only by chance, as the git
 *   methods a project's threads share).
 */
export type RequestQueueMode = 'exclusive' | 'shared' | 'after';

/** One client request: its params, its result, and its place in its thread's queue (every method decides). */
interface ClientRequestSpec {
  params: z.ZodType;
  result: z.ZodType;
  queue: RequestQueueMode | null;
}

/** Client → server requests: method → {params, result, queue}. */
export const ClientRequests = {
  initialize: { params: InitializeParams, result: InitializeResult, queue: null },
  'thread/start': { params: ThreadStartParams, result: ThreadStartResult, queue: null },
  'thread/resume': { params: ThreadResumeParams, result: ThreadResumeResult, queue: 'exclusive' },
  'thread/fork': { params: ThreadForkParams, result: ThreadForkResult, queue: 'exclusive' },
  'thread/archive': { params: ThreadArchiveParams, result: ThreadArchiveResult, queue: 'exclusive' },
  'thread/unarchive': { params: ThreadUnarchiveParams, result: ThreadUnarchiveResult, queue: 'exclusive' },
  'thread/unsubscribe': { params: ThreadUnsubscribeParams, result: ThreadUnsubscribeResult, queue: 'exclusive' },
  'thread/list': { params: ThreadListParams, result: ThreadListResult, queue: null },
  'thread/loaded/list': { params: ThreadLoadedListParams, result: ThreadLoadedListResult, queue: null },
  'thread/read': { params: ThreadReadParams, result: ThreadReadResult, queue: 'shared' },
  'thread/turns/list': { params: ThreadTurnsListParams, result: ThreadTurnsListResult, queue: 'shared' },
  'weft/turn/diff': { params: WeftTurnDiffParams, result: WeftTurnDiffResult, queue: 'shared' },
  'thread/name/set': { params: ThreadNameSetParams, result: ThreadNameSetResult, queue: 'exclusive' },
  'weft/thread/pin': { params: WeftThreadPinParams, result: WeftThreadPinResult, queue: 'exclusive' },
  'thread/readState/update': {
    params: ThreadReadStateUpdateParams,
    result: ThreadReadStateUpdateResult,
    queue: 'exclusive',
  },
  'thread/rollback': { params: ThreadRollbackParams, result: ThreadRollbackResult, queue: 'exclusive' },
  'thread/revert': { params: ThreadRevertParams, result: ThreadRevertResult, queue: 'exclusive' },
  'weft/checkpoints/preview': { params: CheckpointPreviewParams, result: CheckpointPreviewResult, queue: 'shared' },
  'weft/checkpoints/previewFile': {
    params: CheckpointPreviewFileParams,
    result: CheckpointPreviewFileResult,
    queue: 'shared',
  },
  'weft/checkpoints/redo': { params: CheckpointRedoParams, result: CheckpointRedoResult, queue: 'exclusive' },
  'weft/checkpoints/revertHunk': {
    params: CheckpointRevertHunkParams,
    result: CheckpointRevertHunkResult,
    queue: 'exclusive',
  },
  'weft/checkpoints/size': { params: CheckpointSizeParams, result: CheckpointSizeResult, queue: null },
  'weft/forks/list': { params: WeftForksListParams, result: WeftForksListResult, queue: null },
  'weft/forks/compare': { params: WeftForksCompareParams, result: WeftForksCompareResult, queue: 'shared' },
  'weft/forks/remove': { params: WeftForksRemoveParams, result: WeftForksRemoveResult, queue: 'exclusive' },
  'weft/forks/bringBack': { params: WeftForksBringBackParams, result: WeftForksBringBackResult, queue: null },
  'weft/worktree/handoff/preview': {
    params: WeftWorktreeHandoffPreviewParams,
    result: WeftWorktreeHandoffPreviewResult,
    queue: 'shared',
  },
  'weft/worktree/handoff': { params: WeftWorktreeHandoffParams, result: WeftWorktreeHandoffResult, queue: 'exclusive' },
  'weft/worktree/compare': { params: WeftWorktreeCompareParams, result: WeftWorktreeCompareResult, queue: null },
  'weft/worktree/remove': { params: WeftWorktreeRemoveParams, result: WeftWorktreeRemoveResult, queue: 'exclusive' },
  'thread/compact/start': { params: ThreadCompactStartParams, result: ThreadCompactStartResult, queue: 'exclusive' },
  'turn/start': { params: TurnStartParams, result: TurnStartResult, queue: 'exclusive' },
  'turn/steer': { params: TurnSteerParams, result: TurnSteerResult, queue: 'exclusive' },
  'turn/interrupt': { params: TurnInterruptParams, result: TurnInterruptResult, queue: 'exclusive' },
  'model/list': { params: ModelListParams, result: ModelListResult, queue: null },
  'config/read': { params: ConfigReadParams, result: ConfigReadResult, queue: null },
  'config/value/write': { params: ConfigValueWriteParams, result: ConfigValueWriteResult, queue: null },
  'fs/readFile': { params: FsReadFileParams, result: FsReadFileResult, queue: null },
  'weft/provider/list': { params: WeftProviderListParams, result: WeftProviderListResult, queue: null },
  'weft/auth/setKey': { params: WeftAuthSetKeyParams, result: WeftAuthSetKeyResult, queue: null },
  'weft/auth/clearKey': { params: WeftAuthClearKeyParams, result: WeftAuthClearKeyResult, queue: null },
  'weft/rules/list': { params: WeftRulesListParams, result: WeftRulesListResult, queue: null },
  'weft/rules/revoke': { params: WeftRulesRevokeParams, result: WeftRulesRevokeResult, queue: null },
  'weft/fs/complete': { params: WeftFsCompleteParams, result: WeftFsCompleteResult, queue: null },
  'weft/environment/list': { params: WeftEnvironmentListParams, result: WeftEnvironmentListResult, queue: null },
  'weft/environment/install': {
    params: WeftEnvironmentInstallParams,
    result: WeftEnvironmentInstallResult,
    queue: null,
  },
  'weft/environment/install/cancel': {
    params: WeftEnvironmentInstallCancelParams,
    result: WeftEnvironmentInstallCancelResult,
    queue: null,
  },
  'weft/projectConfig/list': { params: WeftProjectConfigListParams, result: WeftProjectConfigListResult, queue: null },
  'weft/usage/daily': { params: WeftUsageDailyParams, result: WeftUsageDailyResult, queue: null },
  'weft/automations/list': { params: WeftAutomationsListParams, result: WeftAutomationsListResult, queue: null },
  'weft/automations/read': { params: WeftAutomationsReadParams, result: WeftAutomationsReadResult, queue: null },
  'weft/automations/create': { params: WeftAutomationsCreateParams, result: WeftAutomationsCreateResult, queue: null },
  'weft/automations/update': { params: WeftAutomationsUpdateParams, result: WeftAutomationsUpdateResult, queue: null },
  'weft/automations/remove': { params: WeftAutomationsRemoveParams, result: WeftAutomationsRemoveResult, queue: null },
  'weft/automations/runNow': { params: WeftAutomationsRunNowParams, result: WeftAutomationsRunNowResult, queue: null },
  'weft/automations/runs': { params: WeftAutomationsRunsParams, result: WeftAutomationsRunsResult, queue: null },
  'weft/automations/checkSchedule': {
    params: WeftAutomationsCheckScheduleParams,
    result: WeftAutomationsCheckScheduleResult,
    queue: null,
  },
  'weft/automations/inbox/list': {
    params: WeftAutomationsInboxListParams,
    result: WeftAutomationsInboxListResult,
    queue: null,
  },
  'weft/automations/inbox/read': {
    params: WeftAutomationsInboxReadParams,
    result: WeftAutomationsInboxReadResult,
    queue: null,
  },
  'weft/automations/inbox/markSeen': {
    params: WeftAutomationsInboxMarkSeenParams,
    result: WeftAutomationsInboxMarkSeenResult,
    queue: null,
  },
  'weft/automations/inbox/keep': {
    params: WeftAutomationsInboxKeepParams,
    result: WeftAutomationsInboxKeepResult,
    queue: null,
  },
  'weft/automations/inbox/discard': {
    params: WeftAutomationsInboxDiscardParams,
    result: WeftAutomationsInboxDiscardResult,
    queue: null,
  },
  'weft/projectConfig/trust': {
    params: WeftProjectConfigTrustParams,
    result: WeftProjectConfigTrustResult,
    queue: null,
  },
  'hooks/list': { params: HooksListParams, result: HooksListResult, queue: null },
  'weft/hooks/trust': { params: WeftHooksTrustParams, result: WeftHooksTrustResult, queue: null },
  'weft/hooks/setEnabled': { params: WeftHooksSetEnabledParams, result: WeftHooksSetEnabledResult, queue: null },
  'account/read': { params: AccountReadParams, result: AccountReadResult, queue: null },
  'skills/list': { params: SkillsListParams, result: SkillsListResult, queue: null },
  'mcpServerStatus/list': { params: McpServerStatusListParams, result: McpServerStatusListResult, queue: 'after' },
  'config/mcpServer/reload': { params: McpServerReloadParams, result: McpServerReloadResult, queue: null },
  'mcpServer/tool/call': { params: McpServerToolCallParams, result: McpServerToolCallResult, queue: 'after' },
  'mcpServer/oauth/login': { params: McpServerOauthLoginParams, result: McpServerOauthLoginResult, queue: null },
  'command/exec': { params: CommandExecParams, result: CommandExecResult, queue: null },
  'command/exec/write': { params: CommandExecWriteParams, result: CommandExecWriteResult, queue: null },
  'command/exec/resize': { params: CommandExecResizeParams, result: CommandExecResizeResult, queue: null },
  'command/exec/terminate': { params: CommandExecTerminateParams, result: CommandExecTerminateResult, queue: null },
  'weft/terminal/adopt': { params: WeftTerminalAdoptParams, result: CommandExecResult, queue: null },
  'weft/terminal/release': { params: WeftTerminalReleaseParams, result: WeftTerminalReleaseResult, queue: null },
  'thread/shellCommand': { params: ThreadShellCommandParams, result: ThreadShellCommandResult, queue: 'exclusive' },
  fuzzyFileSearch: { params: FuzzyFileSearchParams, result: FuzzyFileSearchResult, queue: null },
  'review/start': { params: ReviewStartParams, result: ReviewStartResult, queue: 'exclusive' },
  'weft/git/status': { params: WeftGitStatusParams, result: WeftGitStatusResult, queue: null },
  'weft/git/diff': { params: WeftGitDiffParams, result: WeftGitDiffResult, queue: null },
  'weft/git/stage': { params: WeftGitPathParams, result: WeftGitPathResult, queue: null },
  'weft/git/unstage': { params: WeftGitPathParams, result: WeftGitPathResult, queue: null },
  'weft/git/discard': { params: WeftGitPathParams, result: WeftGitDiscardResult, queue: null },
  'weft/git/discard/list': { params: WeftGitDiscardListParams, result: WeftGitDiscardListResult, queue: null },
  'weft/git/discard/restore': { params: WeftGitDiscardRestoreParams, result: WeftGitDiscardRestoreResult, queue: null },
  'weft/git/commit': { params: WeftGitCommitParams, result: WeftGitCommitResult, queue: null },
  'weft/git/lastCommit': { params: WeftGitLastCommitParams, result: WeftGitLastCommitResult, queue: null },
  'weft/git/commitMessage': { params: WeftGitCommitMessageParams, result: WeftGitCommitMessageResult, queue: null },
  'weft/git/push': { params: WeftGitPushParams, result: WeftGitPushResult, queue: null },
  'weft/git/branches': { params: WeftGitBranchesParams, result: WeftGitBranchesResult, queue: null },
  'weft/git/checkout': { params: WeftGitCheckoutParams, result: WeftGitCheckoutResult, queue: null },
  'weft/browser/live/start': { params: WeftBrowserLiveStartParams, result: WeftBrowserLiveStartResult, queue: null },
  'weft/browser/live/stop': { params: WeftBrowserLiveStopParams, result: WeftBrowserLiveStopResult, queue: null },
  'weft/browser/live/input': { params: WeftBrowserLiveInputParams, result: WeftBrowserLiveInputResult, queue: null },
} as const satisfies Record<string, ClientRequestSpec>;

/** Server → client notifications: method → params schema. */
export const ServerNotifications = {
  error: ErrorNotification,
  warning: WarningNotification,
  'thread/started': ThreadStartedNotification,
  'thread/status/changed': ThreadStatusChangedNotification,
  'thread/archived': ThreadArchivedNotification,
  'thread/reverted': ThreadRevertedNotification,
  'thread/unarchived': ThreadUnarchivedNotification,
  'thread/closed': ThreadClosedNotification,
  'thread/name/updated': ThreadNameUpdatedNotification,
  'thread/readState/changed': ThreadReadStateChangedNotification,
  'thread/tokenUsage/updated': ThreadTokenUsageUpdatedNotification,
  'turn/started': TurnStartedNotification,
  'turn/completed': TurnCompletedNotification,
  'turn/diff/updated': TurnDiffUpdatedNotification,
  'weft/turn/diffChanged': WeftTurnDiffChangedNotification,
  'turn/plan/updated': TurnPlanUpdatedNotification,
  'hook/started': HookStartedNotification,
  'hook/completed': HookCompletedNotification,
  'item/started': ItemStartedNotification,
  'item/completed': ItemCompletedNotification,
  'item/agentMessage/delta': AgentMessageDeltaNotification,
  'item/reasoning/summaryTextDelta': ReasoningSummaryTextDeltaNotification,
  'item/reasoning/summaryPartAdded': ReasoningSummaryPartAddedNotification,
  'item/reasoning/textDelta': ReasoningTextDeltaNotification,
  'item/commandExecution/outputDelta': CommandExecutionOutputDeltaNotification,
  'item/fileChange/outputDelta': FileChangeOutputDeltaNotification,
  'serverRequest/resolved': ServerRequestResolvedNotification,
  'item/mcpToolCall/progress': McpToolCallProgressNotification,
  'mcpServer/startupStatus/updated': McpServerStartupStatusUpdatedNotification,
  'mcpServer/oauthLogin/completed': McpServerOauthLoginCompletedNotification,
  'command/exec/outputDelta': CommandExecOutputDeltaNotification,
  'weft/git/progress': WeftGitProgressNotification,
  'weft/threads/indexed': WeftThreadsIndexedNotification,
  'weft/thread/turnsRestored': WeftThreadTurnsRestoredNotification,
  'weft/environment/status': WeftEnvironmentStatusNotification,
  'weft/environment/install/progress': WeftEnvironmentInstallProgressNotification,
  'weft/automations/runEnded': WeftAutomationRunEndedNotification,
  'weft/browser/live/frame': WeftBrowserLiveFrame,
  'weft/browser/live/closed': WeftBrowserLiveClosed,
} as const;

/** Server → client requests: method → {params, result}. */
export const ServerRequests = {
  'item/commandExecution/requestApproval': {
    params: CommandExecutionRequestApprovalParams,
    result: CommandExecutionRequestApprovalResult,
  },
  'item/fileChange/requestApproval': {
    params: FileChangeRequestApprovalParams,
    result: FileChangeRequestApprovalResult,
  },
  'item/tool/requestUserInput': { params: ToolRequestUserInputParams, result: ToolRequestUserInputResult },
} as const;

/** Client → server notifications: `initialized` ends the handshake (params absent or `{}`). */
export const ClientNotifications = {
  initialized: lazySchema(() => z.object({}).optional()),
} as const;

type Requests = typeof ClientRequests;
type Notifications = typeof ServerNotifications;
type ServerRequestTable = typeof ServerRequests;

export type ClientRequestMethod = keyof Requests;
/** Params as a client may send them (optional fields omittable, defaults not yet applied). */
export type ParamsInput<M extends ClientRequestMethod> = z.input<Requests[M]['params']>;
/** Params as the server sees them after parsing (unknown fields dropped, defaults applied). */
export type ParamsOf<M extends ClientRequestMethod> = z.output<Requests[M]['params']>;
/** A result as the client sees it after parsing. */
export type ResultOf<M extends ClientRequestMethod> = z.output<Requests[M]['result']>;
/** A result as the server may build it. */
export type ResultInput<M extends ClientRequestMethod> = z.input<Requests[M]['result']>;
/** A parsed client request, discriminated on `method`. */

export type ServerNotificationMethod = keyof Notifications;
export type NotificationParams<M extends ServerNotificationMethod> = z.output<Notifications[M]>;
export type NotificationParamsInput<M extends ServerNotificationMethod> = z.input<Notifications[M]>;
/** A notification, discriminated on `method`. */
export type ServerNotification = {
  [M in ServerNotificationMethod]: { method: M; params: NotificationParams<M> };
}[ServerNotificationMethod];

export type ServerRequestMethod = keyof ServerRequestTable;
export type ServerRequestParams<M extends ServerRequestMethod> = z.output<ServerRequestTable[M]['params']>;
export type ServerRequestResult<M extends ServerRequestMethod> = z.output<ServerRequestTable[M]['result']>;
export type ServerRequestResultInput<M extends ServerRequestMethod> = z.input<ServerRequestTable[M]['result']>;
/** A server request (without its JSON-RPC id), discriminated on `method`. */
export type ServerRequest = {
  [M in ServerRequestMethod]: { method: M; params: ServerRequestParams<M> };
}[ServerRequestMethod];

export function isClientRequestMethod(method: string): method is ClientRequestMethod {
  return Object.hasOwn(ClientRequests, method);
}

export function isServerNotificationMethod(method: string): method is ServerNotificationMethod {
  return Object.hasOwn(ServerNotifications, method);
}

export function isServerRequestMethod(method: string): method is ServerRequestMethod {
  return Object.hasOwn(ServerRequests, method);
}
