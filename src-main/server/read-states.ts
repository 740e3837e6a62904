// Whether each thread was read since its last turn ended (Codex's `thread/readState/*`): kept in the
// thread's rollout as marks (`weft_thread_read_state`, see store/thread-events.ts), so every client and
// every restart sees the same; marked unread when a turn ends and read (or unread) by a client; every
// change is told to every client with `thread/readState/changed`.
import {
  READ_STATE_CONFLICT_CODE,
  type Thread,
  type ThreadReadState,
  type ThreadReadStateUpdateParams,
} from '../../src-preload/protocol';
import { attributeFields, readStateOf } from '../store/thread-events';
import type { ThreadStore } from '../store/thread-store';
import { errorMessage } from '../util/errors';
import { storeCallAsync } from './handlers/store-call';
import { invalidRequest, RpcError } from './rpc-error';
import type { ThreadManager } from './thread-manager';

/** The read state of a thread never marked. */
export const NEVER_MARKED: ThreadReadState = { firstUnread: null, revision: '0' };

/** A thread's read state as a Thread carries it. */
export const readStateOfThread = (thread: Thread): ThreadReadState => thread.weftReadState ?? NEVER_MARKED;

export interface ReadStates {
  /** A turn of a loaded thread ended: the thread is unread from it (recorded in the thread's queue). */
  turnEnded(threadId: string, turnId: string): void;
  /** `thread/readState/update`, given the thread as it is now (read within the thread's queue). */
  update(thread: Thread, params: ThreadReadStateUpdateParams): Promise<ThreadReadState>;
}

export function createReadStates(store: ThreadStore, manager: ThreadManager, log: (line: string) => void): ReadStates {
  const mark = async (threadId: string, kind: 'read' | 'unread' | 'turnEnded', turnId?: string) => {
    const attributes = await storeCallAsync(() =>
      store.recordAttribute(threadId, {
        type: 'weft_thread_read_state',
        mark: kind,
        ...(turnId === undefined ? {} : { ended_turn_id: turnId }),
      }),
    );
    manager.updateThread(threadId, attributeFields(attributes));
    const readState = readStateOf(attributes) ?? NEVER_MARKED;
    manager.broadcast({ method: 'thread/readState/changed', params: { threadId, readState } });
    return readState;
  };

  return {
    turnEnded(threadId, turnId) {
      if (manager.get(threadId)?.thread.ephemeral !== false) return;
      void manager
        .run(threadId, 'exclusive', () => mark(threadId, 'turnEnded', turnId))
        .catch((error: unknown) =>
          log(`weft app-server: thread ${threadId} could not be marked unread: ${errorMessage(error)}`),
        );
    },

    async update(thread, params) {
      if (thread.ephemeral)
        throw invalidRequest(
          `thread ${thread.id} is ephemeral: nothing of it is saved, so it keeps no read state; start a thread without \`ephemeral\` to keep one`,
        );
      const now = readStateOfThread(thread);
      if (now.revision !== params.expectedRevision)
        throw new RpcError(
          READ_STATE_CONFLICT_CODE,
          `thread ${thread.id} changed since its read state was shown (revision ${params.expectedRevision}, now ${now.revision}): a turn ended or someone marked it; show it again and mark what is shown`,
          { readState: now },
        );
      const unread = now.firstUnread !== null;
      if ((params.operation.type === 'read') !== unread) return now;
      return mark(thread.id, params.operation.type);
    },
  };
}
