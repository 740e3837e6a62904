// What the session stamps on what it sends (tools build notifications and requests without them): when
// an item started and completed, when an approval was asked; questions always block the turn.
import type { ServerNotification, ServerRequest } from '../../src-preload/protocol';
import type { CoreNotification, ToolServerRequest } from '../tools/types';

/** An item's `startedAtMs` / `completedAtMs`, from `nowMs` when the tool gave none. */
export function stampNotification(event: CoreNotification, nowMs: () => number): ServerNotification {
  switch (event.method) {
    case 'item/started':
      return { method: event.method, params: { ...event.params, startedAtMs: event.params.startedAtMs ?? nowMs() } };
    case 'item/completed':
      return {
        method: event.method,
        params: { ...event.params, completedAtMs: event.params.completedAtMs ?? nowMs() },
      };
    default:
      return event;
  }
}

/** An approval's `startedAtMs` (when it was asked); a question's `isBlocking` (true unless said). */
export function stampRequest(request: ToolServerRequest, nowMs: number): ServerRequest {
  switch (request.method) {
    case 'item/tool/requestUserInput':
      return { method: request.method, params: { ...request.params, isBlocking: request.params.isBlocking ?? true } };
    case 'item/commandExecution/requestApproval':
      return {
        method: request.method,
        params: { ...request.params, startedAtMs: request.params.startedAtMs ?? nowMs },
      };
    case 'item/fileChange/requestApproval':
      return {
        method: request.method,
        params: { ...request.params, startedAtMs: request.params.startedAtMs ?? nowMs },
      };
  }
}
