// A sub-agent's status in Codex's other spelling, the one its model outputs and rollouts use (serde's
// snake case of an enum with data): "pending_init", "running", "interrupted", "shutdown", "not_found", or
// {"completed": last answer | null} and {"errored": message}. The wire spells it `CollabAgentState`
// (`{status: "pendingInit", message}`); both sides convert here.
import { z } from 'zod';
import { lazySchema } from './lazy-schema';
import type { CollabAgentState, CollabAgentStatus } from './items';

export const AgentStatusForm = lazySchema(() =>
  z.union([
    z.enum(['pending_init', 'running', 'interrupted', 'shutdown', 'not_found']),
    z.strictObject({ completed: z.string().nullable() }),
    z.strictObject({ errored: z.string() }),
  ]),
);
export type AgentStatusForm = z.infer<typeof AgentStatusForm>;

const PLAIN = {
  pending_init: 'pendingInit',
  running: 'running',
  interrupted: 'interrupted',
  shutdown: 'shutdown',
  not_found: 'notFound',
} as const satisfies Record<string, CollabAgentStatus>;

/** The wire state of a status form. */
export function agentStateOf(form: AgentStatusForm): CollabAgentState {
  if (typeof form === 'string') return { status: PLAIN[form], message: null };
  if ('completed' in form) return { status: 'completed', message: form.completed };
  return { status: 'errored', message: form.errored };
}

/** The status form of a wire state. */
export function agentStatusFormOf(state: CollabAgentState): AgentStatusForm {
  switch (state.status) {
    case 'pendingInit':
      return 'pending_init';
    case 'running':
    case 'interrupted':
    case 'shutdown':
      return state.status;
    case 'notFound':
      return 'not_found';
    case 'completed':
      return { completed: state.message };
    case 'errored':
      return { errored: state.message ?? '' };
  }
}

/** Whether a sub-agent in this state has stopped: what `wait_agent` waits for. */
export function isFinalAgentState(state: CollabAgentState): boolean {
  return state.status !== 'pendingInit' && state.status !== 'running';
}
