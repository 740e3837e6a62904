import { describe, expect, it } from 'vitest';
import { approxTokenCount, formatExecOutput, truncateMiddle, truncateRetained } from '../../../src-main/tools/exec';

describe('formatExecOutput', () => {
  it('formats an exited process like Codex', () => {
    expect(
      formatExecOutput({
        chunkId: 'a1b2c3',
        wallTimeMs: 1234.56,
        exitCode: 0,
        sessionId: null,
        originalTokenCount: null,
        body: 'hi\n',
      }),
    ).toBe('Chunk ID: a1b2c3\nWall time: 1.2346 seconds\nProcess exited with code 0\nOutput:\nhi\n');
  });

  it('formats a running session with a truncated body', () => {
    expect(
      formatExecOutput({
        chunkId: 'ffffff',
        wallTimeMs: 250,
        exitCode: null,
        sessionId: 1003,
        originalTokenCount: 42,
        body: 'x',
      }),
    ).toBe(
      'Chunk ID: ffffff\nWall time: 0.2500 seconds\nProcess running with session ID 1003\nOriginal token count: 42\nOutput:\nx',
    );
  });

  it('leaves out an empty chunk id', () => {
    expect(
      formatExecOutput({
        chunkId: '',
        wallTimeMs: 0,
        exitCode: 1,
        sessionId: null,
        originalTokenCount: null,
        body: '',
      }),
    ).toBe('Wall time: 0.0000 seconds\nProcess exited with code 1\nOutput:\n');
  });
});

describe('approxTokenCount', () => {
  it('is UTF-8 bytes / 4 rounded up', () => {
    expect([approxTokenCount(''), approxTokenCount('abcd'), approxTokenCount('abcde'), approxTokenCount('€')]).toEqual([
      0, 1, 2, 1,
    ]);
  });
});

describe('truncateMiddle', () => {
  it('returns text within the budget unchanged', () => {
    expect(truncateMiddle('12345678', 2)).toEqual({ text: '12345678', truncated: false, originalTokenCount: 2 });
  });

  it('keeps half the byte budget from each end with the marker on its own line', () => {
    const text = 'a'.repeat(100) + 'b'.repeat(100);
    // budget 10 tokens = 40 bytes: 20 head + 20 tail, 160 bytes removed = 40 tokens.
    expect(truncateMiddle(text, 10)).toEqual({
      text: `${'a'.repeat(20)}\n…40 tokens truncated…\n${'b'.repeat(20)}`,
      truncated: true,
      originalTokenCount: 50,
    });
  });

  it('does not add blank lines when the cuts fall next to newlines', () => {
    const lines = Array.from({ length: 100 }, (_, i) => `line ${String(i).padStart(3, '0')}\n`).join(''); // 9 bytes each
    // 9 tokens = 36 bytes: exactly two lines from each end; 864 bytes = 216 tokens removed.
    expect(truncateMiddle(lines, 9).text).toBe('line 000\nline 001\n…216 tokens truncated…\nline 098\nline 099\n');
  });

  it('never splits a multi-byte character and counts the removed bytes', () => {
    const text = '€'.repeat(50); // 150 bytes
    const result = truncateMiddle(text, 2); // 8 bytes: 4 head → one €, 4 tail → one €
    expect(result).toEqual({ text: '€\n…36 tokens truncated…\n€', truncated: true, originalTokenCount: 38 });
    expect(result.text).not.toContain('\uFFFD');
  });
});

describe('truncateRetained', () => {
  it('marks output whose middle was dropped even when what is left fits the budget', () => {
    expect(truncateRetained({ head: 'HEAD\n', omittedBytes: 1000, tail: 'TAIL\n' }, 10_000)).toEqual({
      text: 'HEAD\n…250 tokens truncated…\nTAIL\n',
      truncated: true,
      originalTokenCount: 253,
    });
  });

  it('is truncateMiddle when nothing was dropped', () => {
    expect(truncateRetained({ head: 'ab', omittedBytes: 0, tail: 'cd' }, 1)).toEqual(truncateMiddle('abcd', 1));
  });
});
