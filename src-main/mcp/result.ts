// What the model reads back from an MCP tool call: Codex's `Wall time: … seconds\nOutput:` header, then
// each content block as a part of the function output. Text is truncated like command output; images
// go in as image inputs; audio, resource links and embedded resources as text the model can act on.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ContentItem } from '../../src-preload/protocol';
import { truncateMiddle } from '../tools/exec/format';

/** Token budget of the text one call returns (Codex's default tool output limit). */
export const MCP_OUTPUT_TOKENS = 10_000;

type Block = CallToolResult['content'][number];

export function wallTimeHeader(durationMs: number): string {
  return `Wall time: ${(durationMs / 1000).toFixed(4)} seconds\nOutput:`;
}

/** One content block as model input. */
export function blockToContent(block: Block): ContentItem {
  switch (block.type) {
    case 'text':
      return { type: 'input_text', text: block.text };
    case 'image':
      return { type: 'input_image', image_url: `data:${block.mimeType};base64,${block.data}` };
    case 'audio':
      return {
        type: 'input_text',
        text: `[audio (${block.mimeType}, ${Math.floor((block.data.length * 3) / 4)} bytes) that this model cannot hear]`,
      };
    case 'resource_link': {
      const about = [block.title ?? block.name, block.mimeType, block.description]
        .filter((s) => s !== undefined && s !== '')
        .join(', ');
      return { type: 'input_text', text: `Resource link: ${block.uri}${about === '' ? '' : ` (${about})`}` };
    }
    case 'resource': {
      const r = block.resource;
      if ('text' in r)
        return { type: 'input_text', text: `Resource ${r.uri}${r.mimeType ? ` (${r.mimeType})` : ''}:\n${r.text}` };
      if (r.mimeType?.startsWith('image/') === true)
        return { type: 'input_image', image_url: `data:${r.mimeType};base64,${r.blob}` };
      return {
        type: 'input_text',
        text: `Resource ${r.uri} (${r.mimeType ?? 'binary'}, ${Math.floor((r.blob.length * 3) / 4)} bytes of binary data)`,
      };
    }
  }
}

/**
 * The function output for a finished call. Text parts share one token budget, each truncated in the
 * middle once the budget runs short. `structuredContent` is added as JSON when no block carries text
 * (servers should mirror it in text, but not all do).
 */
export function toolOutputFor(
  result: CallToolResult,
  durationMs: number,
  maxTokens: number = MCP_OUTPUT_TOKENS,
): ContentItem[] {
  const parts: ContentItem[] = [{ type: 'input_text', text: wallTimeHeader(durationMs) }];
  const blocks = result.content.map(blockToContent);
  const hasText = blocks.some((b) => b.type === 'input_text');
  if (!hasText && result.structuredContent !== undefined) {
    blocks.push({ type: 'input_text', text: JSON.stringify(result.structuredContent) });
  }
  let budget = maxTokens;
  for (const block of blocks) {
    if (block.type === 'input_text' && 'text' in block && typeof block.text === 'string') {
      const cut = truncateMiddle(block.text, Math.max(0, budget));
      budget -= Math.ceil(Buffer.byteLength(cut.text, 'utf8') / 4);
      parts.push({ type: 'input_text', text: cut.text });
    } else {
      parts.push(block);
    }
  }
  return parts;
}
