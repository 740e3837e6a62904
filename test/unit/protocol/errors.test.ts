import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { describeZodError } from '../../../src-preload/protocol';

function describe1(schema: z.ZodType, value: unknown, root?: string): string {
  const result = schema.safeParse(value);
  if (result.success) throw new Error(`accepted ${JSON.stringify(value)}`);
  return describeZodError(result.error, root);
}

describe('describeZodError', () => {
  it('names the path under "params" by default', () => {
    expect(describe1(z.object({ threadId: z.string() }), {})).toBe(
      'params.threadId: expected string, received undefined',
    );
  });

  it('uses the given root, or none', () => {
    const schema = z.object({ a: z.object({ b: z.number() }) });
    expect(describe1(schema, { a: { b: 'x' } }, 'result')).toBe('result.a.b: expected number, received string');
    expect(describe1(schema, { a: { b: 'x' } }, '')).toBe('a.b: expected number, received string');
    expect(describe1(schema, 5, '')).toBe('expected object, received number');
  });

  it('writes array indexes and odd keys readably', () => {
    const schema = z.object({ list: z.array(z.object({ 'file name': z.string() })) });
    expect(describe1(schema, { list: [{ 'file name': 'a' }, {}] })).toBe(
      'params.list[1]["file name"]: expected string, received undefined',
    );
  });

  it('counts further problems without listing them', () => {
    const schema = z.object({ a: z.string(), b: z.string(), c: z.string() });
    expect(describe1(schema, {})).toBe('params.a: expected string, received undefined (and 2 more problems)');
    expect(describe1(schema, { a: 'x' })).toBe('params.b: expected string, received undefined (and 1 more problem)');
  });

  it('describes enum, literal, discriminator, size and unknown-key problems', () => {
    expect(describe1(z.object({ k: z.enum(['a', 'b']) }), { k: 'c' })).toBe('params.k: expected one of "a", "b"');
    expect(describe1(z.object({ k: z.literal('x') }), { k: 'y' })).toBe('params.k: expected "x"');
    const tagged = z.discriminatedUnion('type', [
      z.object({ type: z.literal('a') }),
      z.object({ type: z.literal('b') }),
    ]);
    expect(describe1(tagged, { type: 'c' })).toBe('params.type: expected one of "a", "b"');
    expect(describe1(z.object({ n: z.number().int().min(1) }), { n: 0 })).toBe('params.n: expected number to be >=1');
    expect(describe1(z.object({ s: z.string().max(2) }), { s: 'abc' })).toBe(
      'params.s: expected string to have <=2 characters',
    );
    expect(describe1(z.strictObject({ a: z.string() }), { a: 'x', b: 1 })).toBe('params: unexpected field "b"');
  });

  it('reports the branch of a plain union that got furthest', () => {
    const schema = z.object({ value: z.union([z.string(), z.object({ text: z.string() })]) });
    expect(describe1(schema, { value: { text: 1 } })).toBe('params.value.text: expected string, received number');
    expect(describe1(schema, { value: 1 })).toBe('params.value: expected string, received number');
  });
});
