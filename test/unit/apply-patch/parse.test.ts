import { describe, expect, it } from 'vitest';
import { PatchParseError, parsePatch } from '../../../src-main/tools/apply-patch/parse';
import { patch } from './helpers';

function parseError(text: string): PatchParseError {
  try {
    parsePatch(text);
  } catch (error) {
    if (error instanceof PatchParseError) return error;
    throw error;
  }
  throw new Error('expected a PatchParseError');
}

describe('parsePatch: grammar forms', () => {
  it('parses add, delete, and update with move, chained contexts, bare @@, and End of File', () => {
    const text = patch(
      '*** Add File: docs/new.md',
      '+# Title',
      '+',
      '+body',
      '*** Delete File: old.txt',
      '*** Update File: src/a.ts',
      '*** Move to: src/b.ts',
      '@@ class A',
      '@@   method() {',
      ' keep',
      '-old',
      '+new',
      '@@',
      '-tail',
      '+TAIL',
      '*** End of File',
    );
    expect(parsePatch(text)).toEqual({
      hunks: [
        { kind: 'add', path: 'docs/new.md', contents: '# Title\n\nbody\n', patchLine: 2 },
        { kind: 'delete', path: 'old.txt', patchLine: 6 },
        {
          kind: 'update',
          path: 'src/a.ts',
          movePath: 'src/b.ts',
          patchLine: 7,
          chunks: [
            {
              contexts: ['class A', '  method() {'],
              oldLines: ['keep', 'old'],
              newLines: ['keep', 'new'],
              isEndOfFile: false,
              patchLine: 9,
              ops: ' -+',
            },
            { contexts: [], oldLines: ['tail'], newLines: ['TAIL'], isEndOfFile: true, patchLine: 14, ops: '-+' },
          ],
        },
      ],
    });
  });

  it('lets the first chunk omit its @@ header and reads an empty line as empty context', () => {
    const parsed = parsePatch(patch('*** Update File: a.txt', ' one', '', '-two', '+2'));
    expect(parsed.hunks).toEqual([
      {
        kind: 'update',
        path: 'a.txt',
        movePath: null,
        patchLine: 2,
        chunks: [
          {
            contexts: [],
            oldLines: ['one', '', 'two'],
            newLines: ['one', '', '2'],
            isEndOfFile: false,
            patchLine: 3,
            ops: '  -+',
          },
        ],
      },
    ]);
  });

  it('accepts an add with no lines (an empty file) and a patch with no hunks', () => {
    expect(parsePatch(patch('*** Add File: empty.txt')).hunks).toEqual([
      { kind: 'add', path: 'empty.txt', contents: '', patchLine: 2 },
    ]);
    expect(parsePatch(patch()).hunks).toEqual([]);
  });

  it('reads a unified-diff range after @@ as no context (or the text after it as the context)', () => {
    const parsed = parsePatch(
      patch('*** Update File: a', '@@ -1,2 +1,2 @@', '-x', '+y', '@@ -9,1 +9,1 @@ function f() {', '-p', '+q'),
    );
    const chunks = parsed.hunks[0]?.kind === 'update' ? parsed.hunks[0].chunks : [];
    expect(chunks.map((c) => c.contexts)).toEqual([[], ['function f() {']]);
  });

  it('tolerates surrounding whitespace, CRLF line ends and blank lines between hunks', () => {
    const text =
      '\n\n  *** Begin Patch  \r\n*** Add File: a.txt\r\n+x\r\n\r\n   *** Delete File: b.txt   \r\n*** End Patch\r\n\n';
    expect(parsePatch(text).hunks).toEqual([
      { kind: 'add', path: 'a.txt', contents: 'x\n', patchLine: 4 },
      { kind: 'delete', path: 'b.txt', patchLine: 7 },
    ]);
  });

  it('strips a heredoc wrapper (<<EOF, <<\'EOF\', <<"EOF", other words)', () => {
    for (const opener of ['<<EOF', "<<'EOF'", '<<"EOF"', "<<'PATCH'"]) {
      const word = opener.replace(/[<'"]/g, '');
      const text = `${opener}\n*** Begin Patch\n*** Delete File: x\n*** End Patch\n${word}\n`;
      expect(parsePatch(text).hunks).toEqual([{ kind: 'delete', path: 'x', patchLine: 3 }]);
    }
  });

  it('ends a chunk at a line that is not a chunk line once it has lines, and blank lines before the next file', () => {
    const parsed = parsePatch(
      patch('*** Update File: a', '@@', '-x', '+y', '', '*** Update File: b', '@@', '-p', '+q'),
    );
    expect(parsed.hunks.map((h) => (h.kind === 'update' ? h.chunks.map((c) => c.oldLines) : []))).toEqual([
      [['x', '']],
      [['p']],
    ]);
  });
});

describe('parsePatch: errors use Codex wording', () => {
  it('requires the envelope', () => {
    expect(parseError('*** Add File: a\n+x\n*** End Patch').message).toBe(
      "invalid patch: The first line of the patch must be '*** Begin Patch'",
    );
    expect(parseError('').message).toBe("invalid patch: The first line of the patch must be '*** Begin Patch'");
    expect(parseError('*** Begin Patch\n*** Add File: a\n+x').message).toBe(
      "invalid patch: The last line of the patch must be '*** End Patch'",
    );
    expect(parseError("<<'EOF'\n*** Begin Patch\n*** Add File: a\n+x\nEOF").message).toBe(
      "invalid patch: The last line of the patch must be '*** End Patch'",
    );
  });

  it('rejects a bad hunk header, naming its line', () => {
    const error = parseError(patch('*** Add File: a', '+x', '*** Modify File: b'));
    expect(error.message).toBe(
      "invalid hunk at line 4, '*** Modify File: b' is not a valid hunk header. Valid hunk headers: " +
        "'*** Add File: {path}', '*** Delete File: {path}', '*** Update File: {path}'",
    );
    expect(error.line).toBe(4);
  });

  it('rejects an add line without a + (it ends the add and is then no header)', () => {
    expect(parseError(patch('*** Add File: a', '+x', 'y')).message).toMatch(
      /^invalid hunk at line 4, 'y' is not a valid hunk header/,
    );
  });

  it('rejects an empty update, a chunk without lines, and unexpected chunk lines', () => {
    expect(parseError(patch('*** Update File: a.txt')).message).toBe(
      "invalid hunk at line 2, Update file hunk for path 'a.txt' is empty",
    );
    expect(parseError(patch('*** Update File: a.txt', '*** Move to: b.txt')).message).toBe(
      "invalid hunk at line 2, Update file hunk for path 'a.txt' is empty",
    );
    expect(parseError(patch('*** Update File: a', '@@ ctx')).message).toBe(
      'invalid hunk at line 4, Update hunk does not contain any lines',
    );
    expect(parseError(patch('*** Update File: a', '@@', '*** End of File')).message).toBe(
      'invalid hunk at line 4, Update hunk does not contain any lines',
    );
    expect(parseError(patch('*** Update File: a', '@@', 'oops')).message).toBe(
      "invalid hunk at line 4, Unexpected line found in update hunk: 'oops'. Every line should start with ' ' " +
        "(context line), '+' (added line), or '-' (removed line)",
    );
  });

  it('requires @@ before every chunk after the first', () => {
    expect(parseError(patch('*** Update File: a', '@@', '-x', '+y', 'garbage')).message).toBe(
      "invalid hunk at line 6, Expected update hunk to start with a @@ context marker, got: 'garbage'",
    );
  });
});
