/**
 * Which requests take their thread's queue (`params.threadId`), and how: the method table says it for
 * every method (`ClientRequests[method].queue`, see `RequestQueueMode`), so a new method is a compile
 * error there until someone decides.
 */
import { ClientRequests, type ClientRequestMethod } from '../../src-preload/protocol';
import type { QueueMode } from './request-queue';

/** The thread queue a request (its params already validated) is handled in, or null. */
export function requestScope(
  method: ClientRequestMethod,
  params: unknown,
): { threadId: string; mode: QueueMode } | null {
  const mode: QueueMode | null = ClientRequests[method].queue;
  if (mode === null || typeof params !== 'object' || params === null || !('threadId' in params)) return null;
  const threadId = params.threadId;
  return typeof threadId === 'string' && threadId !== '' ? { threadId, mode } : null;
}
