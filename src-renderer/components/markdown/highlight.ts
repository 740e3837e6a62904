// Colours the code blocks of rendered Markdown with Monaco's tokenizers, loading Monaco on first use.
import { sanitize } from './render';

/**
 * The source text of coloured code blocks. Coloured HTML no longer reads back as the source (its line
 * breaks are elements, its spaces non-breaking), so Copy takes the text from here.
 */
const sources = new WeakMap<Element, string>();

/** The text a code block was written with, coloured or not. */
export function codeSource(block: Element): string {
  return sources.get(block) ?? block.textContent ?? '';
}

/** Replaces the text of each `code[data-lang]` under `root` by its coloured version. */
export async function highlightCodeBlocks(root: HTMLElement, isCurrent: () => boolean): Promise<void> {
  const blocks = [...root.querySelectorAll<HTMLElement>('code[data-lang]')].filter(
    (b) => b.dataset.lang !== '' && b.dataset.colored === undefined,
  );
  if (blocks.length === 0) return;
  const { colorize, languageForFence } = await import('../diff/monaco');
  for (const block of blocks) {
    const language = languageForFence(block.dataset.lang ?? '');
    if (language === null) continue;
    const source = block.textContent ?? '';
    const html = await colorize(source, language);
    if (!isCurrent()) return;
    sources.set(block, source);
    block.innerHTML = sanitize(html);
    block.dataset.colored = '';
  }
}
