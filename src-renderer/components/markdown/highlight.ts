// Colours the code blocks of rendered Markdown with Monaco's tokenizers, loading Monaco on first use.
import { sanitize } from './render';

/** Replaces the text of each `code[data-lang]` under `root` by its coloured version. */
export async function highlightCodeBlocks(root: HTMLElement, isCurrent: () => boolean): Promise<void> {
  const blocks = [...root.querySelectorAll<HTMLElement>('code[data-lang]')].filter((b) => b.dataset.lang !== '' && b.dataset.colored === undefined);
  if (blocks.length === 0) return;
  const { colorize, languageForFence } = await import('../diff/monaco');
  for (const block of blocks) {
    const language = languageForFence(block.dataset.lang ?? '');
    if (language === null) continue;
    const html = await colorize(block.textContent ?? '', language);
    if (!isCurrent()) return;
    block.innerHTML = sanitize(html);
    block.dataset.colored = '';
  }
}
