// The first line of a message as a title: Markdown reduced to its text (marked's lexer finds the syntax),
// whitespace collapsed, cut to a length. Pure.
import { Lexer } from 'marked';

/** Characters of a title before it is cut. */
const MAX_LENGTH = 80;

interface TokenLike {
  type: string;
  text?: unknown;
  tokens?: unknown;
  items?: unknown;
}

function isToken(value: unknown): value is TokenLike {
  return typeof value === 'object' && value !== null && 'type' in value && typeof value.type === 'string';
}

/** Inline tokens join as they stand; list items with a space between them. */
function textOf(tokens: unknown, separator = ''): string {
  if (!Array.isArray(tokens)) return '';
  return tokens
    .filter(isToken)
    .map((token): string => {
      if (Array.isArray(token.tokens)) return textOf(token.tokens);
      if (Array.isArray(token.items)) return textOf(token.items, ' ');
      if (token.type === 'br' || token.type === 'space' || token.type === 'hr' || token.type === 'html') return ' ';
      return typeof token.text === 'string' ? token.text : '';
    })
    .join(separator);
}

/** Undoes the HTML escaping marked applies to the text of some tokens. */
function unescape(text: string): string {
  return text.replace(
    /&(amp|lt|gt|quot|#39);/g,
    (_, name: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[name] ?? '',
  );
}

/** The first block of `markdown` with text in it, as plain text of at most `max` characters. */
export function plainTitle(markdown: string, max = MAX_LENGTH): string {
  let text = '';
  try {
    for (const block of Lexer.lex(markdown.slice(0, 4000))) {
      // The block's first line: a paragraph's soft line breaks start the detail, not the subject.
      const lines = unescape(textOf([block])).split('\n');
      text = (lines.find((line) => line.trim() !== '') ?? '').replace(/\s+/g, ' ').trim();
      if (text !== '') break;
    }
  } catch {
    text = (markdown.trim().split('\n')[0] ?? '').replace(/\s+/g, ' ').trim();
  }
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).trimEnd()}…`;
}
