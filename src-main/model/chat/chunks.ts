// The Chat Completions stream chunks Weft reads, parsed loosely: providers differ in what they add
// (`reasoning_content` from DeepSeek/vLLM/LM Studio, `reasoning` from Ollama/OpenRouter) and in what
// they leave out (ids, indexes), so every field is optional and unknown fields are ignored.
import { z } from 'zod';
import type { ModelUsage } from '../types';

export const ChatUsage = z.looseObject({
  prompt_tokens: z.number().nullish(),
  completion_tokens: z.number().nullish(),
  total_tokens: z.number().nullish(),
  /** `cache_write_tokens`: OpenAI's count of prompt tokens written to the cache. */
  prompt_tokens_details: z
    .looseObject({ cached_tokens: z.number().nullish(), cache_write_tokens: z.number().nullish() })
    .nullish(),
  completion_tokens_details: z.looseObject({ reasoning_tokens: z.number().nullish() }).nullish(),
  /** Anthropic-style (its compatible endpoints, LiteLLM): prompt tokens written to the prompt cache. */
  cache_creation_input_tokens: z.number().nullish(),
});
export type ChatUsage = z.infer<typeof ChatUsage>;

export const ToolCallDelta = z.looseObject({
  /** Position of the call in the response; several calls may interleave. Absent from some providers. */
  index: z.number().nullish(),
  id: z.string().nullish(),
  function: z.looseObject({ name: z.string().nullish(), arguments: z.string().nullish() }).nullish(),
});
export type ToolCallDelta = z.infer<typeof ToolCallDelta>;

export const ChatDelta = z.looseObject({
  content: z.string().nullish(),
  reasoning_content: z.string().nullish(),
  reasoning: z.string().nullish(),
  tool_calls: z.array(ToolCallDelta).nullish(),
});
export type ChatDelta = z.infer<typeof ChatDelta>;

export const ChatChunk = z.looseObject({
  id: z.string().nullish(),
  choices: z
    .array(
      z.looseObject({
        index: z.number().nullish(),
        delta: ChatDelta.nullish(),
        finish_reason: z.string().nullish(),
      }),
    )
    .nullish(),
  usage: ChatUsage.nullish(),
});
export type ChatChunk = z.infer<typeof ChatChunk>;

export function toModelUsage(u: ChatUsage): ModelUsage {
  const input = u.prompt_tokens ?? 0;
  const output = u.completion_tokens ?? 0;
  const cacheWrites = u.cache_creation_input_tokens ?? u.prompt_tokens_details?.cache_write_tokens ?? 0;
  return {
    inputTokens: input,
    cachedInputTokens: u.prompt_tokens_details?.cached_tokens ?? 0,
    ...(cacheWrites > 0 ? { cacheWriteInputTokens: cacheWrites } : {}),
    outputTokens: output,
    reasoningOutputTokens: u.completion_tokens_details?.reasoning_tokens ?? 0,
    totalTokens: u.total_tokens || input + output,
  };
}
