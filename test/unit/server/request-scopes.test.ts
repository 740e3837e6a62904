// Each method's place in its thread's queue comes from the method table (`ClientRequests[…].queue`):
// what takes the queue how, and what takes none.
import { describe, expect, it } from 'vitest';
import { requestScope } from '../../../src-main/server/request-scopes';

describe('requestScope', () => {
  it('puts each request in its thread queue as the method table says', () => {
    const threadId = 't1';
    expect({
      turnStart: requestScope('turn/start', { threadId }),
      pin: requestScope('weft/thread/pin', { threadId, pinned: true }),
      read: requestScope('thread/read', { threadId }),
      toolCall: requestScope('mcpServer/tool/call', { threadId }),
      list: requestScope('thread/list', {}),
      gitStatus: requestScope('weft/git/status', { threadId }),
    }).toEqual({
      turnStart: { threadId, mode: 'exclusive' },
      pin: { threadId, mode: 'exclusive' },
      read: { threadId, mode: 'shared' },
      toolCall: { threadId, mode: 'after' },
      list: null,
      gitStatus: null,
    });
  });

  it('takes no queue when the request names no thread', () => {
    expect([
      requestScope('turn/start', {}),
      requestScope('turn/start', { threadId: '' }),
      requestScope('turn/start', null),
    ]).toEqual([null, null, null]);
  });
});
