// Tokens per day from rollouts (store/usage-days.ts), on Codex 0.169's own rollouts: a thread and its forks,
// each fork a chain reaching into its parent's lines, whose tokens count once.
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { localDay, usageByDay } from '../../../src-main/store/usage-days';

const HOME = resolve(__dirname, '../../fixtures/codex-0.169');
const MAIN = join(HOME, 'archived_sessions/rollout-2026-11-26T12-37-56-01a217dc-cc7e-7451-b903-e6862a6ba9a6.jsonl');
const FORK = join(HOME, 'sessions/2026/11/26/rollout-2026-11-26T12-38-09-01a217dd-01c0-7f90-beaa-0638c29d2e14.jsonl');
const FORK_OF_FORK = join(
  HOME,
  'sessions/2026/11/26/rollout-2026-11-26T12-38-13-01a217dd-1126-70b3-a253-76df2abe65e8.jsonl',
);

const tokens = (requests: number) => ({
  totalTokens: 110 * requests,
  inputTokens: 100 * requests,
  cachedInputTokens: 0,
  outputTokens: 10 * requests,
  reasoningOutputTokens: 0,
});

describe('usageByDay', () => {
  it('counts each request once: a fork adds only what it asked itself, not its copy of the parent', async () => {
    // The thread made 5 requests; each fork one more of its own (its running total starts at its parent's).
    const alone = await usageByDay([MAIN], 0, 'UTC');
    expect(alone.days).toEqual(new Map([['2026-11-26', new Map([['mock-model', tokens(5)]])]]));
    const all = await usageByDay([MAIN, FORK, FORK_OF_FORK], 0, 'UTC');
    expect(all).toEqual({
      days: new Map([['2026-11-26', new Map([['mock-model', tokens(7)]])]]),
      threadsByDay: new Map([['2026-11-26', 3]]),
      skipped: [],
    });
  });

  it('cuts days in the time zone asked for, and leaves out what came before the window', async () => {
    const east = await usageByDay([MAIN], 0, 'Pacific/Kiritimati');
    expect([...east.days.keys()]).toEqual(['2026-11-27']);
    // Only the last two requests (12:38:03.499 and 12:38:07.226) are at or after 12:38:03.3.
    const late = await usageByDay([MAIN], Date.parse('2026-11-26T12:38:03.300Z'), 'UTC');
    expect(late.days.get('2026-11-26')?.get('mock-model')).toEqual(tokens(2));
    const missing = await usageByDay([join(HOME, 'no-such-rollout.jsonl')], 0, 'UTC');
    expect(missing).toEqual({
      days: new Map(),
      threadsByDay: new Map(),
      skipped: [join(HOME, 'no-such-rollout.jsonl')],
    });
  });

  it('names a day as the calendar of the zone does', () => {
    expect(localDay(Date.parse('2026-11-26T23:30:00Z'), 'UTC')).toBe('2026-11-26');
    expect(localDay(Date.parse('2026-11-26T23:30:00Z'), 'Europe/Berlin')).toBe('2026-11-27');
  });
});
