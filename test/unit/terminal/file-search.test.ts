import { describe, expect, it } from 'vitest';
import fuzzysort from 'fuzzysort';
import { candidates, prepared } from '../../../src-main/terminal/file-search';

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
});
