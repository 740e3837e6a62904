import { describe, expect, it } from 'vitest';
import { createBlockRenderer } from '../../../src-renderer/components/markdown/blocks';
import type { RenderedMarkdown } from '../../../src-renderer/components/markdown/blocks';

// The page sanitizes with DOMPurify (which needs a DOM); here the blocks' own HTML is checked as is.
const { renderBlocks: renderMarkdownBlocks } = createBlockRenderer((html) => html);

const TEXT = [
  '# Plan',
  '',
  'First I will **read** the tests, then:',
  '',
  '1. fix `checkout.test.ts`',
  '2. run the suite',
  '',
  '```ts',
  'const x = 1;',
  '',
  'const y = 2;',
  '```',
  '',
  'Done — see [the docs](https://example.com).',
].join('\n');

describe('renderMarkdownBlocks', () => {
  it('renders a text streamed in small pieces exactly as the whole text, keeping finished blocks', () => {
    let streamed: RenderedMarkdown | null = null;
    let kept = 0;
    for (let end = 1; end <= TEXT.length; end += 3) {
      const next = renderMarkdownBlocks(TEXT.slice(0, end), streamed);
      // Every block before the previous result's last one was final: the very same object is kept.
      const before = streamed?.blocks ?? [];
      for (let i = 0; i < before.length - 1; i++) {
        expect(next.blocks[i]).toBe(before[i]);
        kept += 1;
      }
      streamed = next;
    }
    expect(kept).toBeGreaterThan(50);
    streamed = renderMarkdownBlocks(TEXT, streamed);
    expect(streamed.blocks.map((b) => b.html).join('')).toBe(
      renderMarkdownBlocks(TEXT, null)
        .blocks.map((b) => b.html)
        .join(''),
    );
    expect(streamed.blocks.map((b) => b.start)).toEqual(renderMarkdownBlocks(TEXT, null).blocks.map((b) => b.start));
  });

  it('returns the previous result for the same text, and starts over when the text is not a continuation', () => {
    const first = renderMarkdownBlocks('one\n\ntwo', null);
    expect(renderMarkdownBlocks('one\n\ntwo', first)).toBe(first);
    const other = renderMarkdownBlocks('three', first);
    expect(other.blocks).toHaveLength(1);
    expect(other.blocks[0]?.html).toContain('three');
  });

  it('shows raw HTML as text', () => {
    expect(renderMarkdownBlocks('<script>alert(1)</script>', null).blocks[0]?.html).not.toContain('<script>');
  });
});
