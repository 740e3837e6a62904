// `[agents]` of config.toml as the sub-agent tools use it: the limits of open sub-agents and of depth, and the roles.
import { DEFAULT_AGENT_MAX_DEPTH, DEFAULT_AGENT_MAX_THREADS, type WeftConfig } from '../../config/schema';
import type { AgentRole } from './types';

/** Keys of `[agents]` that are settings, not roles. */
const SETTINGS = new Set(['max_threads', 'max_depth']);

export function agentMaxThreads(config: WeftConfig): number {
  return config.agents?.max_threads ?? DEFAULT_AGENT_MAX_THREADS;
}

/** How deep below a root thread a sub-agent may be (`agents.max_depth`); a thread at this depth spawns none. */
export function agentMaxDepth(config: WeftConfig): number {
  return config.agents?.max_depth ?? DEFAULT_AGENT_MAX_DEPTH;
}

/** The roles configured as `[agents.<name>]` tables, by name. */
export function agentRoles(config: WeftConfig): Record<string, AgentRole> {
  const roles: Record<string, AgentRole> = {};
  for (const [name, value] of Object.entries(config.agents ?? {})) {
    if (SETTINGS.has(name) || typeof value !== 'object') continue;
    roles[name] = {
      description: value.description,
      ...(value.developer_instructions === undefined ? {} : { developerInstructions: value.developer_instructions }),
      ...(value.model === undefined ? {} : { model: value.model }),
      ...(value.model_reasoning_effort === undefined ? {} : { effort: value.model_reasoning_effort }),
    };
  }
  return roles;
}
