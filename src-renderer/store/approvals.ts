// Server requests waiting on the person. They arrive as requests (not notifications) and leave when the
// UI answers or when `serverRequest/resolved` says the server cleared them.
import type { RequestId } from '../../src-preload/protocol';
import type { IncomingServerRequest } from '../client/types';
import { isSubAgentOf } from './selectors';
import type { AppData } from './state';

export function addServerRequest(state: AppData, request: IncomingServerRequest): AppData {
  if (state.approvals.some((r) => r.id === request.id)) return state;
  return { ...state, approvals: [...state.approvals, request] };
}

export function removeServerRequest(state: AppData, id: RequestId): AppData {
  if (!state.approvals.some((r) => r.id === id)) return state;
  return { ...state, approvals: state.approvals.filter((r) => r.id !== id) };
}

/** After a reconnect the old connection's requests are void: the server cancelled them. */
export function clearServerRequests(state: AppData): AppData {
  return state.approvals.length === 0 ? state : { ...state, approvals: [] };
}

/**
 * The oldest pending request of a thread, if any, else of one of its sub-agents (their approvals are asked
 * where the parent is shown, labelled with the sub-agent).
 */
export function firstRequestFor(state: AppData, threadId: string | null): IncomingServerRequest | null {
  if (threadId === null) return null;
  return (
    state.approvals.find((r) => r.params.threadId === threadId) ??
    state.approvals.find((r) => isSubAgentOf(state, r.params.threadId, threadId)) ??
    null
  );
}
