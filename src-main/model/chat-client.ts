import OpenAI from 'openai';
import { ChatStreamAssembler, defaultChatIds } from './chat/assembler';
import type { ChatIdGenerator } from './chat/assembler';
import { ChatChunk } from './chat/chunks';
import { abortReason, classifyRequestError, classifyStreamError, idleError } from './request-errors';
import { toChatMessages, toChatTools } from './chat/messages';
import { ModelError } from './errors';
import type { ModelClient, ModelEvent, ModelRequest } from './types';

export interface ChatCompletionsClientOptions {
  /** Ends in the API version, e.g. `http://localhost:11434/v1`; requests go to `<baseUrl>/chat/completions`. */
  baseUrl: string;
  /** Null for local servers without auth. */
  apiKey: string | null;
  headers?: Record<string, string>;
  queryParams?: Record<string, string>;
  /** No chunk for this long ends the attempt as a dropped stream. */
  streamIdleTimeoutMs: number;
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
  private readonly sdk: OpenAI;
  private readonly ids: ChatIdGenerator;

  constructor(private readonly options: ChatCompletionsClientOptions) {
    this.ids = options.ids ?? defaultChatIds;
    this.sdk = new OpenAI({
      // The SDK insists on a key; endpoints without auth ignore the header.
      apiKey: options.apiKey ?? 'unused',
      baseURL: options.baseUrl,
      maxRetries: 0,
      timeout: 10 * 60_000,
      defaultHeaders: options.headers,
      defaultQuery: options.queryParams,
    });
  }

  async *stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent> {
    const idle = new AbortController();
    const combined = AbortSignal.any([signal, idle.signal]);
    let stream: AsyncIterable<unknown>;
    try {
      stream = await this.sdk.chat.completions.create(buildChatBody(request), { signal: combined });
    } catch (error) {
      throw classifyRequestError(error, signal);
    }
    const assembler = new ChatStreamAssembler(this.ids);
    let timer: NodeJS.Timeout | undefined;
    const armIdle = (): void => {
      clearTimeout(timer);
      timer = setTimeout(() => idle.abort(), this.options.streamIdleTimeoutMs);
    };
    try {
      armIdle();
      for await (const raw of stream) {
        armIdle();
        const chunk = ChatChunk.safeParse(raw);
        if (!chunk.success) continue;
        yield* assembler.push(chunk.data);
      }
    } catch (error) {
      if (error instanceof ModelError) throw error;
      if (signal.aborted) throw abortReason(signal);
      throw classifyStreamError(error, idle.signal.aborted, this.options.streamIdleTimeoutMs);
    } finally {
      clearTimeout(timer);
    }
    // The SDK ends the iteration quietly when its signal aborts.
    if (signal.aborted) throw abortReason(signal);
    if (idle.signal.aborted) throw idleError(this.options.streamIdleTimeoutMs);
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
  const effort = request.reasoning?.effort ?? null;
  if (isReasoningEffort(effort)) body.reasoning_effort = effort;
  return body;
}

function isReasoningEffort(value: string | null): value is ChatReasoningEffort {
  return REASONING_EFFORTS.some((e) => e === value);
}
