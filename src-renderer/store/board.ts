// The board: where each thread of the open projects stands for the person — running (and doing what),
// needing them (an approval, a question, a failed turn they have not seen), done since they last looked,
// or idle — from what the server tells every client (statuses, read states, how turns ended) and the
// requests that reached this window.
import type { Thread, TurnStatus, WeftThreadStep } from '../../src-preload/protocol';
import type { AppData } from './state';
import { projectOf } from './thread-list';

export type BoardState =
  /** Waits on the person: an approval, a question, or a failed turn they have not looked at since. */
  | { kind: 'needsYou'; why: 'approval' | 'question' | 'failed'; step: WeftThreadStep | null }
  /** A turn runs; `step` is what it does now (null when the server does not say). */
  | { kind: 'running'; step: WeftThreadStep | null }
  /** A turn ended that the person has not looked at since. */
  | { kind: 'done'; ended: TurnStatus | null }
  /** Nothing to see; `failed` when its last turn failed (and they saw it). */
  | { kind: 'idle'; failed: boolean };

/** Whether the thread has something the person has not seen (a turn ended, or someone marked it unread). */
export function isUnread(data: AppData, threadId: string): boolean {
  return data.readStates[threadId] !== undefined;
}

export function boardState(data: AppData, threadId: string): BoardState {
  const status = data.statuses[threadId];
  const lastTurn = data.lastTurnStatus[threadId] ?? null;
  const requests = data.approvals.filter((request) => request.params.threadId === threadId);
  const step = status?.type === 'active' ? (status.weftStep ?? null) : null;
  const flags = status?.type === 'active' ? status.activeFlags : [];
  if (requests.some((r) => r.method === 'item/tool/requestUserInput') || flags.includes('waitingOnUserInput'))
    return { kind: 'needsYou', why: 'question', step };
  if (requests.length > 0 || flags.includes('waitingOnApproval')) return { kind: 'needsYou', why: 'approval', step };
  if (status?.type === 'active' || lastTurn === 'inProgress') return { kind: 'running', step };
  const failed = status?.type === 'systemError' || lastTurn === 'failed';
  if (isUnread(data, threadId))
    return failed ? { kind: 'needsYou', why: 'failed', step: null } : { kind: 'done', ended: lastTurn };
  return { kind: 'idle', failed };
}

export const needsYou = (data: AppData, threadId: string): boolean => boardState(data, threadId).kind === 'needsYou';

/** The live threads the window knows of a project: the shown project's list, or another's first page. */
export function threadsOfProject(data: AppData, project: string): readonly Thread[] {
  return project === data.cwd ? data.live : (data.elsewhere[project] ?? []);
}

/** The threads of the open projects that need the person, project by project (in `projects`' order). */
export function threadsNeedingYou(data: AppData, projects: readonly string[]): Thread[] {
  return projects.flatMap((project) => threadsOfProject(data, project).filter((t) => needsYou(data, t.id)));
}

/** How many threads of a project need the person. */
export function needsYouCount(data: AppData, project: string): number {
  return threadsOfProject(data, project).filter((t) => needsYou(data, t.id)).length;
}

/**
 * The thread that needs the person after the one shown (in the order "Needs me" lists them, going round),
 * with its project; null when none does (or only the one shown).
 */
export function nextNeedingYou(
  data: AppData,
  projects: readonly string[],
  shown: string | null,
): { thread: Thread; project: string } | null {
  const all = threadsNeedingYou(data, projects);
  const at = all.findIndex((t) => t.id === shown);
  const next = all[(at + 1) % Math.max(all.length, 1)];
  if (next === undefined || next.id === shown) return null;
  const project = projects.find((p) => threadsOfProject(data, p).includes(next)) ?? projectOf(next);
  return { thread: next, project };
}
