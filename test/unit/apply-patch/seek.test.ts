import { describe, expect, it } from 'vitest';
import { LineSeeker, seekSequence } from '../../../src-main/tools/apply-patch/seek';
import { TextLines, arrayLines } from '../../../src-main/tools/apply-patch/text';
import { prng } from './helpers';

describe('seekSequence', () => {
  const lines = ['alpha', 'beta  ', '  gamma  ', 'say \u201chi\u201d \u2014 it\u2019s\u00a0fine', 'beta', 'end'];

  it('pass 1: exact match, searching from the start position', () => {
    expect(seekSequence(lines, ['alpha', 'beta  '], 0, false)).toBe(0);
    expect(seekSequence(lines, ['end'], 2, false)).toBe(5);
    expect(seekSequence(lines, ['alpha'], 1, false)).toBe(-1);
  });

  it('prefers an exact match further on over a fuzzy match nearer', () => {
    // 'beta' matches line 1 ignoring trailing space, but line 4 exactly.
    expect(seekSequence(lines, ['beta'], 0, false)).toBe(4);
  });

  it('pass 2: ignores trailing whitespace', () => {
    expect(seekSequence(lines, ['alpha  ', 'beta'], 0, false)).toBe(0);
  });

  it('pass 3: ignores surrounding whitespace', () => {
    expect(seekSequence(lines, ['gamma'], 0, false)).toBe(2);
    expect(seekSequence(lines, ['\tbeta', ' gamma'], 0, false)).toBe(1);
  });

  it('pass 4: normalises typographic dashes, quotes and spaces', () => {
    expect(seekSequence(lines, ['say "hi" - it\'s fine'], 0, false)).toBe(3);
    expect(seekSequence(['a \u2212 b \u2010 c \u2011 d'], ['a - b - c - d'], 0, false)).toBe(0);
    expect(seekSequence(['x\u3000y\u2009z'], ['x y z'], 0, false)).toBe(0);
    // U+2001 is not among the normalised spaces.
    expect(seekSequence(['x\u2001y'], ['x y'], 0, false)).toBe(-1);
  });

  it('with eof, only matches at the very end', () => {
    expect(seekSequence(['x', 'y', 'x'], ['x'], 0, true)).toBe(2);
    expect(seekSequence(['x', 'y', 'z'], ['x'], 0, true)).toBe(-1);
    expect(seekSequence(['x', 'y', 'z '], ['z'], 0, true)).toBe(2);
  });

  it('an empty pattern matches at start; a longer pattern than the file never matches', () => {
    expect(seekSequence(lines, [], 3, false)).toBe(3);
    expect(seekSequence(['a'], ['a', 'b'], 0, false)).toBe(-1);
  });
});

describe('LineSeeker', () => {
  it('gives the same answers as seekSequence over arrays and over text (random files and patterns, seeded)', () => {
    const random = prng(20240611);
    // Short lines go through the line-by-line scan, long ones (some inside others) through the anchor search.
    const vocabulary = [
      'a',
      'a ',
      ' a',
      'b',
      '\u201cq\u201d',
      '"q"',
      '',
      'c\u00a0d',
      'c d',
      '}',
      'long',
      'long ',
      ' long',
      'longer',
      'x long',
      '\u2018long\u2019',
    ];
    const pick = (): string => vocabulary[Math.floor(random() * vocabulary.length)] ?? '';
    for (let round = 0; round < 200; round++) {
      const lines = Array.from({ length: 1 + Math.floor(random() * 40) }, pick);
      const eol = random() < 0.5 ? '\n' : '\r\n';
      const seekers = [new LineSeeker(arrayLines(lines)), new LineSeeker(new TextLines(lines.join(eol) + eol))];
      for (let query = 0; query < 20; query++) {
        const pattern = Array.from({ length: Math.floor(random() * 4) }, pick);
        const start = Math.floor(random() * (lines.length + 1));
        const eof = random() < 0.2;
        const expected = seekSequence(lines, pattern, start, eof);
        for (const seeker of seekers) {
          expect(seeker.seek(pattern, start, eof), JSON.stringify({ lines, pattern, start, eof })).toBe(expected);
        }
      }
    }
  });
});
