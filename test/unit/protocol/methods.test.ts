import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  ClientNotifications,
  ClientRequests,
  isClientRequestMethod,
  isServerNotificationMethod,
  isServerRequestMethod,
  ServerNotifications,
  ServerRequests,
  type NotificationParams,
  type ParamsInput,
  type ParamsOf,
  type ResultOf,
  type ServerNotification,
  type ServerRequest,
  type ServerRequestResult,
  type ThreadItem,
} from '../../../src-preload/protocol';

// Written out from PROTOCOL.md (plus initialize, thread/unsubscribe, thread/loaded/list, thread/turns/list).
const clientRequestMethods = [
  'initialize',
  'thread/start',
  'thread/resume',
  'thread/fork',
  'thread/archive',
  'thread/unarchive',
  'thread/unsubscribe',
  'thread/list',
  'thread/loaded/list',
  'thread/read',
  'thread/turns/list',
  'weft/turn/diff',
  'weft/browser/live/start',
  'weft/browser/live/stop',
  'weft/browser/live/input',
  'thread/name/set',
  'thread/rollback',
  'thread/compact/start',
  'thread/revert',
  'turn/start',
  'turn/steer',
  'turn/interrupt',
  'model/list',
  'config/read',
  'config/value/write',
  'fs/readFile',
  'account/read',
  'skills/list',
  'command/exec',
  'command/exec/write',
  'command/exec/resize',
  'command/exec/terminate',
  'weft/terminal/adopt',
  'weft/terminal/release',
  'thread/shellCommand',
  'fuzzyFileSearch',
  'weft/provider/list',
  'weft/auth/setKey',
  'weft/auth/clearKey',
  'weft/rules/list',
  'weft/rules/revoke',
  'weft/checkpoints/preview',
  'weft/checkpoints/previewFile',
  'weft/checkpoints/redo',
  'weft/checkpoints/revertHunk',
  'weft/checkpoints/size',
  'weft/forks/list',
  'weft/forks/compare',
  'weft/forks/remove',
  'weft/forks/bringBack',
  'weft/worktree/handoff/preview',
  'weft/worktree/handoff',
  'weft/worktree/compare',
  'weft/worktree/remove',
  'weft/thread/pin',
  'thread/readState/update',
  'weft/fs/complete',
  'weft/environment/list',
  'weft/environment/install',
  'weft/environment/install/cancel',
  'weft/projectConfig/list',
  'weft/usage/daily',
  'weft/automations/list',
  'weft/automations/read',
  'weft/automations/create',
  'weft/automations/update',
  'weft/automations/remove',
  'weft/automations/runNow',
  'weft/automations/runs',
  'weft/automations/checkSchedule',
  'weft/automations/inbox/list',
  'weft/automations/inbox/read',
  'weft/automations/inbox/markSeen',
  'weft/automations/inbox/keep',
  'weft/automations/inbox/discard',
  'weft/projectConfig/trust',
  'hooks/list',
  'weft/hooks/trust',
  'weft/hooks/setEnabled',
  'mcpServerStatus/list',
  'config/mcpServer/reload',
  'mcpServer/tool/call',
  'mcpServer/oauth/login',
  'review/start',
  'weft/git/status',
  'weft/git/diff',
  'weft/git/stage',
  'weft/git/unstage',
  'weft/git/discard',
  'weft/git/discard/list',
  'weft/git/discard/restore',
  'weft/git/commit',
  'weft/git/lastCommit',
  'weft/git/commitMessage',
  'weft/git/push',
  'weft/git/branches',
  'weft/git/checkout',
];

const serverNotificationMethods = [
  'thread/started',
  'thread/status/changed',
  'thread/archived',
  'thread/unarchived',
  'thread/name/updated',
  'thread/readState/changed',
  'thread/closed',
  'thread/reverted',
  'thread/tokenUsage/updated',
  'turn/started',
  'turn/completed',
  'turn/diff/updated',
  'weft/turn/diffChanged',
  'weft/browser/live/frame',
  'weft/browser/live/closed',
  'turn/plan/updated',
  'hook/started',
  'hook/completed',
  'item/started',
  'item/completed',
  'item/agentMessage/delta',
  'item/reasoning/summaryTextDelta',
  'item/reasoning/summaryPartAdded',
  'item/reasoning/textDelta',
  'item/commandExecution/outputDelta',
  'item/fileChange/outputDelta',
  'serverRequest/resolved',
  'item/mcpToolCall/progress',
  'mcpServer/startupStatus/updated',
  'mcpServer/oauthLogin/completed',
  'command/exec/outputDelta',
  'weft/git/progress',
  'weft/threads/indexed',
  'weft/thread/turnsRestored',
  'weft/environment/status',
  'weft/environment/install/progress',
  'weft/automations/runEnded',
  'error',
  'warning',
];

const serverRequestMethods = [
  'item/commandExecution/requestApproval',
  'item/fileChange/requestApproval',
  'item/tool/requestUserInput',
];

describe('method tables', () => {
  it('ClientRequests holds exactly the documented methods, each with params and result schemas', () => {
    expect(Object.keys(ClientRequests).sort()).toEqual([...clientRequestMethods].sort());
    for (const method of clientRequestMethods) {
      expect(isClientRequestMethod(method)).toBe(true);
    }
    expect(isClientRequestMethod('toString')).toBe(false);
    expect(isClientRequestMethod('thread/delete')).toBe(false);
  });

  it('ServerNotifications holds exactly the documented notifications', () => {
    expect(Object.keys(ServerNotifications).sort()).toEqual([...serverNotificationMethods].sort());
    expect(serverNotificationMethods.every(isServerNotificationMethod)).toBe(true);
  });

  it('ServerRequests holds exactly the documented server requests', () => {
    expect(Object.keys(ServerRequests).sort()).toEqual([...serverRequestMethods].sort());
    expect(serverRequestMethods.every(isServerRequestMethod)).toBe(true);
  });

  it('accepts initialized with or without params', () => {
    expect(ClientNotifications.initialized.safeParse(undefined).success).toBe(true);
    expect(ClientNotifications.initialized.safeParse({}).success).toBe(true);
  });

  it('parses params of methods whose fields are all optional when params are omitted', () => {
    for (const method of ['thread/start', 'thread/list', 'thread/loaded/list', 'model/list', 'config/read'] as const) {
      expect(ClientRequests[method].params.parse(undefined)).toEqual({});
    }
    expect(ClientRequests['thread/read'].params.safeParse(undefined).success).toBe(false);
  });

  it('derives the types from the table', () => {
    expectTypeOf<ParamsOf<'thread/read'>>().toEqualTypeOf<{
      threadId: string;
      includeTurns?: boolean | null | undefined;
      weftEnvironment?: string | null | undefined;
    }>();
    expectTypeOf<undefined>().toExtend<ParamsInput<'thread/list'>>();
    expectTypeOf<ParamsOf<'thread/list'>>().not.toExtend<undefined>();
    expectTypeOf<ResultOf<'fs/readFile'>>().toEqualTypeOf<{ dataBase64: string }>();
    expectTypeOf<NotificationParams<'item/completed'>>().toEqualTypeOf<{
      threadId: string;
      turnId: string;
      item: ThreadItem;
      completedAtMs: number;
    }>();
    expectTypeOf<ServerRequestResult<'item/tool/requestUserInput'>>().toEqualTypeOf<{
      answers: Record<string, { answers: string[] }>;
    }>();

    const note: ServerNotification = { method: 'turn/diff/updated', params: { threadId: 't', turnId: 'u', diff: '' } };
    if (note.method === 'turn/diff/updated') expectTypeOf(note.params.diff).toEqualTypeOf<string>();
    const request: ServerRequest = {
      method: 'item/fileChange/requestApproval',
      params: { threadId: 't', turnId: 'u', itemId: 'i', startedAtMs: 1 },
    };
    if (request.method === 'item/fileChange/requestApproval')
      expectTypeOf(request.params.itemId).toEqualTypeOf<string>();
    expect(note.method).toBe('turn/diff/updated');
    expect(request.method).toBe('item/fileChange/requestApproval');
  });
});
