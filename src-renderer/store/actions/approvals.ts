// What the agent waits on the person for: command and patch approvals and questions (server requests,
// queued as they arrive), answered here; a patch review can be set aside and opened again.
import type { CommandExecutionApprovalDecision, FileChangeRequestApprovalResult } from '../../../src-preload/protocol';
import type { IncomingServerRequest } from '../../client/types';
import { addServerRequest, removeServerRequest } from '../approvals';
import { setData, setUi } from '../store';
import type { ActionContext } from './context';

export function createApprovals(ctx: ActionContext) {
  const { client, store, batcher, toast } = ctx;

  /** Sends the answer; the request leaves the queue even when the connection refused it (told as a toast). */
  const answer = (request: IncomingServerRequest, send: () => void): void => {
    try {
      send();
    } catch (error) {
      toast(error instanceof Error ? error.message : String(error));
    }
    setData(store, (data) => removeServerRequest(data, request.id));
  };

  const onServerRequest = (request: IncomingServerRequest): void => {
    batcher.flush();
    setData(store, (data) => addServerRequest(data, request));
  };

  const actions = {
    answerCommand(
      request: Extract<IncomingServerRequest, { method: 'item/commandExecution/requestApproval' }>,
      decision: CommandExecutionApprovalDecision,
    ): void {
      answer(request, () => client.respond(request, { decision }));
    },

    answerPatch(
      request: Extract<IncomingServerRequest, { method: 'item/fileChange/requestApproval' }>,
      result: FileChangeRequestApprovalResult,
    ): void {
      answer(request, () => client.respond(request, result));
    },

    answerUserInput(
      request: Extract<IncomingServerRequest, { method: 'item/tool/requestUserInput' }>,
      answers: Record<string, string[]>,
    ): void {
      const result = {
        answers: Object.fromEntries(Object.entries(answers).map(([id, list]) => [id, { answers: list }])),
      };
      answer(request, () => client.respond(request, result));
    },

    /** Closes a patch review without answering it (it stays pending) or opens it again. */
    setReviewAside(requestId: string | number, aside: boolean): void {
      const id = String(requestId);
      setUi(store, (ui) => ({
        reviewsSetAside: aside
          ? [...ui.reviewsSetAside.filter((r) => r !== id), id]
          : ui.reviewsSetAside.filter((r) => r !== id),
      }));
    },
  };

  return { onServerRequest, actions };
}
