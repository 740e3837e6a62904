/**
 * Which requests take their thread's queue (`params.threadId`), and how (see `QueueMode`). A request that
 * changes a thread or depends on what the requests before it did is `exclusive`; one that only reads is
 * `shared`; one that may run long without changing the thread is `after`; null: the request names no
 * thread (or one only by chance, as the git methods a project's threads share). Every method is listed:
 * a new one is a compile error here until someone decides.
 */
import type { ClientRequestMethod } from '../../src-preload/protocol';
import type { QueueMode } from './request-queue';

const SCOPES: { readonly [M in ClientRequestMethod]: QueueMode | null } = {
  initialize: null,
  'thread/start': null,
  'thread/resume': 'exclusive',
  'thread/fork': 'exclusive',
  'thread/archive': 'exclusive',
  'thread/unarchive': 'exclusive',
  'thread/unsubscribe': 'exclusive',
  'thread/list': null,
  'thread/loaded/list': null,
  'thread/read': 'shared',
  'thread/turns/list': 'shared',
  'thread/name/set': 'exclusive',
  'weft/thread/pin': 'exclusive',
  'thread/rollback': 'exclusive',
  'thread/revert': 'exclusive',
  'weft/checkpoints/preview': 'shared',
  'weft/checkpoints/redo': 'exclusive',
  'weft/checkpoints/revertHunk': 'exclusive',
  'weft/checkpoints/size': null,
  'weft/forks/list': null,
  'weft/forks/compare': 'shared',
  'weft/forks/remove': 'exclusive',
  'weft/forks/bringBack': null,
  'thread/compact/start': 'exclusive',
  'turn/start': 'exclusive',
  'turn/steer': 'exclusive',
  'turn/interrupt': 'exclusive',
  'model/list': null,
  'config/read': null,
  'config/value/write': null,
  'fs/readFile': null,
  'weft/provider/list': null,
  'weft/auth/setKey': null,
  'weft/auth/clearKey': null,
  'weft/rules/list': null,
  'weft/rules/revoke': null,
  'weft/fs/complete': null,
  'account/read': null,
  'skills/list': null,
  'mcpServerStatus/list': 'after',
  'config/mcpServer/reload': null,
  'mcpServer/tool/call': 'after',
  'mcpServer/oauth/login': null,
  'command/exec': null,
  'command/exec/write': null,
  'command/exec/resize': null,
  'command/exec/terminate': null,
  'thread/shellCommand': 'exclusive',
  fuzzyFileSearch: null,
  'review/start': 'exclusive',
  'weft/git/status': null,
  'weft/git/diff': null,
  'weft/git/stage': null,
  'weft/git/unstage': null,
  'weft/git/discard': null,
  'weft/git/discard/list': null,
  'weft/git/discard/restore': null,
  'weft/git/commit': null,
  'weft/git/lastCommit': null,
  'weft/git/commitMessage': null,
  'weft/git/push': null,
  'weft/git/branches': null,
  'weft/git/checkout': null,
  'weft/projectConfig/list': null,
  'weft/projectConfig/trust': null,
};

/** The thread queue a request (its params already validated) is handled in, or null. */
export function requestScope(
  method: ClientRequestMethod,
  params: unknown,
): { threadId: string; mode: QueueMode } | null {
  const mode = SCOPES[method];
  if (mode === null || typeof params !== 'object' || params === null || !('threadId' in params)) return null;
  const threadId = params.threadId;
  return typeof threadId === 'string' && threadId !== '' ? { threadId, mode } : null;
}
