// Syntax colours for a diff drawn as plain elements (StaticDiff.tsx): Monaco's tokenizers give each line's
// tokens and their types ("keyword.flow.ts"), and a type takes the class of the most specific rule of
// Monaco's own vs and vs-dark themes that names it (a rule names a type when it is the type or a prefix of
// it at a dot), so a diff reads in the colours of the diff editor. The colours are in diff.css.

/** The rules of Monaco's vs and vs-dark themes that give a colour or a style (the default one left out). */
const RULES = [
  'invalid',
  'emphasis',
  'strong',
  'variable',
  'variable.predefined',
  'variable.parameter',
  'constant',
  'comment',
  'number',
  'number.hex',
  'regexp',
  'annotation',
  'type',
  'delimiter.html',
  'delimiter.xml',
  'tag',
  'meta.tag',
  'meta.scss',
  'metatag',
  'metatag.content.html',
  'metatag.html',
  'metatag.xml',
  'key',
  'string.key.json',
  'string.value.json',
  'attribute.name',
  'attribute.value',
  'attribute.value.number',
  'attribute.value.unit',
  'string',
  'string.html',
  'string.sql',
  'string.yaml',
  'keyword',
  'keyword.json',
  'keyword.flow',
  'keyword.flow.scss',
  'operator.sql',
  'predefined.sql',
] as const;

const known = new Map<string, string>();

/** The class for a token type ('' when no rule names it: the default colour). */
export function tokenClass(type: string): string {
  const cached = known.get(type);
  if (cached !== undefined) return cached;
  let best = '';
  for (const rule of RULES) {
    if ((type === rule || type.startsWith(`${rule}.`)) && rule.length > best.length) best = rule;
  }
  const name = best === '' ? '' : `tk-${best.replace(/\./g, '-')}`;
  known.set(type, name);
  return name;
}

/** Where each colour starts in a line, in order (`className` '' for the default colour). */
export type LineColours = readonly { start: number; className: string }[];

/** Most lines a side may have to be coloured: a bigger diff is shown in one colour rather than hold the page. */
const MAX_COLOURED_LINES = 3000;

/**
 * The colours of each line of both sides of a diff (as `sidesText` gives them) in the language of `path`;
 * null when the file has no language with a tokenizer, or the diff is too big to colour.
 */
export async function colourSides(
  sides: { original: readonly string[]; modified: readonly string[] },
  path: string,
): Promise<{ original: LineColours[]; modified: LineColours[] } | null> {
  if (sides.original.length > MAX_COLOURED_LINES || sides.modified.length > MAX_COLOURED_LINES) return null;
  const { monaco, languageForPath } = await import('./monaco');
  const language = languageForPath(path);
  if (language === 'plaintext') return null;
  // Colourizing a line waits for the language's tokenizer to load; tokenizing alone would not.
  await monaco.editor.colorize(sides.modified[0] ?? sides.original[0] ?? '', language, { tabSize: 4 });
  const colour = (lines: readonly string[]): LineColours[] =>
    lines.length === 0
      ? []
      : monaco.editor
          // A carriage return would end a line for the tokenizer: a space keeps every offset.
          .tokenize(lines.join('\n').replace(/\r/g, ' '), language)
          .map((tokens) => tokens.map((token) => ({ start: token.offset, className: tokenClass(token.type) })));
  return { original: colour(sides.original), modified: colour(sides.modified) };
}
