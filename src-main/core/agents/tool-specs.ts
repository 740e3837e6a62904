// The sub-agent tools as the model sees them: Codex 0.169's `multi_agent_v1` functions (names, arguments
// and JSON schemas as Codex offers them; test/fixtures/codex-agents-0.169/tools.json), with Weft's own
// descriptions. Responses providers get them as one namespace, Chat Completions providers as flat functions.
import { z } from 'zod';
import type { FunctionToolSpec, ToolSpec } from '../../model/types';
import type { AgentRole } from './types';

export const AGENTS_NAMESPACE = 'multi_agent_v1';

/** The longest and shortest wait, and the wait when the model names none (as Codex bounds them). */
export const WAIT_DEFAULT_MS = 30_000;
export const WAIT_MIN_MS = 10_000;
export const WAIT_MAX_MS = 3_600_000;

/** One structured input item (`items`): text, an image by URL or path, a skill or a mention. */
export const InputItemArg = z.object({
  type: z.string(),
  text: z.string().optional(),
  image_url: z.string().optional(),
  audio_url: z.string().optional(),
  path: z.string().optional(),
  name: z.string().optional(),
});
export type InputItemArg = z.infer<typeof InputItemArg>;

export const SpawnArgs = z.object({
  message: z.string().optional(),
  items: z.array(InputItemArg).optional(),
  agent_type: z.string().optional(),
  fork_context: z.boolean().optional(),
  model: z.string().optional(),
  reasoning_effort: z.string().optional(),
});
export const SendInputArgs = z.object({
  target: z.string(),
  message: z.string().optional(),
  items: z.array(InputItemArg).optional(),
  interrupt: z.boolean().optional(),
});
export const WaitArgs = z.object({ targets: z.array(z.string()), timeout_ms: z.number().optional() });
export const CloseArgs = z.object({ target: z.string() });
export const ResumeArgs = z.object({ id: z.string() });

const string = (description: string) => ({ type: 'string', description });
const boolean = (description: string) => ({ type: 'boolean', description });

const itemsProperty = {
  type: 'array',
  description: 'Input as structured items, when plain text is not enough (images, skills, mentions).',
  items: {
    type: 'object',
    properties: {
      audio_url: string('Not supported by Weft: audio input is refused.'),
      image_url: string('The image URL, for type image.'),
      name: string('The name shown, for type skill or mention.'),
      path: string('The file, for type local_image or skill; the target (app://… or plugin://…) for type mention.'),
      text: string('The text, for type text.'),
      type: string('One of: text, image, local_image, skill, mention.'),
    },
    additionalProperties: false,
  },
};

function fn(name: string, description: string, properties: object, required?: string[]): FunctionToolSpec {
  return {
    type: 'function',
    name,
    description,
    strict: false,
    parameters: {
      type: 'object',
      properties,
      ...(required ? { required } : {}),
      additionalProperties: false,
    },
  };
}

function roleList(roles: Readonly<Record<string, AgentRole>>): string {
  const lines = Object.entries(roles).map(([name, role]) => `- ${name}: ${role.description}`);
  return ['- default: an agent like you, with your instructions.', ...lines].join('\n');
}

/** The five functions, in Codex's order; `agent_type` is offered when roles are configured. */
export function agentFunctionSpecs(roles: Readonly<Record<string, AgentRole>>): FunctionToolSpec[] {
  const withRoles = Object.keys(roles).length > 0;
  return [
    fn(
      'close_agent',
      'Close a sub-agent you no longer need and get the status it had. A finished sub-agent stays open, and ' +
        'counts toward the limit of open sub-agents, until you close it. Its thread is kept.',
      { target: string('The id of the sub-agent to close (from spawn_agent).') },
      ['target'],
    ),
    fn(
      'resume_agent',
      'Open a sub-agent you closed again, so that send_input and wait_agent reach it.',
      { id: string('The id of the sub-agent to open again.') },
      ['id'],
    ),
    fn(
      'send_input',
      'Send a sub-agent more work or an answer. Without interrupt the message joins what it is doing; with ' +
        'interrupt=true it stops and takes the message at once. Prefer a sub-agent that already has the context.',
      {
        interrupt: boolean('True stops what the sub-agent is doing and gives it this message now.'),
        items: itemsProperty,
        message: string('The message, as plain text (or give items).'),
        target: string('The id of the sub-agent (from spawn_agent).'),
      },
      ['target'],
    ),
    fn(
      'spawn_agent',
      'Start a sub-agent: a thread of its own, with your working directory, sandbox and approvals, that works ' +
        'on the task you give it while you go on. Returns its id and nickname. Spawn only when the user or ' +
        'the project instructions ask for sub-agents or parallel work; give each a concrete, self-contained ' +
        'task (for code changes, files no other agent touches), and do not redo what you delegated.' +
        (withRoles ? `\nRoles (agent_type):\n${roleList(roles)}` : ''),
      {
        ...(withRoles
          ? { agent_type: string(`The role of the sub-agent; omitted: default. One of:\n${roleList(roles)}`) }
          : {}),
        fork_context: boolean('True gives the sub-agent a copy of this conversation; false or omitted, only its task.'),
        items: itemsProperty,
        message: string('The task, as plain text (or give items).'),
        model: string('A model for the sub-agent; omitted: yours. Set it only when asked to.'),
        reasoning_effort: string('A reasoning effort for the sub-agent; omitted: yours.'),
      },
    ),
    fn(
      'wait_agent',
      'Wait until one of the sub-agents finishes (completed, failed, interrupted or closed) and get its status, ' +
        'with its last message when it completed. Returns an empty status when the wait times out. Wait only ' +
        'when your next step needs the result; you also get a message when a sub-agent finishes.',
      {
        targets: {
          type: 'array',
          description: 'The ids of the sub-agents to wait for; the first to finish ends the wait.',
          items: { type: 'string' },
        },
        timeout_ms: {
          type: 'number',
          description: `How long to wait, in milliseconds: default ${WAIT_DEFAULT_MS}, at least ${WAIT_MIN_MS}, at most ${WAIT_MAX_MS}.`,
        },
      },
      ['targets'],
    ),
  ];
}

/** The specs for the model: one namespace (Responses), or flat functions (Chat Completions). */
export function agentToolSpecs(wireApi: 'responses' | 'chat', roles: Readonly<Record<string, AgentRole>>): ToolSpec[] {
  const functions = agentFunctionSpecs(roles);
  if (wireApi === 'chat') return functions;
  return [
    {
      type: 'namespace',
      name: AGENTS_NAMESPACE,
      description: 'Sub-agents: threads of their own that work on tasks you give them, beside you.',
      tools: functions,
    },
  ];
}
