import { describe, expect, it } from 'vitest';
import { newDraft } from '../../../src-renderer/store/draft';
import {
  appendOutput,
  EMPTY_OUTPUT,
  lastChars,
  outputText,
  replaceOutput,
} from '../../../src-renderer/store/output-tail';
import { OUTPUT_TAIL_CHARS } from '../../../src-renderer/store/state';
import type { OutputTail } from '../../../src-renderer/store/state';

function append(tail: OutputTail, ...deltas: string[]): OutputTail {
  const draft = newDraft();
  return deltas.reduce((t, d) => appendOutput(draft, t, d), tail);
}

describe('output tail', () => {
  it('merges small deltas and keeps everything under the limit', () => {
    const tail = append(EMPTY_OUTPUT, 'a', 'b', 'c');
    expect(tail).toEqual({ chunks: ['abc'], kept: 3, total: 3, epoch: 0 });
    expect(EMPTY_OUTPUT).toEqual({ chunks: [], kept: 0, total: 0, epoch: 0 });
    expect(lastChars(tail, 2)).toBe('bc');
  });

  it('drops the oldest output beyond the limit, even inside a chunk', () => {
    const big = 'y'.repeat(OUTPUT_TAIL_CHARS - 10);
    const tail = append(EMPTY_OUTPUT, 'z'.repeat(20_000), big, '0123456789abcdefghij');
    expect(tail.kept).toBe(OUTPUT_TAIL_CHARS);
    expect(tail.total).toBe(20_000 + big.length + 20);
    expect(outputText(tail)).toBe(`${'y'.repeat(OUTPUT_TAIL_CHARS - 20)}0123456789abcdefghij`);
    expect(lastChars(tail, 25)).toBe('yyyyy0123456789abcdefghij');
  });

  it('never changes a tail it did not make in this batch', () => {
    const before = append(EMPTY_OUTPUT, 'x'.repeat(10_000));
    const frozen = JSON.stringify(before);
    append(before, 'more', 'and more');
    expect(JSON.stringify(before)).toBe(frozen);
  });

  it('replaces the output with the end of a full text, in a new epoch', () => {
    const replaced = replaceOutput(append(EMPTY_OUTPUT, 'streamed'), 'q'.repeat(OUTPUT_TAIL_CHARS + 5));
    expect([replaced.kept, replaced.total, replaced.epoch]).toEqual([OUTPUT_TAIL_CHARS, OUTPUT_TAIL_CHARS + 5, 1]);
  });
});
