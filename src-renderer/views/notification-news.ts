// What, between two versions of the app's data, the person should be told of while the page is in the
// background: a request that began waiting (an approval, or the agent's question), a turn that
// finished or failed, and an automation's run that ended (when its `notify` setting asks). Pure; notifications.ts shows the news (or not, as the settings say).
import type { IncomingServerRequest, NotificationKind } from '../../src-preload/protocol';
import { automationRunEndText } from '../../src-preload/protocol';
import { findThread, threadTitle } from '../store/selectors';
import type { AppData } from '../store/state';

export interface News {
  /** One per thing told of: a request's id, or the thread and turn (a reminder replaces its notification). */
  key: string;
  kind: NotificationKind;
  threadId: string;
  title: string;
  body: string;
  /** The waiting request (approval or question), while it waits. */
  requestId: string | null;
  /** An automation's run ended: a click opens the review inbox, not the thread. */
  inbox?: boolean;
}

const MAX_BODY = 140;

function cut(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > MAX_BODY ? `${line.slice(0, MAX_BODY - 1)}…` : line;
}

function titleOf(data: AppData, threadId: string): string {
  const thread = findThread(data, threadId);
  return thread === undefined ? 'Weft' : threadTitle(thread);
}

/** The kind and the line a waiting request is told with. */
export function requestNews(request: IncomingServerRequest): { kind: NotificationKind; body: string } {
  switch (request.method) {
    case 'item/commandExecution/requestApproval':
      return { kind: 'approval', body: cut(`Approve the command: ${request.params.command}`) };
    case 'item/fileChange/requestApproval':
      return { kind: 'approval', body: 'Review the changes the agent proposes.' };
    case 'item/tool/requestUserInput': {
      const question = request.params.questions[0]?.question ?? '';
      return { kind: 'question', body: question === '' ? 'The agent has a question for you.' : cut(question) };
    }
  }
}

export function newsBetween(previous: AppData, data: AppData): News[] {
  const news: News[] = [];
  if (data.approvals !== previous.approvals) {
    const before = new Set(previous.approvals.map((r) => String(r.id)));
    for (const request of data.approvals) {
      const id = String(request.id);
      if (before.has(id)) continue;
      const threadId = request.params.threadId;
      news.push({
        key: `request-${id}`,
        threadId,
        title: titleOf(data, threadId),
        requestId: id,
        ...requestNews(request),
      });
    }
  }
  if (data.lastTurnStatus !== previous.lastTurnStatus) {
    for (const [threadId, status] of Object.entries(data.lastTurnStatus)) {
      if (status === previous.lastTurnStatus[threadId]) continue;
      if (status !== 'completed' && status !== 'failed') continue;
      news.push({
        key: `turn-${threadId}`,
        kind: status === 'failed' ? 'turn_failed' : 'turn_finished',
        threadId,
        title: titleOf(data, threadId),
        body: status === 'failed' ? 'The turn failed.' : 'The turn finished.',
        requestId: null,
      });
    }
  }
  if (data.endedRuns !== previous.endedRuns) {
    const before = new Set(previous.endedRuns.map((r) => r.automationRun.run.runId));
    for (const { automationRun, notify } of data.endedRuns) {
      const { run } = automationRun;
      if (!notify || before.has(run.runId)) continue;
      const failed = run.status !== 'completed';
      news.push({
        key: `automation-${run.runId}`,
        kind: failed ? 'turn_failed' : 'turn_finished',
        threadId: run.threadId ?? '',
        title: `Automation: ${automationRun.automationName}`,
        body: cut(automationRunEndText(run)),
        requestId: null,
        inbox: true,
      });
    }
  }
  return news;
}
