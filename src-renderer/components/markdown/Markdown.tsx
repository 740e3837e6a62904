// Rendered Markdown (agent messages, plans, reasoning). While a message streams, only its last block is
// rendered again each frame (see render.ts). Code blocks get a Copy button and, once the text is final,
// syntax colours.
import { memo, useEffect, useMemo, useRef } from 'react';
import type { MouseEvent } from 'react';
import { codeSource, highlightCodeBlocks } from './highlight';
import { renderMarkdownBlocks } from './render';
import type { MarkdownBlock, RenderedMarkdown } from './render';

export interface MarkdownProps {
  text: string;
  /** The text is final: colour its code blocks. While streaming they stay plain. */
  final: boolean;
  className?: string;
}

/** How long a Copy button says "Copied" before it reads "Copy" again. */
const COPIED_MS = 1500;

function copyCode(event: MouseEvent<HTMLDivElement>): void {
  const target = event.target;
  if (!(target instanceof HTMLElement) || target.dataset.copy === undefined) return;
  const block = target.closest('.md-code')?.querySelector('code');
  const code = block === null || block === undefined ? '' : codeSource(block);
  void navigator.clipboard?.writeText(code).then(
    () => {
      target.textContent = 'Copied';
      window.setTimeout(() => {
        target.textContent = 'Copy';
      }, COPIED_MS);
    },
    () => {
      target.textContent = 'Copy failed';
      window.setTimeout(() => {
        target.textContent = 'Copy';
      }, COPIED_MS);
    },
  );
}

const Block = memo(function Block({ html }: { html: string }) {
  return <div className="md-block" dangerouslySetInnerHTML={{ __html: html }} />;
});

/** Blocks per group. A group is laid out and painted only near the viewport (content-visibility). */
const GROUP_SIZE = 16;

const Group = memo(function Group({ blocks }: { blocks: readonly MarkdownBlock[] }) {
  return (
    <div className="md-group">
      {blocks.map((block) => (
        <Block key={block.start} html={block.html} />
      ))}
    </div>
  );
});

/** The blocks in groups of GROUP_SIZE, reusing each previous group whose blocks are all unchanged. */
function groupBlocks(blocks: readonly MarkdownBlock[], previous: MarkdownBlock[][]): MarkdownBlock[][] {
  const groups: MarkdownBlock[][] = [];
  for (let start = 0; start < blocks.length; start += GROUP_SIZE) {
    const slice = blocks.slice(start, start + GROUP_SIZE);
    const old = previous[groups.length];
    const same = old !== undefined && old.length === slice.length && old.every((block, i) => block === slice[i]);
    groups.push(same ? old : slice);
  }
  return groups;
}

export const Markdown = memo(function Markdown({ text, final, className }: MarkdownProps) {
  const previous = useRef<RenderedMarkdown | null>(null);
  const previousGroups = useRef<MarkdownBlock[][]>([]);
  const rendered = useMemo(() => {
    previous.current = renderMarkdownBlocks(text, previous.current);
    return previous.current;
  }, [text]);
  const groups = useMemo(() => {
    previousGroups.current = groupBlocks(rendered.blocks, previousGroups.current);
    return previousGroups.current;
  }, [rendered]);
  const root = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = root.current;
    if (!final || element === null) return;
    let current = true;
    void highlightCodeBlocks(element, () => current);
    return () => {
      current = false;
    };
  }, [rendered, final]);
  return (
    <div ref={root} className={`markdown ${className ?? ''}`} onClick={copyCode}>
      {groups.map((blocks, index) => (
        <Group key={index} blocks={blocks} />
      ))}
    </div>
  );
});
