// Markdown for the page: the block renderer (blocks.ts) with DOMPurify as the last word on what reaches
// the DOM. Links are checked (http, https and mailto only) and open outside the app.
import DOMPurify from 'dompurify';
import { createBlockRenderer, SAFE_URL } from './blocks';
import type { RenderedMarkdown } from './blocks';

export type { MarkdownBlock, RenderedMarkdown } from './blocks';

let configured = false;

/** DOMPurify is configured once: passing the config to every call would re-parse it each time. */
function configure(): void {
  if (configured) return;
  configured = true;
  DOMPurify.setConfig({
    USE_PROFILES: { html: true },
    ADD_ATTR: ['target', 'data-lang', 'data-copy'],
    FORBID_TAGS: ['style', 'form', 'input', 'img', 'iframe'],
  });
  DOMPurify.addHook('afterSanitizeAttributes', (node) => {
    if (node.tagName !== 'A') return;
    const href = node.getAttribute('href') ?? '';
    if (!SAFE_URL.test(href)) {
      node.removeAttribute('href');
      return;
    }
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer');
  });
}

/** Sanitizes HTML we built (Markdown output, Monaco colouring). */
export function sanitize(html: string): string {
  configure();
  return DOMPurify.sanitize(html);
}

const renderer = createBlockRenderer(sanitize);

export function renderMarkdownBlocks(text: string, previous: RenderedMarkdown | null): RenderedMarkdown {
  return renderer.renderBlocks(text, previous);
}
