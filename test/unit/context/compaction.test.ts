import { describe, expect, it } from 'vitest';
import type { ResponseItem } from '../../../src-preload/protocol';
import {
  autoCompactLimit,
  memoryFromHistory,
  mergeMemory,
  parseCompactionAnswer,
  recentUserMessages,
  renderMemory,
  replacementHistory,
  SUMMARY_PREFIX,
} from '../../../src-main/context/compaction';

const user = (text: string): ResponseItem => ({
  type: 'message',
  role: 'user',
  content: [{ type: 'input_text', text }],
});

describe('compaction pieces', () => {
  it('compacts at the lower of the configured limit and 90% of the window', () => {
    expect(autoCompactLimit(null, 100_000)).toBe(90_000);
    expect(autoCompactLimit(50_000, 100_000)).toBe(50_000);
    expect(autoCompactLimit(200_000, 100_000)).toBe(90_000);
    expect(autoCompactLimit(5_000, null)).toBe(5_000);
    expect(autoCompactLimit(null, null)).toBeNull();
  });

  it('keeps the newest real user messages within the budget, skipping context and summaries', () => {
    const history = [
      user('<environment_context>\n</environment_context>'),
      user('first ask'),
      user(`${SUMMARY_PREFIX}\n\nold summary`),
      user('x'.repeat(400)),
      user('latest ask'),
    ];
    expect(recentUserMessages(history, 1000)).toEqual(['first ask', 'x'.repeat(400), 'latest ask']);
    const cut = recentUserMessages(history, 50);
    expect(cut).toEqual([`${'x'.repeat(188)}\n[…cut to fit the compacted history]`, 'latest ask']);
  });

  it('splits the summary from new working-memory entries', () => {
    const answer =
      '## Goal\nShip it\nWORKING MEMORY\n{"decisions": ["use sqlite"], "failed": ["regex parser"], "files": ["src/a.ts"]}';
    expect(parseCompactionAnswer(answer)).toEqual({
      summary: '## Goal\nShip it',
      memory: { decisions: ['use sqlite'], failed: ['regex parser'], files: ['src/a.ts'] },
    });
    expect(parseCompactionAnswer('just a summary')).toEqual({
      summary: 'just a summary',
      memory: { decisions: [], failed: [], files: [] },
    });
    expect(parseCompactionAnswer('s\nWORKING MEMORY\nnot json').memory).toEqual({
      decisions: [],
      failed: [],
      files: [],
    });
  });

  it('keeps old memory verbatim and reads it back from a compacted history', () => {
    const first = mergeMemory(
      { decisions: [], failed: [], files: [] },
      { decisions: ['a'], failed: ['b'], files: ['c'] },
    );
    const second = mergeMemory(first, { decisions: ['a', 'd'], failed: [], files: ['e'] });
    expect(second).toEqual({ decisions: ['a', 'd'], failed: ['b'], files: ['c', 'e'] });
    const history = replacementHistory([user('ask')], 'summary text', second);
    expect(history).toHaveLength(3);
    expect(memoryFromHistory(history)).toEqual(second);
    expect(renderMemory({ decisions: [], failed: [], files: [] })).toBeNull();
  });
});
