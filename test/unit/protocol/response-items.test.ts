import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  ContentItem,
  describeZodError,
  isKnownResponseItem,
  knownResponseItemTypes,
  ResponseItem,
  type FunctionCallResponseItem,
  type UnknownResponseItem,
} from '../../../src-preload/protocol';

const examples: Record<string, unknown>[] = [
  {
    type: 'message',
    role: 'developer',
    content: [{ type: 'input_text', text: '<permissions instructions>…</permissions instructions>' }],
  },
  {
    type: 'message',
    role: 'user',
    content: [
      { type: 'input_text', text: 'What is in this screenshot?' },
      { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'auto' },
    ],
  },
  {
    type: 'message',
    role: 'assistant',
    id: 'msg_01',
    phase: 'final_answer',
    end_turn: true,
    content: [{ type: 'output_text', text: 'Done.', annotations: [], logprobs: [] }],
  },
  {
    type: 'reasoning',
    summary: [{ type: 'summary_text', text: '**Planning the fix**' }],
    content: null,
    encrypted_content: 'gAAAAABo…',
  },
  {
    type: 'function_call',
    name: 'shell_command',
    arguments: '{"command":"rg -n parse","workdir":"/p"}',
    call_id: 'call_Xy12',
  },
  { type: 'function_call_output', call_id: 'call_Xy12', output: 'Exit code: 0\nWall time: 0.1 seconds\nOutput:\n' },
  {
    type: 'function_call_output',
    call_id: 'call_img',
    output: [{ type: 'input_image', image_url: 'data:image/png;base64,AAAA' }],
  },
  {
    type: 'custom_tool_call',
    status: 'completed',
    call_id: 'call_patch',
    name: 'apply_patch',
    input: '*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch\n',
  },
  {
    type: 'custom_tool_call_output',
    call_id: 'call_patch',
    output: 'Success. Updated the following files:\nA a.txt\n',
  },
  { type: 'web_search_call', status: 'completed', action: { type: 'search', query: 'zod 4 looseObject' } },
  { type: 'compaction', encrypted_content: 'gAAAAABcompact…' },
];

describe('ResponseItem', () => {
  for (const example of examples) {
    it(`parses and round-trips a ${String(example.type)} item unchanged`, () => {
      const parsed = ResponseItem.parse(example);
      expect(parsed).toEqual(example);
      expect(JSON.parse(JSON.stringify(parsed))).toEqual(example);
    });
  }

  it('keeps fields it does not name (end_turn, logprobs, future ones)', () => {
    const parsed = ResponseItem.parse({
      type: 'function_call',
      name: 'shell',
      arguments: '{}',
      call_id: 'c1',
      namespace: 'mcp__github',
      future_field: { nested: [1, 2] },
    });
    expect(parsed).toMatchObject({ namespace: 'mcp__github', future_field: { nested: [1, 2] } });
  });

  it('parses unknown item types as the catch-all and keeps every field', () => {
    const ghost = {
      type: 'ghost_snapshot',
      ghost_commit: { id: 'abc123', parent: null, preexisting_untracked_files: [] },
    };
    const shell = {
      type: 'local_shell_call',
      call_id: 'c2',
      status: 'completed',
      action: { type: 'exec', command: ['ls'] },
    };
    for (const item of [ghost, shell]) {
      const parsed = ResponseItem.parse(item);
      expect(parsed).toEqual(item);
      expect(isKnownResponseItem(parsed)).toBe(false);
    }
    expect(isKnownResponseItem(ResponseItem.parse(examples[4]))).toBe(true);
  });

  it('keeps unknown content part types inside a known message', () => {
    const message = {
      type: 'message',
      role: 'assistant',
      content: [{ type: 'refusal', refusal: 'I cannot help with that.' }],
    };
    expect(ResponseItem.parse(message)).toEqual(message);
    expect(ContentItem.parse({ type: 'input_file', file_id: 'f1' })).toEqual({ type: 'input_file', file_id: 'f1' });
  });

  it('rejects a broken known item naming its own field, not the catch-all', () => {
    const missing = ResponseItem.safeParse({ type: 'function_call', name: 'shell', arguments: '{}' });
    expect(missing.success).toBe(false);
    if (!missing.success)
      expect(describeZodError(missing.error, 'item')).toBe('item.call_id: expected string, received undefined');

    const badPart = ResponseItem.safeParse({
      type: 'message',
      role: 'user',
      content: [{ type: 'input_text', text: 7 }],
    });
    expect(badPart.success).toBe(false);
    if (!badPart.success)
      expect(describeZodError(badPart.error, 'item')).toBe('item.content[0].text: expected string, received number');

    const badRole = ResponseItem.safeParse({ type: 'message', role: 'tool', content: [] });
    expect(badRole.success).toBe(false);
    if (!badRole.success) {
      expect(describeZodError(badRole.error, 'item')).toBe(
        'item.role: expected one of "user", "assistant", "developer", "system"',
      );
    }
  });

  it('rejects items without a string type', () => {
    expect(ResponseItem.safeParse({ role: 'user', content: [] }).success).toBe(false);
    expect(ResponseItem.safeParse({ type: 3 }).success).toBe(false);
    expect(ResponseItem.safeParse('message').success).toBe(false);
  });

  it('lists the known types', () => {
    expect([...knownResponseItemTypes()].sort()).toEqual(
      [
        'compaction',
        'custom_tool_call',
        'custom_tool_call_output',
        'function_call',
        'function_call_output',
        'message',
        'reasoning',
        'web_search_call',
      ].sort(),
    );
  });

  it('narrows to a known variant after the isKnownResponseItem guard', () => {
    const item = ResponseItem.parse(examples[4]);
    if (!isKnownResponseItem(item)) {
      expectTypeOf(item).toEqualTypeOf<UnknownResponseItem>();
      throw new Error('function_call should be a known item');
    }
    if (item.type !== 'function_call') throw new Error(`expected function_call, got ${item.type}`);
    expectTypeOf(item).toEqualTypeOf<FunctionCallResponseItem>();
    expect(item.call_id).toBe('call_Xy12');
  });

  it('cannot be built by hand with a misspelt type', () => {
    // @ts-expect-error 'function_cal' is no known type, and unknown items come only from parsing.
    const typo: ResponseItem = { type: 'function_cal', name: 'x', arguments: '{}', call_id: 'c' };
    expect(ResponseItem.parse(typo)).toEqual(typo);
  });
});
