import { describe, expect, it } from 'vitest';
import { threadTitle, UNTITLED_THREAD } from '../../../src-preload/protocol';

describe('threadTitle', () => {
  it('is the name when the thread has one, else the first line of its first message, else a placeholder', () => {
    expect(
      [
        { name: 'Parser fix', preview: 'Fix the parser' },
        { name: '  Spaced   name ', preview: 'x' },
        { name: null, preview: 'Fix the parser\nIt fails on empty input' },
        { name: null, preview: '\n\n  Indented\tfirst line  \nsecond' },
        { name: '   ', preview: 'Blank names do not count' },
        { name: '', preview: '' },
        { name: null, preview: ' \n ' },
      ].map((thread) => threadTitle(thread)),
    ).toEqual([
      'Parser fix',
      'Spaced name',
      'Fix the parser',
      'Indented first line',
      'Blank names do not count',
      UNTITLED_THREAD,
      UNTITLED_THREAD,
    ]);
    expect(UNTITLED_THREAD).toBe('Untitled thread');
  });

  it('makes each text plain the way it is told (the renderer removes Markdown)', () => {
    const shout = (text: string): string => text.trim().toUpperCase();
    expect(threadTitle({ name: null, preview: 'hello' }, shout)).toBe('HELLO');
    expect(threadTitle({ name: 'mine', preview: 'hello' }, shout)).toBe('MINE');
    // A name with nothing left once made plain leaves the preview to speak.
    expect(threadTitle({ name: '---', preview: 'hello' }, (t) => t.replace(/-/g, ''))).toBe('hello');
    expect(threadTitle({ name: null, preview: '***' }, () => '')).toBe(UNTITLED_THREAD);
  });
});
