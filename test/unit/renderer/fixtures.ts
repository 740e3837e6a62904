// Builders for renderer tests: protocol objects with sensible defaults, and notifications typed by method.
import type {
  NotificationParamsInput,
  ServerNotification,
  ServerNotificationMethod,
  Thread,
  ThreadItem,
  Turn,
} from '../../../src-preload/protocol';
import { classifyMessage } from '../../../src-preload/protocol';

export const CWD = '/home/ada/project';

export function makeThread(overrides: Partial<Thread> = {}): Thread {
  return {
    id: 'thr_1',
    sessionId: 'thr_1',
    projectId: null,
    forkedFromId: null,
    preview: 'Fix the build',
    ephemeral: false,
    modelProvider: 'mock',
    createdAt: 1_700_000_000,
    updatedAt: 1_700_000_000,
    status: { type: 'idle' },
    path: '/home/ada/.weft/sessions/rollout.jsonl',
    cwd: CWD,
    cliVersion: '0.1.0',
    source: 'appServer',
    gitInfo: null,
    name: null,
    turns: [],
    ...overrides,
  };
}

export function makeTurn(overrides: Partial<Turn> = {}): Turn {
  return {
    id: 'turn_1',
    items: [],
    status: 'inProgress',
    error: null,
    startedAt: 1_700_000_100,
    completedAt: null,
    durationMs: null,
    ...overrides,
  };
}

export const userMessage = (id = 'u1', text = 'hello'): ThreadItem => ({
  type: 'userMessage',
  id,
  content: [{ type: 'text', text }],
});
export const agentMessage = (id = 'm1', text = ''): ThreadItem => ({ type: 'agentMessage', id, text, phase: null });
export const reasoning = (id = 'r1', summary: string[] = [], content: string[] = []): ThreadItem => ({
  type: 'reasoning',
  id,
  summary,
  content,
});
export function command(
  id = 'c1',
  overrides: Partial<Extract<ThreadItem, { type: 'commandExecution' }>> = {},
): ThreadItem {
  return {
    type: 'commandExecution',
    id,
    command: 'npm test',
    cwd: CWD,
    processId: null,
    status: 'inProgress',
    commandActions: [],
    aggregatedOutput: null,
    exitCode: null,
    durationMs: null,
    ...overrides,
  };
}

/** A notification as the client delivers it: parsed by the protocol schema, so fixtures cannot drift. */
export function note<M extends ServerNotificationMethod>(
  method: M,
  params: NotificationParamsInput<M>,
): ServerNotification {
  const message = classifyMessage({ method, params }, 'The Weft UI');
  if (message.kind !== 'notification') throw new Error(`fixture ${method} does not parse: ${JSON.stringify(message)}`);
  return message.notification;
}

/** Freezes a value and everything reachable from it, so a reducer that mutates its input throws. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

/** The answer to `thread/resume` (or `thread/start`) of `thread`, as the server gives it. */
export const resumedThread = (thread: Thread) => ({
  thread,
  model: 'mock-model',
  modelProvider: 'mock',
  cwd: thread.cwd,
  approvalPolicy: 'on-request',
  approvalsReviewer: 'user',
  sandbox: { type: 'dangerFullAccess' },
  reasoningEffort: null,
});
