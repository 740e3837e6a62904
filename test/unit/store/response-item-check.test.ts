import { describe, expect, it } from 'vitest';
import { ResponseItem } from '../../../src-preload/protocol';
import { isCommonResponseItem } from '../../../src-main/store/response-item-check';

// The quick check may only accept what the protocol schema accepts, unchanged.
const accepted: unknown[] = [
  { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] },
  {
    type: 'message',
    role: 'assistant',
    content: [{ type: 'output_text', text: 'yo', annotations: [] }],
    phase: 'final_answer',
    id: null,
  },
  {
    type: 'message',
    role: 'user',
    content: [{ type: 'input_image', image_url: 'data:x', detail: 'auto' }],
    extra: { kept: true },
  },
  { type: 'function_call', name: 'exec', arguments: '{}', call_id: 'c' },
  { type: 'function_call_output', call_id: 'c', output: 'text' },
  { type: 'function_call_output', call_id: 'c', output: [{ type: 'input_text', text: 'a' }] },
  { type: 'custom_tool_call', call_id: 'c', name: 'apply_patch', input: '*** Begin Patch', status: 'completed' },
  { type: 'custom_tool_call_output', call_id: 'c', output: 'ok' },
  { type: 'reasoning', summary: [{ type: 'summary_text', text: 's' }], content: null, encrypted_content: 'e' },
  { type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text: 't' }] },
];

// Shapes it must leave to the schema (wrong, or not common enough to check by hand).
const deferred: unknown[] = [
  { type: 'message', role: 'robot', content: [] },
  { type: 'message', role: 'user', content: [{ type: 'refusal', refusal: 'no' }] },
  { type: 'message', role: 'user', content: [{ type: 'input_text' }] },
  { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'x', annotations: null }] },
  { type: 'function_call', name: 'exec', arguments: {}, call_id: 'c' },
  { type: 'function_call_output', call_id: 7, output: 'x' },
  { type: 'reasoning', summary: [{ type: 'summary_text' }] },
  { type: 'web_search_call', status: 'completed' },
  { type: 'local_shell_call', call_id: 'c' },
  null,
  'message',
  [],
];

describe('isCommonResponseItem', () => {
  it('accepts only items the schema accepts, as they are', () => {
    for (const item of accepted) {
      expect(isCommonResponseItem(item), JSON.stringify(item)).toBe(true);
      const parsed = ResponseItem.safeParse(item);
      expect(parsed.success, JSON.stringify(item)).toBe(true);
      expect(parsed.data).toEqual(item);
    }
  });

  it('defers everything else to the schema', () => {
    for (const item of deferred) expect(isCommonResponseItem(item), JSON.stringify(item)).toBe(false);
  });
});
