// Responses-style history → Chat Completions `messages`, and Weft tool specs → chat `tools`.
//
// Mapping (what a chat provider cannot represent is dropped, never invented):
// - `instructions` → one leading `system` message (omitted when empty).
// - `message` user → `user`; developer/system → `system`; assistant → `assistant`. Text-only content is
//   sent as a plain string (local servers often reject part arrays): user/system parts joined with a
//   blank line, assistant `output_text` parts concatenated as streamed. Content with images is sent as a
//   part array (`text` / `image_url`); images in system messages are dropped (chat cannot carry them).
// - `function_call` / `custom_tool_call` → a `tool_calls` entry of the assistant message just before
//   (the text the model wrote before calling), or of a new assistant message. A custom call is sent as
//   the JSON-function form `{"input": <text>}`, which is how the core registers such tools for chat.
// - `function_call_output` / `custom_tool_call_output` → a `tool` message. Tool messages carry text
//   only, so images in a tool output follow in one `user` message after the run of tool messages.
// - `reasoning`, `web_search_call`, `compaction` and unknown items are dropped.
import type OpenAI from 'openai';
import { isKnownResponseItem } from '../../../src-preload/protocol';
import type { ContentItem, ResponseItem, ToolOutput } from '../../../src-preload/protocol';
import type { ToolSpec } from '../types';

type ChatMessage = OpenAI.Chat.ChatCompletionMessageParam;
type AssistantMessage = OpenAI.Chat.ChatCompletionAssistantMessageParam;
type UserPart = OpenAI.Chat.ChatCompletionContentPart;
type ImagePart = OpenAI.Chat.ChatCompletionContentPartImage;

export function toChatMessages(instructions: string, input: readonly ResponseItem[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  if (instructions.length > 0) out.push({ role: 'system', content: instructions });
  /** Images from tool outputs, sent once the run of `tool` messages ends. */
  let pendingImages: { callId: string; images: ImagePart[] }[] = [];

  const flushImages = (): void => {
    if (pendingImages.length === 0) return;
    const parts: UserPart[] = [];
    for (const { callId, images } of pendingImages) {
      parts.push({ type: 'text', text: `Image output of tool call ${callId}:` }, ...images);
    }
    out.push({ role: 'user', content: parts });
    pendingImages = [];
  };

  const pushCall = (call: OpenAI.Chat.ChatCompletionMessageFunctionToolCall): void => {
    flushImages();
    const last = out[out.length - 1];
    if (last?.role === 'assistant') {
      last.tool_calls = [...(last.tool_calls ?? []), call];
      return;
    }
    out.push({ role: 'assistant', content: null, tool_calls: [call] });
  };

  const pushOutput = (callId: string, output: ToolOutput): void => {
    const { text, images } = splitToolOutput(output);
    const note =
      images.length === 0 ? '' : `(${images.length} image${images.length === 1 ? '' : 's'} in the next message)`;
    out.push({ role: 'tool', tool_call_id: callId, content: [text, note].filter((s) => s.length > 0).join('\n') });
    if (images.length > 0) pendingImages.push({ callId, images });
  };

  for (const item of input) {
    if (!isKnownResponseItem(item)) continue;
    switch (item.type) {
      case 'message': {
        const message = toMessage(item.role, item.content);
        if (message === null) break;
        flushImages();
        out.push(message);
        break;
      }
      case 'function_call':
        pushCall({
          id: item.call_id,
          type: 'function',
          function: {
            name: typeof item['namespace'] === 'string' ? `${item['namespace']}__${item.name}` : item.name,
            arguments: item.arguments,
          },
        });
        break;
      case 'custom_tool_call':
        pushCall({
          id: item.call_id,
          type: 'function',
          function: { name: item.name, arguments: JSON.stringify({ input: item.input }) },
        });
        break;
      case 'function_call_output':
      case 'custom_tool_call_output':
        pushOutput(item.call_id, item.output);
        break;
      case 'reasoning':
      case 'web_search_call':
      case 'compaction':
        break;
    }
  }
  flushImages();
  return out;
}

/** Function tools only: chat has no custom (grammar) or hosted tools; the caller registers function forms. */
export function toChatTools(tools: readonly ToolSpec[]): OpenAI.Chat.ChatCompletionFunctionTool[] {
  const out: OpenAI.Chat.ChatCompletionFunctionTool[] = [];
  for (const tool of tools) {
    if (tool.type !== 'function') continue;
    out.push({
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: tool.parameters },
    });
  }
  return out;
}

function toMessage(
  role: 'user' | 'assistant' | 'developer' | 'system',
  content: readonly ContentItem[],
): ChatMessage | null {
  const texts: string[] = [];
  const parts: UserPart[] = [];
  let hasImage = false;
  for (const part of content) {
    const text = textOf(part);
    if (text !== null) {
      texts.push(text);
      parts.push({ type: 'text', text });
      continue;
    }
    const image = imageOf(part);
    if (image !== null) {
      hasImage = true;
      parts.push(image);
    }
  }
  switch (role) {
    case 'assistant': {
      const text = texts.join('');
      if (text.length === 0) return null;
      const message: AssistantMessage = { role: 'assistant', content: text };
      return message;
    }
    case 'developer':
    case 'system': {
      const text = texts.join('\n\n');
      return text.length === 0 ? null : { role: 'system', content: text };
    }
    case 'user':
      if (hasImage) return { role: 'user', content: parts };
      if (texts.length === 0) return null;
      return { role: 'user', content: texts.join('\n\n') };
  }
}

function textOf(part: ContentItem): string | null {
  if ((part.type === 'input_text' || part.type === 'output_text') && 'text' in part && typeof part.text === 'string')
    return part.text;
  return null;
}

function imageOf(part: ContentItem): ImagePart | null {
  if (part.type !== 'input_image' || !('image_url' in part) || typeof part.image_url !== 'string') return null;
  const detail: unknown = 'detail' in part ? part.detail : undefined;
  const image: ImagePart = { type: 'image_url', image_url: { url: part.image_url } };
  if (detail === 'auto' || detail === 'low' || detail === 'high') image.image_url.detail = detail;
  return image;
}

function splitToolOutput(output: ToolOutput): { text: string; images: ImagePart[] } {
  if (typeof output === 'string') return { text: output, images: [] };
  const texts: string[] = [];
  const images: ImagePart[] = [];
  for (const part of output) {
    const text = textOf(part);
    if (text !== null) texts.push(text);
    const image = imageOf(part);
    if (image !== null) images.push(image);
  }
  return { text: texts.join('\n'), images };
}
