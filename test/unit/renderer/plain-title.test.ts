// Thread titles: Markdown removed, whitespace collapsed, long ones cut; forks say so.
import { describe, expect, it } from 'vitest';
import { plainTitle } from '../../../src-renderer/store/plain-title';
import { threadTitle } from '../../../src-renderer/store/selectors';

describe('thread titles', () => {
  it('are plain text', () => {
    expect(plainTitle('# Fix the **login** bug in `auth.ts`.\n\nMore detail here.')).toBe(
      'Fix the login bug in auth.ts.',
    );
    expect(plainTitle('See [the docs](http://example.com) and *this*')).toBe('See the docs and this');
    expect(plainTitle('- one\n- two')).toBe('one two');
    expect(plainTitle('a & b < c')).toBe('a & b < c');
    expect(plainTitle('\n\n```\nnpm test\n```')).toBe('npm test');
  });

  it('are cut at a word, with an ellipsis', () => {
    const title = plainTitle('word '.repeat(40));
    expect(title.length).toBeLessThanOrEqual(80);
    expect(title.endsWith('word…')).toBe(true);
    expect(plainTitle('x'.repeat(100))).toBe(`${'x'.repeat(79)}…`);
  });

  it('say when a thread is a fork', () => {
    expect(threadTitle({ name: null, preview: '**Hello**', forkedFromId: null })).toBe('Hello');
    expect(threadTitle({ name: null, preview: '**Hello**', forkedFromId: 'p' })).toBe('Hello (fork)');
    expect(threadTitle({ name: 'Mine', preview: 'x', forkedFromId: 'p' })).toBe('Mine (fork)');
    expect(threadTitle({ name: null, preview: '  ', forkedFromId: null })).toBe('Untitled thread');
  });
});
