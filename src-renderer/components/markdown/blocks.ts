// Agent Markdown → HTML, block by block (pure; the caller supplies the sanitizer). Raw HTML in the text is
// shown as text, fenced code gets a header with a Copy button, images become links.
//
// A streaming message is re-rendered every frame, so rendering is incremental: the text is split into
// top-level blocks (paragraphs, lists, code blocks…); while the text only grows, every block but the last
// is kept and only the tail is lexed again, and each block's HTML is cached by its source.
import { Marked } from 'marked';
import type { Token, Tokens } from 'marked';

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Links and images may only point here. */
export const SAFE_URL = /^(https?:|mailto:)/i;

const marked = new Marked({
  gfm: true,
  breaks: false,
  async: false,
  renderer: {
    html(token: Tokens.HTML | Tokens.Tag): string {
      return escapeHtml(token.text);
    },
    code(token: Tokens.Code): string {
      const language = (token.lang ?? '').trim().split(/\s+/)[0] ?? '';
      const label = language === '' ? 'text' : language;
      return (
        `<div class="md-code"><div class="md-code-head"><span>${escapeHtml(label)}</span>` +
        `<button type="button" class="md-copy" data-copy="">Copy</button></div>` +
        `<pre><code data-lang="${escapeHtml(language)}">${escapeHtml(token.text)}</code></pre></div>`
      );
    },
    image(token: Tokens.Image): string {
      const label = escapeHtml(token.text === '' ? token.href : token.text);
      return SAFE_URL.test(token.href) ? `<a href="${escapeHtml(token.href)}">${label}</a>` : label;
    },
  },
});

export interface MarkdownBlock {
  /** Offset of the block in the text: stable while the text grows, so it serves as a React key. */
  start: number;
  html: string;
}

export interface RenderedMarkdown {
  text: string;
  blocks: MarkdownBlock[];
}

export interface BlockRenderer {
  /**
   * The blocks of `text`. With the `previous` result of a prefix of `text` (a streaming message), only
   * its last block and what follows are rendered again.
   */
  renderBlocks(text: string, previous: RenderedMarkdown | null): RenderedMarkdown;
}

/** Rendered blocks kept per renderer, by source text; bounded, oldest first out. */
const BLOCK_CACHE_SIZE = 4000;

export function createBlockRenderer(sanitize: (html: string) => string): BlockRenderer {
  const cache = new Map<string, string>();

  const renderToken = (token: Token): string => {
    const cached = cache.get(token.raw);
    if (cached !== undefined) return cached;
    const html = sanitize(marked.parser(Object.assign([token], { links: {} })));
    if (cache.size >= BLOCK_CACHE_SIZE) {
      const oldest = cache.keys().next().value;
      if (oldest !== undefined) cache.delete(oldest);
    }
    cache.set(token.raw, html);
    return html;
  };

  /** Lexes `text` from `from` on; null when the tokens do not cover the text exactly (then start over). */
  const lexFrom = (text: string, from: number): MarkdownBlock[] | null => {
    const tokens = marked.lexer(text.slice(from));
    let offset = from;
    const blocks: MarkdownBlock[] = [];
    for (const token of tokens) {
      if (token.type !== 'space') blocks.push({ start: offset, html: renderToken(token) });
      offset += token.raw.length;
    }
    return offset === text.length ? blocks : null;
  };

  return {
    renderBlocks(source, previous) {
      const text = source.replace(/\r\n?/g, '\n');
      if (previous !== null && previous.text === text) return previous;
      const last = previous?.blocks[previous.blocks.length - 1];
      if (previous !== null && last !== undefined && text.startsWith(previous.text)) {
        const tail = lexFrom(text, last.start);
        if (tail !== null) return { text, blocks: [...previous.blocks.slice(0, -1), ...tail] };
      }
      const all = lexFrom(text, 0);
      if (all !== null) return { text, blocks: all };
      return { text, blocks: [{ start: 0, html: sanitize(marked.parse(text, { async: false })) }] };
    },
  };
}
