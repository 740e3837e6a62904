// A scripted model for sub-agent tests: it tells the parent thread's requests from a sub-agent's by their
// `prompt_cache_key` (a thread's id). The parent's requests follow `parent` step by step (step n answers the
// request that holds n tool outputs); a sub-agent's request is answered by `child`, given its task (the
// newest user message) and the outputs it got.
import type { MockResponsesServer, MockStep, RecordedRequest } from './mock-responses-server';
import {
  evAssistantMessage,
  evCompleted,
  evCreated,
  evNamespacedCall,
  evOutputTextDelta,
  type SseEvent,
  type UsageInput,
} from './sse';

export const AGENTS_NAMESPACE = 'multi_agent_v1';

type Json = Record<string, unknown>;

const isJson = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

export function inputOf(request: RecordedRequest): Json[] {
  const body = request.body;
  return isJson(body) && Array.isArray(body['input']) ? body['input'].filter(isJson) : [];
}

export function threadOf(request: RecordedRequest): string {
  const body = request.body;
  return isJson(body) && typeof body['prompt_cache_key'] === 'string' ? body['prompt_cache_key'] : '';
}

function textOf(item: Json): string {
  const content = item['content'];
  if (typeof content === 'string') return content;
  return Array.isArray(content)
    ? content.map((c: unknown) => (isJson(c) && typeof c['text'] === 'string' ? c['text'] : '')).join('')
    : '';
}

/** The user messages of a request, oldest first (context messages included). */
export function userTexts(request: RecordedRequest): string[] {
  return inputOf(request)
    .filter((i) => i['type'] === 'message' && i['role'] === 'user')
    .map(textOf);
}

/** The function call outputs of a request, oldest first, with the call they answer. */
export function callOutputs(request: RecordedRequest): { name: string; callId: string; output: string }[] {
  const input = inputOf(request);
  return input
    .filter((i) => i['type'] === 'function_call_output')
    .map((o) => {
      const call = input.find((c) => c['type'] === 'function_call' && c['call_id'] === o['call_id']);
      const output = typeof o['output'] === 'string' ? o['output'] : JSON.stringify(o['output']);
      return { name: String(call?.['name'] ?? ''), callId: String(o['call_id']), output };
    });
}

/** What the parent's model does at one step: call sub-agent tools (in one response), or answer. */
export type ParentMove = { calls: { id: string; name: string; args: object }[] } | { answer: string };

export interface ParentContext {
  /** Sub-agents spawned so far (from the spawn outputs), in order. */
  agents: string[];
  outputs: { name: string; callId: string; output: string }[];
}

export interface AgentScript {
  parent: ((ctx: ParentContext) => ParentMove)[];
  /** A sub-agent's request; default: it answers `ACK: <task>`. */
  child?: (task: string, request: RecordedRequest) => MockStep;
  /** The usage every answer reports (the parent's and the children's alike). */
  usage?: UsageInput;
}

export function reply(events: (SseEvent | readonly SseEvent[])[], usage: UsageInput = {}, id = 'resp'): MockStep {
  return { kind: 'sse', events: [evCreated(id), ...events, evCompleted(id, usage)] };
}

export function answerText(text: string, usage: UsageInput = {}, id = 'msg'): MockStep {
  return reply([evOutputTextDelta(text, id), evAssistantMessage(text, id)], usage);
}

/**
 * Scripts the model: the first thread to ask is the parent. Enough steps are queued for the test (40);
 * returns the parent's id once known.
 */
export function scriptAgents(server: MockResponsesServer, script: AgentScript): { parentId(): string } {
  let parent = '';
  const usage = script.usage ?? {};
  const answer = (request: RecordedRequest): MockStep => {
    const thread = threadOf(request);
    if (parent === '') parent = thread;
    if (thread !== parent) {
      const texts = userTexts(request);
      const task = texts[texts.length - 1] ?? '';
      return script.child ? script.child(task, request) : answerText(`ACK: ${task}`, usage);
    }
    const outputs = callOutputs(request);
    const agents = outputs.flatMap((o) => {
      if (o.name !== 'spawn_agent' || !o.output.startsWith('{')) return [];
      const parsed: unknown = JSON.parse(o.output);
      return isJson(parsed) && typeof parsed['agent_id'] === 'string' ? [parsed['agent_id']] : [];
    });
    const step = script.parent[outputs.length];
    if (step === undefined) return answerText('DONE', usage);
    const move = step({ agents, outputs });
    if ('answer' in move) return answerText(move.answer, usage);
    return reply(
      move.calls.map((c) => evNamespacedCall(c.id, AGENTS_NAMESPACE, c.name, c.args)),
      usage,
    );
  };
  for (let i = 0; i < 40; i++) server.enqueue(answer);
  return { parentId: () => parent };
}
