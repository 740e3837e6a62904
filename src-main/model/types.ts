import type { ResponseItem } from '../../src-preload/protocol';

/** A tool as the Responses API receives it (`tools[]`). */
export type FunctionToolSpec = {
  type: 'function';
  name: string;
  description: string;
  strict: boolean;
  parameters: Record<string, unknown>;
};

export type ToolSpec =
  | FunctionToolSpec
  /** Function tools grouped under one name (Responses API); calls carry `namespace` and the inner name. */
  | { type: 'namespace'; name: string; description: string; tools: FunctionToolSpec[] }
  | {
      type: 'custom';
      name: string;
      description: string;
      format: { type: 'grammar'; syntax: 'lark' | 'regex'; definition: string } | { type: 'text' };
    }
  | { type: 'web_search'; external_web_access?: boolean };

export interface ModelUsage {
  inputTokens: number;
  cachedInputTokens: number;
  /** Input tokens the provider wrote to its prompt cache (part of `inputTokens`); absent when it says none. */
  cacheWriteInputTokens?: number;
  outputTokens: number;
  reasoningOutputTokens: number;
  totalTokens: number;
}

/** One sampling request, independent of the wire API that carries it. */
export interface ModelRequest {
  model: string;
  instructions: string;
  input: ResponseItem[];
  tools: ToolSpec[];
  parallelToolCalls: boolean;
  /** Omitted for models without reasoning support. */
  reasoning: { effort: string | null; summary: string | null } | null;
  /** Keeps the provider's prompt cache warm across the requests of one thread. */
  promptCacheKey: string;
  /**
   * A JSON Schema the final answer must follow (sent as a strict JSON-schema response format);
   * absent or null = free text.
   */
  outputSchema?: Record<string, unknown> | null;
  /** The most output tokens the answer may take (an MCP sampling request's `maxTokens`); absent = the provider's limit. */
  maxOutputTokens?: number;
}

/** The name an output schema is given in the response format (the name Codex gives it). */
export const OUTPUT_SCHEMA_NAME = 'codex_output_schema';

/** What a model stream yields, normalised across providers. */
export type ModelEvent =
  | { type: 'created' }
  | { type: 'outputItemAdded'; item: ResponseItem; outputIndex: number | null }
  | { type: 'outputItemDone'; item: ResponseItem; outputIndex: number | null }
  | { type: 'outputTextDelta'; itemId: string | null; outputIndex: number | null; delta: string }
  | { type: 'reasoningSummaryPartAdded'; itemId: string | null; outputIndex: number | null; summaryIndex: number }
  | {
      type: 'reasoningSummaryDelta';
      itemId: string | null;
      outputIndex: number | null;
      summaryIndex: number;
      delta: string;
    }
  | {
      type: 'reasoningTextDelta';
      itemId: string | null;
      outputIndex: number | null;
      contentIndex: number;
      delta: string;
    }
  | { type: 'completed'; responseId: string | null; usage: ModelUsage | null };

export interface ModelClient {
  /**
   * Streams one attempt. Throws a `ModelError` for anything that went wrong; never retries itself
   * (see `sampleWithRetries`). The stream ends after `completed`.
   */
  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent>;
}
