// `weft usage`: tokens and what they cost, per day, from the saved threads (the same numbers as Settings →
// Usage and `weft/usage/daily`).
import { parseArgs } from 'node:util';
import type { WeftCost, WeftUsageDailyResult } from '../../src-preload/protocol';
import { loadConfig, resolveWeftHome } from '../config';
import { ConfigError } from '../config/errors';
import { priceTable } from '../model/prices';
import { ThreadStore } from '../store';
import { DEFAULT_USAGE_DAYS, dailyUsage } from '../store/usage-report';
import { errorMessage } from '../util/errors';

const USAGE = `Usage: weft usage [--days N] [--json]

Tokens used per day (input, of which read from and written to the prompt cache; output, of which
reasoning) and what they cost at the prices of config.toml's [model_prices] (US dollars per million
tokens; Weft knows the list prices of its built-in models). Tokens of a model without a price are counted and marked "unknown price".

  --days N   The last N days, today included (default ${DEFAULT_USAGE_DAYS}, at most 366)
  --json     Print weft/usage/daily's result as JSON
`;

export async function runUsageCommand(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { days: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
    }));
  } catch (error) {
    process.stderr.write(`weft usage: ${errorMessage(error)}\n\n${USAGE}`);
    return 2;
  }
  if (values.help === true) {
    process.stdout.write(USAGE);
    return 0;
  }
  const days = values.days === undefined ? DEFAULT_USAGE_DAYS : Number(values.days);
  if (!Number.isInteger(days) || days < 1 || days > 366) {
    process.stderr.write(`weft usage: --days must be a whole number from 1 to 366, not "${values.days}"\n`);
    return 2;
  }
  const weftHome = resolveWeftHome(process.env);
  let config;
  try {
    ({ config } = await loadConfig({ weftHome, cwd: process.cwd(), env: process.env }));
  } catch (error) {
    process.stderr.write(`weft: ${error instanceof ConfigError ? error.message : errorMessage(error)}\n`);
    return 1;
  }
  const store = ThreadStore.open(weftHome, { onWarning: (m) => process.stderr.write(`weft: warning: ${m}\n`) });
  try {
    // Threads written by another process since the index last saw them are read first.
    await store.whenIndexed();
    const result = await dailyUsage(store, priceTable(config), {
      days,
      onSkipped: (paths) => process.stderr.write(`weft: warning: left out unreadable threads: ${paths.join(', ')}\n`),
    });
    process.stdout.write(values.json === true ? `${JSON.stringify(result, null, 2)}\n` : usageTable(result, days));
    return 0;
  } finally {
    await store.close();
  }
}

/** `$0.0123`, or with the models that have no price. */
export function formatCost(cost: WeftCost): string {
  const usd = `$${(cost.usdMicros / 1e6).toFixed(cost.usdMicros < 10_000 && cost.usdMicros > 0 ? 4 : 2)}`;
  if (cost.unpricedModels.length === 0) return usd;
  const unknown = `unknown price (${cost.unpricedModels.join(', ')})`;
  return cost.usdMicros === 0 ? unknown : `${usd} + ${unknown}`;
}

function usageTable(result: WeftUsageDailyResult, days: number): string {
  if (result.days.length === 0) return `No tokens used in the last ${days} day(s).\n`;
  const n = (v: number): string => v.toLocaleString('en-US');
  const rows = [
    ['day', 'input', 'cached', 'cache write', 'output', 'reasoning', 'cost'],
    ...result.days.map((d) => [
      d.date,
      n(d.usage.inputTokens),
      n(d.usage.cachedInputTokens),
      n(d.usage.cacheWriteInputTokens ?? 0),
      n(d.usage.outputTokens),
      n(d.usage.reasoningOutputTokens),
      formatCost(d.cost),
    ]),
    [
      'total',
      n(result.total.usage.inputTokens),
      n(result.total.usage.cachedInputTokens),
      n(result.total.usage.cacheWriteInputTokens ?? 0),
      n(result.total.usage.outputTokens),
      n(result.total.usage.reasoningOutputTokens),
      formatCost(result.total.cost),
    ],
  ];
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  const line = (r: string[]): string =>
    r
      .map((cell, i) => (i === 0 || i === r.length - 1 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return `${rows.map(line).join('\n')}\n(days in ${result.timeZone})\n`;
}
