import { describe, expect, it } from 'vitest';
import { encodeRequestBody } from '../../../src-main/model/request-body';
import type { Pacer } from '../../../src-main/util/slicer';

/** A pacer whose every slice is used up after `every` steps, counting its pauses. */
function countingPacer(every: number): Pacer & { pauses: number } {
  let steps = 0;
  const pacer = {
    pauses: 0,
    due: () => steps >= every,
    pause: () => {
      pacer.pauses++;
      steps = 0;
      return Promise.resolve();
    },
    pace: async () => {
      steps++;
      if (pacer.due()) await pacer.pause();
    },
  };
  return pacer;
}

describe('encodeRequestBody', () => {
  const bodies: Record<string, Record<string, unknown>> = {
    'a Responses body': {
      model: 'gpt-5',
      instructions: 'Be brief.\n"quoted"',
      input: [
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'héllo ✓ 😀' }] },
        { type: 'function_call', call_id: 'c1', name: 'exec_command', arguments: '{"cmd":"ls"}' },
      ],
      tools: [{ type: 'function', name: 'exec_command', parameters: { type: 'object' } }],
      store: false,
      stream: true,
      prompt_cache_key: undefined,
      max_output_tokens: 100,
    },
    'values JSON cannot say': {
      input: [undefined, () => 1, null, 0, '', { skip: undefined, keep: 1 }],
      missing: undefined,
      fn: () => 2,
      date: new Date(0),
    },
    'a lone surrogate and control characters': { input: ['\ud800 alone', '\u0000\u001f\u2028'], text: '\udfff' },
    'an empty array first': { input: [], model: 'm' },
    'no array at the key': { input: 'text', model: 'm' },
    'only members JSON leaves out': { input: undefined },
    'nothing at all': {},
  };

  for (const [name, body] of Object.entries(bodies)) {
    it(`gives the bytes of JSON.stringify for ${name}`, async () => {
      const bytes = await encodeRequestBody(body, 'input');
      expect(bytes.toString('utf8')).toBe(JSON.stringify(body));
      expect(bytes.equals(Buffer.from(JSON.stringify(body), 'utf8'))).toBe(true);
    });
  }

  it('gives the event loop back between the elements of the long array, and only there', async () => {
    const input = Array.from({ length: 10 }, (_, n) => ({ n, text: 'x'.repeat(n) }));
    const pacer = countingPacer(3);
    const bytes = await encodeRequestBody({ model: 'm', input, tools: [1, 2, 3, 4, 5, 6] }, 'input', pacer);
    expect(JSON.parse(bytes.toString('utf8'))).toEqual({ model: 'm', input, tools: [1, 2, 3, 4, 5, 6] });
    // 10 elements, a pause after every third: 3 pauses; `tools` is written whole.
    expect(pacer.pauses).toBe(3);
  });

  it('writes a history of 4 MB in slices, not in one stretch', async () => {
    const big = 'a "quoted" line\n'.repeat(250_000);
    const input = [{ type: 'function_call', arguments: big }, ...Array.from({ length: 2000 }, (_, n) => ({ n }))];
    const pacer = countingPacer(100);
    const bytes = await encodeRequestBody({ input }, 'input', pacer);
    expect(bytes.length).toBe(Buffer.byteLength(JSON.stringify({ input })));
    expect(pacer.pauses).toBe(20);
  });
});
