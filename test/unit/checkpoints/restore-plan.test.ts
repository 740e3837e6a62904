import { describe, expect, it } from 'vitest';
import { changeSpans, planUndo } from '../../../src-main/checkpoints/restore-plan';
import type { CheckpointRecord, Entry } from '../../../src-main/checkpoints/types';

const file = (hash: string): Entry => ({ kind: 'file', mode: 0o644, size: 1, mtimeMs: 1, ino: 1, hash });

function record(turnId: string, paths: string[], background?: CheckpointRecord['background']): CheckpointRecord {
  return {
    v: 1,
    id: `r-${turnId}`,
    at: '2026-11-29T00:00:00.000Z',
    threadId: 't',
    turnId,
    callId: null,
    source: 'tool',
    root: '/w',
    changes: paths.map((path) => ({ path, before: null, after: file(`h-${path}`) })),
    notes: [],
    ...(background === undefined ? {} : { background }),
  };
}

describe('a restore plan and commands running in the background', () => {
  const records = [
    record('turn-1', ['started.txt']),
    record('turn-2', ['mine.txt', 'bg-1.txt'], [{ turnId: 'turn-1', command: 'writer' }]),
  ];
  const now = (path: string): Entry | null => file(`h-${path}`);

  it('names the command of an earlier turn, not undone, on every path changed while it ran', () => {
    const plan = planUndo(changeSpans(records, ['turn-2']), now);
    expect(plan.map((item) => [item.path, item.background])).toEqual([
      ['bg-1.txt', ['writer']],
      ['mine.txt', ['writer']],
    ]);
  });

  it('names nothing when that turn is undone too', () => {
    const plan = planUndo(changeSpans(records, ['turn-1', 'turn-2']), now);
    expect(plan.map((item) => [item.path, item.background])).toEqual([
      ['bg-1.txt', undefined],
      ['mine.txt', undefined],
      ['started.txt', undefined],
    ]);
  });
});
