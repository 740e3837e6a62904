import { describe, expect, it } from 'vitest';
import { parseFileDiff } from '../../../src-preload/diff/unified-diff';
import {
  inlineRows,
  oneSide,
  sidesText,
  splitRows,
  wordChanges,
} from '../../../src-renderer/components/diff/static-rows';
import { tokenClass } from '../../../src-renderer/components/diff/token-colours';

const diff = [
  '--- a/app.ts',
  '+++ b/app.ts',
  '@@ -1,4 +1,4 @@',
  ' const a = 1;',
  '-const b = computeTotal(a);',
  '+const b = computeSum(a);',
  ' const c = 3;',
  ' const d = 4;',
  '@@ -20,3 +20,4 @@',
  ' twenty',
  '-twenty-one',
  '+21',
  '+22',
  ' twenty-two',
  '',
].join('\n');

const hunks = parseFileDiff(diff).hunks;

describe('a diff drawn as rows', () => {
  it('numbers each inline line on its sides and folds the unchanged lines between hunks', () => {
    const rows = inlineRows(hunks);
    const shown = rows.map((row) =>
      row.type === 'gap'
        ? `… ${row.hidden}`
        : `${row.line.oldNumber ?? '-'} ${row.line.newNumber ?? '-'} ${row.line.kind[0]} ${row.line.text}`,
    );
    expect(shown).toEqual([
      '1 1 c const a = 1;',
      '2 - r const b = computeTotal(a);',
      '- 2 a const b = computeSum(a);',
      '3 3 c const c = 3;',
      '4 4 c const d = 4;',
      '… 15',
      '20 20 c twenty',
      '21 - r twenty-one',
      '- 21 a 21',
      '- 22 a 22',
      '22 23 c twenty-two',
    ]);
  });

  it('sets a removed line beside the line that replaced it, and a filler beside one with no partner', () => {
    const rows = splitRows(hunks);
    const shown = rows.map((row) =>
      row.type === 'gap' ? `… ${row.hidden}` : `${row.left?.text ?? '·'} | ${row.right?.text ?? '·'}`,
    );
    expect(shown).toEqual([
      'const a = 1; | const a = 1;',
      'const b = computeTotal(a); | const b = computeSum(a);',
      'const c = 3; | const c = 3;',
      'const d = 4; | const d = 4;',
      '… 15',
      'twenty | twenty',
      'twenty-one | 21',
      '· | 22',
      'twenty-two | twenty-two',
    ]);
  });

  it('marks the words that changed in a line that replaced another alike, and none in a rewritten one', () => {
    const [, removed, added] = inlineRows(hunks);
    const text = (row: typeof removed) =>
      row?.type === 'line' ? row.line.changes.map(([a, b]) => row.line.text.slice(a, b)) : null;
    expect(text(removed)).toEqual(['computeTotal']);
    expect(text(added)).toEqual(['computeSum']);
    expect(wordChanges('alpha beta gamma', 'alpha BETA gamma')).toEqual({ removed: [[6, 10]], added: [[6, 10]] });
    expect(wordChanges('one thing', 'something else entirely')).toEqual({ removed: [], added: [] });
    expect(wordChanges('x'.repeat(2000), `${'x'.repeat(1999)}y`)).toEqual({ removed: [], added: [] });
  });

  it('gives each line its place in its side’s text, for its colours', () => {
    const sides = sidesText(hunks);
    for (const row of inlineRows(hunks)) {
      if (row.type === 'gap') continue;
      expect(sides[row.line.side][row.line.index]).toBe(row.line.text);
    }
    expect(sides.original).toHaveLength(7);
    expect(sides.modified).toHaveLength(8);
  });

  it('knows a new file and a deleted one (one side only)', () => {
    const added = parseFileDiff('--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n').hunks;
    const removed = parseFileDiff('--- a/old.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-one\n-two\n').hunks;
    expect(oneSide(added)).toBe('added');
    expect(oneSide(removed)).toBe('removed');
    expect(oneSide(hunks)).toBe(null);
  });
});

describe('syntax colours of a token type', () => {
  it('takes the most specific rule that names the type', () => {
    expect(tokenClass('keyword.ts')).toBe('tk-keyword');
    expect(tokenClass('keyword.flow.ts')).toBe('tk-keyword-flow');
    expect(tokenClass('string.key.json')).toBe('tk-string-key-json');
    expect(tokenClass('identifier.ts')).toBe('');
    expect(tokenClass('keywords.ts')).toBe('');
    expect(tokenClass('')).toBe('');
  });
});
