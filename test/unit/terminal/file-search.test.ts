import { describe, expect, it } from 'vitest';
import fuzzysort from 'fuzzysort';
import { candidates, prepared, roughScore, splitScore } from '../../../src-main/terminal/file-search';

function indexOf(paths: string[]) {
  return prepared(paths, new Map());
}

describe('fuzzy file search candidates', () => {
  it('keeps the whole-word match among thousands of loose matches, and only paths fuzzysort can match', () => {
    const paths = Array.from({ length: 5000 }, (_, i) => `pkg${i}/a/p/a/r/s/e/r/x${i}.ts`);
    paths.splice(3217, 0, 'deep/down/Parser.ts', 'no/match/here.ts');
    const picked = candidates('parser', indexOf(paths));
    expect(picked.length).toBeLessThanOrEqual(256);
    expect(picked.map((p) => p.target)).toContain('deep/down/Parser.ts');
    expect(picked.map((p) => p.target)).not.toContain('no/match/here.ts');
    expect(fuzzysort.go('parser', picked, { limit: 1 })[0]?.target).toBe('deep/down/Parser.ts');
  });

  it('hands over every match when there are few, and needs each word of a query with spaces', () => {
    const index = indexOf(['src/main.ts', 'src/parser.ts', 'test/parser.test.ts', 'README.md']);
    expect(
      candidates('pars', index)
        .map((p) => p.target)
        .sort(),
    ).toEqual(['src/parser.ts', 'test/parser.test.ts']);
    expect(candidates('pars test', index).map((p) => p.target)).toEqual(['test/parser.test.ts']);
    expect(candidates('   ', index)).toEqual([]);
  });

  it('scores a path from its folder and name exactly as from the whole path', () => {
    // A small alphabet with slashes makes words cross folder ends, repeat, and fail often.
    let seed = 7;
    const next = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const text = (alphabet: string, max: number): string =>
      Array.from({ length: 1 + next(max) }, () => alphabet[next(alphabet.length)]).join('');
    let matched = 0;
    let crossed = 0;
    for (let k = 0; k < 20_000; k++) {
      const path = text('ab/.1', 14).replace(/^\/+|\/+$/g, '') || 'a';
      const word = text('ab/.1', 5);
      const expected = roughScore(word, path);
      expect([word, path, splitScore(word, path)]).toEqual([word, path, expected]);
      if (expected > -(2 ** 29)) matched++;
      const cut = path.lastIndexOf('/') + 1;
      if (path.includes(word) && !path.slice(0, cut).includes(word) && !path.slice(cut).includes(word)) crossed++;
    }
    // The cases that matter were there: matches, and whole words across the folder's end.
    expect(matched).toBeGreaterThan(1000);
    expect(crossed).toBeGreaterThan(10);
  });
});
