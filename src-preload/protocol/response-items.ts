// OpenAI Responses API items (snake_case, tag `type`): what the model sees and says, stored verbatim in
// rollouts. Objects are loose — fields this version does not name are kept — and item or content types it
// does not know parse as the catch-all variant, so history written by newer software round-trips intact.
import { z } from 'zod';
import { lazySchema, lazyValue } from './lazy-schema';
import { unknownTag } from './open-union';

export const InputTextContent = lazySchema(() => z.looseObject({ type: z.literal('input_text'), text: z.string() }));
export type InputTextContent = z.infer<typeof InputTextContent>;

/** `image_url`: an https: or data: URL. `detail`: "auto" | "low" | "high". */
export const InputImageContent = lazySchema(() =>
  z.looseObject({
    type: z.literal('input_image'),
    image_url: z.string(),
    detail: z.string().nullish(),
  }),
);
export type InputImageContent = z.infer<typeof InputImageContent>;

export const OutputTextContent = lazySchema(() =>
  z.looseObject({
    type: z.literal('output_text'),
    text: z.string(),
    annotations: z.array(z.unknown()).optional(),
  }),
);
export type OutputTextContent = z.infer<typeof OutputTextContent>;

export const KnownContentItem = lazySchema(() =>
  z.discriminatedUnion('type', [InputTextContent, InputImageContent, OutputTextContent]),
);
export type KnownContentItem = z.infer<typeof KnownContentItem>;
/** The `type` of every known content part. */
const knownContentItemTypes = lazyValue(() => KnownContentItem.options.map((option) => option.shape.type.value));

/** A content part of a type this version does not know (e.g. `refusal`), kept as is. */
export const UnknownContentItem = lazySchema(() =>
  z.looseObject({
    type: unknownTag(knownContentItemTypes(), 'UnknownContentItemType'),
  }),
);
export type UnknownContentItem = z.infer<typeof UnknownContentItem>;

export const ContentItem = lazySchema(() => z.union([KnownContentItem, UnknownContentItem]));
export type ContentItem = z.infer<typeof ContentItem>;

/**
 * A message. `phase` ("commentary" | "final_answer") marks assistant text between tool calls vs. the
 * answer. `id` is the provider's item id, absent in rollouts.
 */
export const MessageResponseItem = lazySchema(() =>
  z.looseObject({
    type: z.literal('message'),
    role: z.enum(['user', 'assistant', 'developer', 'system']),
    content: z.array(ContentItem),
    id: z.string().nullish(),
    phase: z.string().nullish(),
  }),
);
export type MessageResponseItem = z.infer<typeof MessageResponseItem>;

export const ReasoningSummaryPart = lazySchema(() =>
  z.looseObject({ type: z.literal('summary_text'), text: z.string() }),
);
export type ReasoningSummaryPart = z.infer<typeof ReasoningSummaryPart>;

/** Raw reasoning text (`type` "reasoning_text" or "text"), sent only by some models. */
export const ReasoningContentPart = lazySchema(() => z.looseObject({ type: z.string(), text: z.string() }));
export type ReasoningContentPart = z.infer<typeof ReasoningContentPart>;

/** `encrypted_content`: opaque reasoning state to send back to the provider on the next request. */
export const ReasoningResponseItem = lazySchema(() =>
  z.looseObject({
    type: z.literal('reasoning'),
    id: z.string().nullish(),
    summary: z.array(ReasoningSummaryPart),
    content: z.array(ReasoningContentPart).nullish(),
    encrypted_content: z.string().nullish(),
  }),
);
export type ReasoningResponseItem = z.infer<typeof ReasoningResponseItem>;

/** A tool call; `arguments` is the JSON text the model produced (it may be invalid JSON). */
export const FunctionCallResponseItem = lazySchema(() =>
  z.looseObject({
    type: z.literal('function_call'),
    name: z.string(),
    arguments: z.string(),
    call_id: z.string(),
    id: z.string().nullish(),
  }),
);
export type FunctionCallResponseItem = z.infer<typeof FunctionCallResponseItem>;

/** A tool's output: plain text, or content parts (text and images). */
export const ToolOutput = lazySchema(() => z.union([z.string(), z.array(ContentItem)]));
export type ToolOutput = z.infer<typeof ToolOutput>;

/** The answer to the `function_call` with the same `call_id`. */
export const FunctionCallOutputResponseItem = lazySchema(() =>
  z.looseObject({
    type: z.literal('function_call_output'),
    call_id: z.string(),
    output: ToolOutput,
  }),
);
export type FunctionCallOutputResponseItem = z.infer<typeof FunctionCallOutputResponseItem>;

/** A free-form (grammar) tool call, e.g. apply_patch; `input` is the raw text. */
export const CustomToolCallResponseItem = lazySchema(() =>
  z.looseObject({
    type: z.literal('custom_tool_call'),
    call_id: z.string(),
    name: z.string(),
    input: z.string(),
    id: z.string().nullish(),
    status: z.string().nullish(),
  }),
);
export type CustomToolCallResponseItem = z.infer<typeof CustomToolCallResponseItem>;

export const CustomToolCallOutputResponseItem = lazySchema(() =>
  z.looseObject({
    type: z.literal('custom_tool_call_output'),
    call_id: z.string(),
    output: ToolOutput,
  }),
);
export type CustomToolCallOutputResponseItem = z.infer<typeof CustomToolCallOutputResponseItem>;

/** A provider-side web search; `action` (`{type: "search" | "open_page" | "find_in_page", …}`) may be absent. */
export const WebSearchCallResponseItem = lazySchema(() =>
  z.looseObject({
    type: z.literal('web_search_call'),
    id: z.string().nullish(),
    status: z.string().nullish(),
    action: z.looseObject({ type: z.string() }).nullish(),
  }),
);
export type WebSearchCallResponseItem = z.infer<typeof WebSearchCallResponseItem>;

/** Provider-side compaction: opaque state that stands for the history it replaced. */
export const CompactionResponseItem = lazySchema(() =>
  z.looseObject({
    type: z.literal('compaction'),
    encrypted_content: z.string(),
  }),
);
export type CompactionResponseItem = z.infer<typeof CompactionResponseItem>;

export const KnownResponseItem = lazySchema(() =>
  z.discriminatedUnion('type', [
    MessageResponseItem,
    ReasoningResponseItem,
    FunctionCallResponseItem,
    FunctionCallOutputResponseItem,
    CustomToolCallResponseItem,
    CustomToolCallOutputResponseItem,
    WebSearchCallResponseItem,
    CompactionResponseItem,
  ]),
);
export type KnownResponseItem = z.infer<typeof KnownResponseItem>;
/** The `type` of every known response item. */
export const knownResponseItemTypes = lazyValue(() =>
  KnownResponseItem.options.map((option) => option.shape.type.value),
);

/** An item of a type this version does not know (`local_shell_call`, `ghost_snapshot`, …), kept as is. */
export const UnknownResponseItem = lazySchema(() =>
  z.looseObject({
    type: unknownTag(knownResponseItemTypes(), 'UnknownResponseItemType'),
  }),
);
export type UnknownResponseItem = z.infer<typeof UnknownResponseItem>;

/** Narrow with `isKnownResponseItem` before switching on `type` (see open-union.ts). */
export const ResponseItem = lazySchema(() => z.union([KnownResponseItem, UnknownResponseItem]));
export type ResponseItem = z.infer<typeof ResponseItem>;

const knownResponseItemTypeSet = lazyValue((): ReadonlySet<string> => new Set(knownResponseItemTypes()));

export function isKnownResponseItem(item: ResponseItem): item is KnownResponseItem {
  return knownResponseItemTypeSet().has(item.type);
}
