import type OpenAI from 'openai';
import { inlineStoredImages } from './stored-images';
import { z } from 'zod';
import { ResponseItem } from '../../src-preload/protocol';
import { ModelError } from './errors';
import { streamedError } from './request-errors';
import { encodeRequestBody, JSON_BODY_HEADERS } from './request-body';
import { guardedStream, lazySdk, type EndpointOptions } from './sdk-stream';
import { responseEvents } from './sse-events';
import { OUTPUT_SCHEMA_NAME, type ModelClient, type ModelEvent, type ModelRequest, type ModelUsage } from './types';

export type ResponsesClientOptions = EndpointOptions;

const Usage = z.object({
  input_tokens: z.number().default(0),
  /** `cache_write_tokens`: input tokens written to the prompt cache (the `openai` package's ResponseUsage). */
  input_tokens_details: z
    .object({ cached_tokens: z.number().nullish(), cache_write_tokens: z.number().nullish() })
    .nullish(),
  output_tokens: z.number().default(0),
  output_tokens_details: z.object({ reasoning_tokens: z.number().nullish() }).nullish(),
  total_tokens: z.number().default(0),
});

/** The stream events Weft reads; anything else is ignored. */
const StreamEvent = z.discriminatedUnion('type', [
  z.object({ type: z.literal('response.created') }),
  z.object({ type: z.literal('response.output_item.added'), output_index: z.number().nullish(), item: z.unknown() }),
  z.object({ type: z.literal('response.output_item.done'), output_index: z.number().nullish(), item: z.unknown() }),
  z.object({
    type: z.literal('response.output_text.delta'),
    item_id: z.string().nullish(),
    output_index: z.number().nullish(),
    delta: z.string(),
  }),
  z.object({
    type: z.literal('response.reasoning_summary_part.added'),
    item_id: z.string().nullish(),
    output_index: z.number().nullish(),
    summary_index: z.number(),
  }),
  z.object({
    type: z.literal('response.reasoning_summary_text.delta'),
    item_id: z.string().nullish(),
    output_index: z.number().nullish(),
    summary_index: z.number(),
    delta: z.string(),
  }),
  z.object({
    type: z.literal('response.reasoning_text.delta'),
    item_id: z.string().nullish(),
    output_index: z.number().nullish(),
    content_index: z.number().default(0),
    delta: z.string(),
  }),
  z.object({
    type: z.literal('response.completed'),
    response: z.object({ id: z.string().nullish(), usage: Usage.nullish() }),
  }),
  z.object({
    type: z.literal('response.failed'),
    response: z
      .object({ error: z.object({ code: z.string().nullish(), message: z.string().nullish() }).nullish() })
      .nullish(),
  }),
  z.object({
    type: z.literal('response.incomplete'),
    response: z.object({ incomplete_details: z.object({ reason: z.string().nullish() }).nullish() }).nullish(),
  }),
]);

/** Streams requests to an OpenAI Responses API endpoint through the `openai` SDK. */
export class ResponsesClient implements ModelClient {
  private readonly sdk: () => Promise<OpenAI>;

  constructor(private readonly options: ResponsesClientOptions) {
    this.sdk = lazySdk(options);
  }

  async *stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent> {
    const body = buildBody({ ...request, input: await inlineStoredImages(request.input) });
    // Encoded here, in slices (see request-body.ts); the SDK sends the bytes as they are.
    const bytes = await encodeRequestBody({ ...body }, 'input');
    // The raw response, read by responseEvents: the SDK's own reading of an event is quadratic in its size.
    const sdk = await this.sdk();
    const raws = guardedStream(
      async (s) =>
        responseEvents(
          await sdk.responses.create(body, { signal: s, body: bytes, headers: JSON_BODY_HEADERS }).asResponse(),
        ),
      signal,
      this.options.streamIdleTimeoutMs,
    );
    for await (const raw of raws) {
      const event = toModelEvent(raw);
      if (event === null) continue;
      yield event;
      if (event.type === 'completed') return;
    }
    throw new ModelError('stream closed before response.completed', 'ResponseStreamDisconnected', {
      retryable: true,
      phase: 'stream',
    });
  }
}

function buildBody(request: ModelRequest): OpenAI.Responses.ResponseCreateParamsStreaming {
  const body: Record<string, unknown> = {
    model: request.model,
    instructions: request.instructions,
    input: request.input,
    tools: request.tools,
    tool_choice: 'auto',
    parallel_tool_calls: request.parallelToolCalls,
    store: false,
    stream: true,
    prompt_cache_key: request.promptCacheKey,
  };
  if (request.maxOutputTokens !== undefined) body['max_output_tokens'] = request.maxOutputTokens;
  if (request.outputSchema) {
    body['text'] = {
      format: { type: 'json_schema', name: OUTPUT_SCHEMA_NAME, schema: request.outputSchema, strict: true },
    };
  }
  if (request.reasoning) {
    body['reasoning'] = {
      ...(request.reasoning.effort ? { effort: request.reasoning.effort } : {}),
      ...(request.reasoning.summary && request.reasoning.summary !== 'none'
        ? { summary: request.reasoning.summary }
        : {}),
    };
    body['include'] = ['reasoning.encrypted_content'];
  }
  // The body is built from our own validated types; the SDK's request type is stricter about item
  // shapes than the wire, so we hand it over as the wire object it is.
  return body as unknown as OpenAI.Responses.ResponseCreateParamsStreaming;
}

function toModelEvent(raw: unknown): ModelEvent | null {
  const parsed = StreamEvent.safeParse(raw);
  if (!parsed.success) return null;
  const ev = parsed.data;
  switch (ev.type) {
    case 'response.created':
      return { type: 'created' };
    case 'response.output_item.added':
    case 'response.output_item.done': {
      const item = ResponseItem.safeParse(ev.item);
      if (!item.success) return null;
      return {
        type: ev.type === 'response.output_item.added' ? 'outputItemAdded' : 'outputItemDone',
        item: item.data,
        outputIndex: ev.output_index ?? null,
      };
    }
    case 'response.output_text.delta':
      return {
        type: 'outputTextDelta',
        itemId: ev.item_id ?? null,
        outputIndex: ev.output_index ?? null,
        delta: ev.delta,
      };
    case 'response.reasoning_summary_part.added':
      return {
        type: 'reasoningSummaryPartAdded',
        itemId: ev.item_id ?? null,
        outputIndex: ev.output_index ?? null,
        summaryIndex: ev.summary_index,
      };
    case 'response.reasoning_summary_text.delta':
      return {
        type: 'reasoningSummaryDelta',
        itemId: ev.item_id ?? null,
        outputIndex: ev.output_index ?? null,
        summaryIndex: ev.summary_index,
        delta: ev.delta,
      };
    case 'response.reasoning_text.delta':
      return {
        type: 'reasoningTextDelta',
        itemId: ev.item_id ?? null,
        outputIndex: ev.output_index ?? null,
        contentIndex: ev.content_index,
        delta: ev.delta,
      };
    case 'response.completed':
      return {
        type: 'completed',
        responseId: ev.response.id ?? null,
        usage: ev.response.usage ? toUsage(ev.response.usage) : null,
      };
    case 'response.failed': {
      const err = ev.response?.error;
      const code = err?.code ?? null;
      const message = err?.message ?? 'the model reported a failure';
      throw streamedError(code, message);
    }
    case 'response.incomplete': {
      const reason = ev.response?.incomplete_details?.reason ?? 'unknown';
      throw new ModelError(`the response was incomplete: ${reason}`, 'Other', {
        retryable: false,
        phase: 'stream',
        outputLimit: reason === 'max_output_tokens',
      });
    }
  }
}

function toUsage(u: z.infer<typeof Usage>): ModelUsage {
  const cacheWrites = u.input_tokens_details?.cache_write_tokens ?? 0;
  return {
    inputTokens: u.input_tokens,
    cachedInputTokens: u.input_tokens_details?.cached_tokens ?? 0,
    ...(cacheWrites > 0 ? { cacheWriteInputTokens: cacheWrites } : {}),
    outputTokens: u.output_tokens,
    reasoningOutputTokens: u.output_tokens_details?.reasoning_tokens ?? 0,
    totalTokens: u.total_tokens || u.input_tokens + u.output_tokens,
  };
}
