import type OpenAI from 'openai';
import { inlineStoredImages } from './stored-images';
import { ChatStreamAssembler, defaultChatIds } from './chat/assembler';
import type { ChatIdGenerator } from './chat/assembler';
import { ChatChunk } from './chat/chunks';
import { encodeRequestBody, JSON_BODY_HEADERS } from './request-body';
import { guardedStream, lazySdk, type EndpointOptions } from './sdk-stream';
import { toChatMessages, toChatTools } from './chat/messages';
import { OUTPUT_SCHEMA_NAME, type ModelClient, type ModelEvent, type ModelRequest } from './types';

export interface ChatCompletionsClientOptions extends EndpointOptions {
  /** Ids for the items chat providers do not name (tests pass a deterministic one). */
  ids?: ChatIdGenerator;
}

const REASONING_EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'] as const;
type ChatReasoningEffort = (typeof REASONING_EFFORTS)[number];

/**
 * Streams requests to an OpenAI Chat Completions endpoint (`wire_api = "chat"`: Ollama, LM Studio,
 * vLLM, OpenRouter, …) through the `openai` SDK, translating Weft's Responses-style history in and the
 * chunks out (see `chat/messages.ts` and `chat/assembler.ts`). Only function tools are sent: the caller
 * must register the JSON-function form of any custom tool (apply_patch) for chat providers.
 */
export class ChatCompletionsClient implements ModelClient {
  private readonly sdk: () => Promise<OpenAI>;
  private readonly ids: ChatIdGenerator;

  constructor(private readonly options: ChatCompletionsClientOptions) {
    this.ids = options.ids ?? defaultChatIds;
    this.sdk = lazySdk(options, true);
  }

  async *stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent> {
    const body = buildChatBody({ ...request, input: await inlineStoredImages(request.input) });
    // Encoded here, in slices (see request-body.ts); the SDK sends the bytes as they are.
    const bytes = await encodeRequestBody({ ...body }, 'messages');
    const assembler = new ChatStreamAssembler(this.ids);
    const sdk = await this.sdk();
    for await (const raw of guardedStream(
      (s) => sdk.chat.completions.create(body, { signal: s, body: bytes, headers: JSON_BODY_HEADERS }),
      signal,
      this.options.streamIdleTimeoutMs,
    )) {
      const chunk = ChatChunk.safeParse(raw);
      if (!chunk.success) continue;
      yield* assembler.push(chunk.data);
    }
    yield* assembler.finish();
  }
}

/** The request body: messages, function tools, usage in the last chunk, and the reasoning effort if set. */
export function buildChatBody(request: ModelRequest): OpenAI.Chat.ChatCompletionCreateParamsStreaming {
  const body: OpenAI.Chat.ChatCompletionCreateParamsStreaming = {
    model: request.model,
    messages: toChatMessages(request.instructions, request.input),
    stream: true,
    stream_options: { include_usage: true },
  };
  const tools = toChatTools(request.tools);
  // Several servers reject `tool_choice` / `parallel_tool_calls` when no tools are given.
  if (tools.length > 0) {
    body.tools = tools;
    body.tool_choice = 'auto';
    body.parallel_tool_calls = request.parallelToolCalls;
  }
  if (request.outputSchema) {
    body.response_format = {
      type: 'json_schema',
      json_schema: { name: OUTPUT_SCHEMA_NAME, schema: request.outputSchema, strict: true },
    };
  }
  // `max_tokens` rather than OpenAI's newer `max_completion_tokens`: it is the one compatible servers
  // (Ollama, llama.cpp, vLLM, OpenRouter) all read.
  if (request.maxOutputTokens !== undefined) body.max_tokens = request.maxOutputTokens;
  const effort = request.reasoning?.effort ?? null;
  if (isReasoningEffort(effort)) body.reasoning_effort = effort;
  return body;
}

function isReasoningEffort(value: string | null): value is ChatReasoningEffort {
  return REASONING_EFFORTS.some((e) => e === value);
}
