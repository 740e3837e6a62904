// The sub-agent tools' handlers: each call is a `collabAgentToolCall` item (started, then completed with the
// receivers' states), and its output is what Codex 0.169's model reads: `{"agent_id", "nickname"}`,
// `{"submission_id"}`, `{"status": {<id>: status}, "timed_out"}`, `{"previous_status"}`, `{"status"}`, or an
// error sentence. A refusal (a limit, an unknown agent) fails the item; an interrupt while waiting ends it
// `interrupted`.
import type { z } from 'zod';
import {
  agentStatusFormOf,
  type CollabAgentState,
  type CollabAgentTool,
  type CollabAgentToolCallItem,
  type UserInput,
} from '../../../src-preload/protocol';
import type { ToolSource } from '../../tools/registry';
import { functionTool, type ToolContext, type ToolHandler, type ToolResult } from '../../tools/types';
import { isAbortError } from '../../util/abort';
import { uuidv7 } from '../../util/ids';
import { AgentCallError, type AgentControl } from './control';
import {
  AGENTS_NAMESPACE,
  agentFunctionSpecs,
  agentToolSpecs,
  CloseArgs,
  ResumeArgs,
  SendInputArgs,
  SpawnArgs,
  WAIT_DEFAULT_MS,
  WAIT_MAX_MS,
  WAIT_MIN_MS,
  WaitArgs,
  type InputItemArg,
} from './tool-specs';

type ItemFields = Pick<CollabAgentToolCallItem, 'receiverThreadIds' | 'prompt' | 'model' | 'reasoningEffort'>;

/** Runs one call as an item: `run` gives the output and the receivers' states; a refusal fails the item. */
async function asItem(
  ctx: ToolContext,
  callId: string,
  tool: CollabAgentTool,
  fields: ItemFields,
  run: (
    update: (f: Partial<ItemFields>) => void,
  ) => Promise<{ output: string; states: Record<string, CollabAgentState>; failed?: boolean }>,
): Promise<ToolResult> {
  let item: CollabAgentToolCallItem = {
    type: 'collabAgentToolCall',
    id: callId,
    tool,
    status: 'inProgress',
    senderThreadId: ctx.threadId,
    ...fields,
    agentsStates: {},
  };
  const at = { threadId: ctx.threadId, turnId: ctx.turnId };
  ctx.emit({ method: 'item/started', params: { ...at, item } });
  const complete = (status: CollabAgentToolCallItem['status'], states: Record<string, CollabAgentState>): void => {
    item = { ...item, status, agentsStates: states };
    ctx.emit({ method: 'item/completed', params: { ...at, item } });
  };
  try {
    const done = await run((f) => (item = { ...item, ...f }));
    complete(done.failed === true ? 'failed' : 'completed', done.states);
    return { output: done.output, success: done.failed !== true };
  } catch (error) {
    if (ctx.signal.aborted || isAbortError(error)) {
      complete('interrupted', {});
      throw error;
    }
    if (error instanceof AgentCallError) {
      complete('failed', error.states);
      return { output: error.message, success: false };
    }
    complete('failed', {});
    throw error;
  }
}

/** The task as input items: `message`, or `items` (exactly one of them). */
function inputOf(args: { message?: string; items?: InputItemArg[] }): { input: UserInput[] } {
  if (args.message !== undefined && args.items !== undefined)
    throw new AgentCallError('give either message or items, not both');
  if (args.message !== undefined) {
    if (args.message.trim() === '') throw new AgentCallError('the message is empty; say what the sub-agent should do');
    return { input: [{ type: 'text', text: args.message }] };
  }
  if (args.items === undefined || args.items.length === 0)
    throw new AgentCallError('give the sub-agent a message (or items) saying what to do');
  return { input: args.items.map(inputItem) };
}

function inputItem(item: InputItemArg): UserInput {
  const need = (value: string | undefined, field: string): string => {
    if (value === undefined || value === '') throw new AgentCallError(`an item of type ${item.type} needs ${field}`);
    return value;
  };
  switch (item.type) {
    case 'text':
      return { type: 'text', text: need(item.text, 'text') };
    case 'image':
      return { type: 'image', url: need(item.image_url, 'image_url') };
    case 'local_image':
      return { type: 'localImage', path: need(item.path, 'path') };
    case 'skill':
      return { type: 'skill', name: need(item.name, 'name'), path: need(item.path, 'path') };
    case 'mention':
      return { type: 'mention', name: need(item.name, 'name'), path: need(item.path, 'path') };
    case 'audio':
    case 'local_audio':
      throw new AgentCallError('audio input is not supported; describe the audio in text instead');
    default:
      throw new AgentCallError(
        `unknown item type "${item.type}"; use one of: text, image, local_image, skill, mention`,
      );
  }
}

const json = (value: unknown): string => JSON.stringify(value);

/** The text of what is sent, for the item (null when nothing is text). */
function promptOf(args: { message?: string; items?: InputItemArg[] }): string | null {
  if (args.message !== undefined) return args.message;
  const texts = (args.items ?? []).flatMap((i) => (i.type === 'text' && i.text !== undefined ? [i.text] : []));
  return texts.length === 0 ? null : texts.join('\n');
}

function roleOf(control: AgentControl, agentType: string | undefined): string | null {
  if (agentType === undefined || agentType === 'default') return null;
  if (control.roles[agentType] !== undefined) return agentType;
  const known = ['default', ...Object.keys(control.roles)].join(', ');
  throw new AgentCallError(`unknown agent_type '${agentType}'; the roles are: ${known}`);
}

function spawnTool(control: AgentControl): ToolHandler {
  return functionTool({
    name: 'spawn_agent',
    parallel: true,
    args: SpawnArgs,
    spec: specOf('spawn_agent', control),
    handle: (args: z.output<typeof SpawnArgs>, call, ctx) => {
      const known = args.agent_type !== undefined && control.roles[args.agent_type] !== undefined;
      const settings = control.spawnSettings({
        model: args.model ?? null,
        effort: args.reasoning_effort ?? null,
        role: known ? (args.agent_type ?? null) : null,
      });
      const fields = {
        receiverThreadIds: [],
        prompt: promptOf(args),
        model: settings.model,
        reasoningEffort: settings.effort,
      };
      return asItem(ctx, call.callId, 'spawnAgent', fields, async (update) => {
        const { input } = inputOf(args);
        const spawned = await control.spawn({
          input,
          role: roleOf(control, args.agent_type),
          model: args.model ?? null,
          effort: args.reasoning_effort ?? null,
          forkContext: args.fork_context === true,
        });
        update({ receiverThreadIds: [spawned.id] });
        return {
          output: json({ agent_id: spawned.id, nickname: spawned.nickname }),
          states: { [spawned.id]: spawned.state },
        };
      });
    },
  });
}

function sendInputTool(control: AgentControl): ToolHandler {
  return functionTool({
    name: 'send_input',
    parallel: true,
    args: SendInputArgs,
    spec: specOf('send_input', control),
    handle: (args: z.output<typeof SendInputArgs>, call, ctx) => {
      const fields = { receiverThreadIds: [args.target], prompt: promptOf(args), model: null, reasoningEffort: null };
      return asItem(ctx, call.callId, 'sendInput', fields, async () => {
        const { input } = inputOf(args);
        const state = await control.sendInput(args.target, input, args.interrupt === true);
        return { output: json({ submission_id: uuidv7() }), states: { [args.target]: state } };
      });
    },
  });
}

function waitTool(control: AgentControl): ToolHandler {
  return functionTool({
    name: 'wait_agent',
    parallel: true,
    args: WaitArgs,
    spec: specOf('wait_agent', control),
    handle: (args: z.output<typeof WaitArgs>, call, ctx) => {
      const fields = { receiverThreadIds: args.targets, prompt: null, model: null, reasoningEffort: null };
      return asItem(ctx, call.callId, 'wait', fields, async () => {
        if (args.targets.length === 0) throw new AgentCallError('name at least one sub-agent in targets');
        const timeout = Math.min(WAIT_MAX_MS, Math.max(WAIT_MIN_MS, args.timeout_ms ?? WAIT_DEFAULT_MS));
        const done = await control.wait(args.targets, timeout, ctx.signal);
        if (done === null) return { output: json({ status: {}, timed_out: true }), states: {} };
        const states = Object.fromEntries(done);
        return {
          output: json({
            status: Object.fromEntries([...done].map(([id, state]) => [id, agentStatusFormOf(state)])),
            timed_out: false,
          }),
          states,
          failed: [...done.values()].some((s) => s.status === 'notFound'),
        };
      });
    },
  });
}

function closeTool(control: AgentControl): ToolHandler {
  return functionTool({
    name: 'close_agent',
    parallel: true,
    args: CloseArgs,
    spec: specOf('close_agent', control),
    handle: (args: z.output<typeof CloseArgs>, call, ctx) => {
      const fields = { receiverThreadIds: [args.target], prompt: null, model: null, reasoningEffort: null };
      return asItem(ctx, call.callId, 'closeAgent', fields, async () => {
        const previous = await control.close(args.target);
        return { output: json({ previous_status: agentStatusFormOf(previous) }), states: { [args.target]: previous } };
      });
    },
  });
}

function resumeTool(control: AgentControl): ToolHandler {
  return functionTool({
    name: 'resume_agent',
    parallel: true,
    args: ResumeArgs,
    spec: specOf('resume_agent', control),
    handle: (args: z.output<typeof ResumeArgs>, call, ctx) => {
      const fields = { receiverThreadIds: [args.id], prompt: null, model: null, reasoningEffort: null };
      return asItem(ctx, call.callId, 'resumeAgent', fields, async () => {
        const { state } = await control.resume(args.id);
        return { output: json({ status: agentStatusFormOf(state) }), states: { [args.id]: state } };
      });
    },
  });
}

function specOf(name: string, control: AgentControl) {
  const spec = agentFunctionSpecs(control.roles).find((s) => s.name === name);
  if (spec === undefined) throw new Error(`no spec for the sub-agent tool ${name}`);
  return spec;
}

/**
 * The sub-agent tools of a thread: a namespace for Responses providers (calls come as
 * `multi_agent_v1__<name>`), flat functions for Chat Completions ones (calls come by their names).
 */
export function agentToolSource(control: AgentControl, wireApi: 'responses' | 'chat'): ToolSource {
  const handlers = new Map<string, ToolHandler>();
  for (const handler of [
    spawnTool(control),
    sendInputTool(control),
    waitTool(control),
    closeTool(control),
    resumeTool(control),
  ]) {
    handlers.set(`${AGENTS_NAMESPACE}__${handler.name}`, handler);
    handlers.set(handler.name, handler);
  }
  const specs = agentToolSpecs(wireApi, control.roles);
  return {
    handler: (name) => handlers.get(name),
    specs: () => specs,
    prepare: () => Promise.resolve(),
  };
}
