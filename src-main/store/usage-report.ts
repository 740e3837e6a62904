// `weft/usage/daily` and `weft usage`: the tokens and cost of the last days, from the rollouts of the threads
// the index says changed since (usage-days.ts), priced with the current price table.
import type { TokenUsageBreakdown, WeftUsageDailyResult } from '../../src-preload/protocol';
import { addUsage, modelUsages, sumCosts, ZERO_USAGE, type PriceTable } from '../model/prices';
import type { ThreadStore } from './thread-store';
import { localDay, usageByDay } from './usage-days';

export const DEFAULT_USAGE_DAYS = 14;

/** Unix ms of the start of the day `days - 1` days before `now`'s, in the server's time zone. */
export function windowStart(now: Date, days: number): number {
  const start = new Date(now.getFullYear(), now.getMonth(), now.getDate() - (days - 1));
  return start.getTime();
}

export interface DailyUsageOptions {
  days?: number;
  now?: Date;
  /** Told of rollouts that could not be read (they are left out). */
  onSkipped?: (paths: string[]) => void;
}

/** The tokens and cost per day of the last `days` days (today included), newest first. */
export async function dailyUsage(
  store: ThreadStore,
  prices: PriceTable,
  options: DailyUsageOptions = {},
): Promise<WeftUsageDailyResult> {
  const now = options.now ?? new Date();
  const since = windowStart(now, options.days ?? DEFAULT_USAGE_DAYS);
  const { days, threadsByDay, skipped } = await usageByDay(store.rolloutsUsedSince(since), since);
  if (skipped.length > 0) options.onSkipped?.(skipped);
  const today = localDay(now.getTime());
  const listed = [...days]
    .filter(([day]) => day <= today)
    .sort(([a], [b]) => b.localeCompare(a))
    .map(([date, models]) => {
      const byModel = modelUsages(models, prices);
      const usage = byModel.reduce<TokenUsageBreakdown>((sum, m) => addUsage(sum, m.usage), ZERO_USAGE);
      return { date, usage, cost: sumCosts(byModel.map((m) => m.cost)), byModel, threads: threadsByDay.get(date) ?? 0 };
    });
  return {
    days: listed,
    total: {
      usage: listed.reduce<TokenUsageBreakdown>((sum, d) => addUsage(sum, d.usage), ZERO_USAGE),
      cost: sumCosts(listed.map((d) => d.cost)),
    },
    timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
  };
}
