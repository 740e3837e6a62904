import { describe, expect, it } from 'vitest';
import { oneSided } from '../../../src-renderer/components/diff/one-sided';

describe('oneSided', () => {
  it('shows a new file as its added lines and a deleted file as its removed lines, without the final line break', () => {
    expect(oneSided('', 'a\nb\n')).toEqual({ kind: 'added', text: 'a\nb' });
    expect(oneSided('a\r\nb\r\n', '')).toEqual({ kind: 'removed', text: 'a\r\nb' });
    expect(oneSided('', 'no break')).toEqual({ kind: 'added', text: 'no break' });
    expect(oneSided('', '\n')).toEqual({ kind: 'added', text: '' });
  });

  it('leaves diffs with text on both sides (or none) to the diff editor', () => {
    expect(oneSided('a\n', 'b\n')).toBeNull();
    expect(oneSided('', '')).toBeNull();
  });
});
