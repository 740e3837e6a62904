// Builders for OpenAI Responses API streaming events, as the mock server sends them.
//
// Each builder returns a plain object shaped like the real event, limited to the fields the `openai`
// SDK and our model client read. Events that carry `sequence_number` on the real API carry it here as
// 0; the mock server (and `sseBody`) renumber them 0, 1, 2… in the order one response sends them, so
// tests never count by hand. Defaults: response id `resp_mock`, message item `msg_1`, reasoning item
// `rs_1`, output_index 0, content_index 0.
//
// The tool-call builders return the `output_item.added` / `output_item.done` pair the real API sends;
// scripted event lists accept such nested pairs as they are (`[evCreated(), evFunctionCall(…), …]`).

/** One streaming event: its `type` plus whatever fields that type carries. */
export interface SseEvent {
  readonly type: string;
  readonly [field: string]: unknown;
}

/** An event list as tests write it: single events and the pairs tool-call builders return. */
export type SseEventList = readonly (SseEvent | readonly SseEvent[])[];

/** Token counts for `evCompleted`; omitted counts are 0, `total_tokens` defaults to input + output. */
export interface UsageInput {
  input_tokens?: number;
  cached_tokens?: number;
  /** Input tokens written to the prompt cache (`input_tokens_details.cache_write_tokens`); omitted: not sent. */
  cache_write_tokens?: number;
  output_tokens?: number;
  reasoning_tokens?: number;
  total_tokens?: number;
}

export const DEFAULT_RESPONSE_ID = 'resp_mock';

export function evCreated(id: string = DEFAULT_RESPONSE_ID) {
  return {
    type: 'response.created',
    sequence_number: 0,
    response: { id, object: 'response', status: 'in_progress', output: [] },
  } satisfies SseEvent;
}

export function evOutputTextDelta(text: string, itemId = 'msg_1') {
  return {
    type: 'response.output_text.delta',
    sequence_number: 0,
    item_id: itemId,
    output_index: 0,
    content_index: 0,
    delta: text,
    logprobs: [],
  } satisfies SseEvent;
}

export function evAssistantMessage(text: string, id = 'msg_1') {
  return {
    type: 'response.output_item.done',
    sequence_number: 0,
    output_index: 0,
    item: {
      type: 'message',
      id,
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text, annotations: [] }],
    },
  } satisfies SseEvent;
}

export function evReasoningSummaryDelta(text: string, summaryIndex = 0, itemId = 'rs_1') {
  return {
    type: 'response.reasoning_summary_text.delta',
    sequence_number: 0,
    item_id: itemId,
    output_index: 0,
    summary_index: summaryIndex,
    delta: text,
  } satisfies SseEvent;
}

export function evReasoningSummaryPartAdded(summaryIndex: number, itemId = 'rs_1') {
  return {
    type: 'response.reasoning_summary_part.added',
    sequence_number: 0,
    item_id: itemId,
    output_index: 0,
    summary_index: summaryIndex,
    part: { type: 'summary_text', text: '' },
  } satisfies SseEvent;
}

/** A finished reasoning item; `encrypted` omitted means `encrypted_content: null`. */
export function evReasoning(summaryTexts: readonly string[], id = 'rs_1', encrypted?: string) {
  return {
    type: 'response.output_item.done',
    sequence_number: 0,
    output_index: 0,
    item: {
      type: 'reasoning',
      id,
      summary: summaryTexts.map((text) => ({ type: 'summary_text', text })),
      encrypted_content: encrypted ?? null,
    },
  } satisfies SseEvent;
}

function itemPair<Item extends { readonly status?: string }>(started: Item, finished: Item) {
  return [
    { type: 'response.output_item.added', sequence_number: 0, output_index: 0, item: started },
    { type: 'response.output_item.done', sequence_number: 0, output_index: 0, item: finished },
  ] as const satisfies readonly SseEvent[];
}

/** A function call; object `args` are JSON-encoded, string `args` are sent verbatim (even if invalid). */
export function evFunctionCall(callId: string, name: string, args: object | string) {
  const encoded = typeof args === 'string' ? args : JSON.stringify(args);
  const item = { type: 'function_call', id: `fc_${callId}`, call_id: callId, name };
  return itemPair(
    { ...item, arguments: '', status: 'in_progress' },
    { ...item, arguments: encoded, status: 'completed' },
  );
}

/** A call of a function inside a namespace tool (MCP servers' tools under the Responses API). */
export function evNamespacedCall(callId: string, namespace: string, name: string, args: object) {
  const item = { type: 'function_call', id: `fc_${callId}`, call_id: callId, namespace, name };
  return itemPair(
    { ...item, arguments: '', status: 'in_progress' },
    { ...item, arguments: JSON.stringify(args), status: 'completed' },
  );
}

/** A freeform (custom) tool call such as `apply_patch`; `input` is the raw text the tool receives. */
export function evCustomToolCall(callId: string, name: string, input: string) {
  const item = { type: 'custom_tool_call', id: `ctc_${callId}`, call_id: callId, name };
  return itemPair({ ...item, input: '', status: 'in_progress' }, { ...item, input, status: 'completed' });
}

/** @public */
export function evWebSearchCall(id: string, query: string) {
  const item = { type: 'web_search_call', id, action: { type: 'search', query } };
  return itemPair({ ...item, status: 'in_progress' }, { ...item, status: 'completed' });
}

export function evCompleted(responseId: string = DEFAULT_RESPONSE_ID, usage: UsageInput = {}) {
  const input = usage.input_tokens ?? 0;
  const output = usage.output_tokens ?? 0;
  return {
    type: 'response.completed',
    sequence_number: 0,
    response: {
      id: responseId,
      object: 'response',
      status: 'completed',
      output: [],
      usage: {
        input_tokens: input,
        input_tokens_details: {
          cached_tokens: usage.cached_tokens ?? 0,
          ...(usage.cache_write_tokens === undefined ? {} : { cache_write_tokens: usage.cache_write_tokens }),
        },
        output_tokens: output,
        output_tokens_details: { reasoning_tokens: usage.reasoning_tokens ?? 0 },
        total_tokens: usage.total_tokens ?? input + output,
      },
    },
  } satisfies SseEvent;
}

/** @public `response.failed`; `code` is the API's error code, e.g. `server_error`, `rate_limit_exceeded`. */
export function evFailed(message: string, code = 'server_error') {
  return {
    type: 'response.failed',
    sequence_number: 0,
    response: {
      id: DEFAULT_RESPONSE_ID,
      object: 'response',
      status: 'failed',
      output: [],
      error: { code, message },
    },
  } satisfies SseEvent;
}

/** @public `response.incomplete`; `reason` is e.g. `max_output_tokens` or `content_filter`. */
export function evIncomplete(reason: string) {
  return {
    type: 'response.incomplete',
    sequence_number: 0,
    response: {
      id: DEFAULT_RESPONSE_ID,
      object: 'response',
      status: 'incomplete',
      output: [],
      incomplete_details: { reason },
    },
  } satisfies SseEvent;
}

/** Flattens an event list and numbers `sequence_number` from `start`, returning fresh objects. */
export function withSequenceNumbers(events: SseEventList, start = 0): SseEvent[] {
  return events.flat().map((event, i) => numberEvent(event, start + i));
}

/** A copy of `event` with `sequence_number` set, when the event carries one. */
export function numberEvent(event: SseEvent, sequenceNumber: number): SseEvent {
  return 'sequence_number' in event ? { ...event, sequence_number: sequenceNumber } : event;
}

/** One SSE frame: `event: <type>\ndata: <json>\n\n`. */
export function sseFrame(event: SseEvent): string {
  return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

/** A whole SSE body for `events`, numbered from 0 as one response would send them. */
export function sseBody(events: SseEventList): string {
  return withSequenceNumbers(events).map(sseFrame).join('');
}

/** A model turn that answers `text`: streamed, then the whole message. */
export function answerTurn(text: string) {
  return {
    kind: 'sse' as const,
    events: [evCreated(), evOutputTextDelta(text), evAssistantMessage(text), evCompleted()],
  };
}
