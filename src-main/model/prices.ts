// What tokens cost: the price table (the user's `[model_prices."<model>"]` over Weft's defaults for its
// built-in models) and the cost of a token breakdown at a price. Prices are US dollars per million tokens,
// so tokens × price is micro-dollars. Input tokens read from the cache are part of `inputTokens` and cost
// `cachedInput` instead of `input`, those written to it (`cacheWriteInputTokens`) cost `cacheWriteInput`
// (else `input`); reasoning tokens are part of `outputTokens` and cost what output costs.
import type { TokenUsageBreakdown, WeftCost, WeftModelPrice, WeftModelUsage } from '../../src-preload/protocol';
import type { WeftConfig } from '../config/schema';

type Price = Omit<WeftModelPrice, 'source'>;

/**
 * OpenAI's list prices of the built-in models (USD per million tokens: input, cached input, output) when
 * this table was written. Prices change and other providers charge otherwise: `[model_prices]` overrides.
 */
const DEFAULT_PRICES: Readonly<Record<string, Price>> = {
  'gpt-5.1-codex': { input: 1.25, cachedInput: 0.125, output: 10 },
  'gpt-5.1-codex-mini': { input: 0.25, cachedInput: 0.025, output: 2 },
  'gpt-5.1': { input: 1.25, cachedInput: 0.125, output: 10 },
  'gpt-5': { input: 1.25, cachedInput: 0.125, output: 10 },
  'gpt-5-codex': { input: 1.25, cachedInput: 0.125, output: 10 },
  'gpt-4.1': { input: 2, cachedInput: 0.5, output: 8 },
  o3: { input: 2, cachedInput: 0.5, output: 8 },
  'o4-mini': { input: 1.1, cachedInput: 0.275, output: 4.4 },
};

/** A model's price, or null for an unknown price. */
export type PriceTable = (model: string) => WeftModelPrice | null;

/** The price table of a config: its `[model_prices]` first, then the defaults. */
export function priceTable(config: Pick<WeftConfig, 'model_prices'>): PriceTable {
  const own = config.model_prices ?? {};
  return (model) => {
    const set = Object.hasOwn(own, model) ? own[model] : undefined;
    if (set !== undefined)
      return {
        input: set.input,
        cachedInput: set.cached_input ?? set.input,
        ...(set.cache_write_input === undefined ? {} : { cacheWriteInput: set.cache_write_input }),
        output: set.output,
        source: 'config',
      };
    const known = Object.hasOwn(DEFAULT_PRICES, model) ? DEFAULT_PRICES[model] : undefined;
    return known === undefined ? null : { ...known, source: 'default' };
  };
}

export const ZERO_USAGE: TokenUsageBreakdown = {
  totalTokens: 0,
  inputTokens: 0,
  cachedInputTokens: 0,
  outputTokens: 0,
  reasoningOutputTokens: 0,
};

export function addUsage(a: TokenUsageBreakdown, b: TokenUsageBreakdown): TokenUsageBreakdown {
  const cacheWrites = (a.cacheWriteInputTokens ?? 0) + (b.cacheWriteInputTokens ?? 0);
  return {
    totalTokens: a.totalTokens + b.totalTokens,
    inputTokens: a.inputTokens + b.inputTokens,
    cachedInputTokens: a.cachedInputTokens + b.cachedInputTokens,
    ...(cacheWrites > 0 ? { cacheWriteInputTokens: cacheWrites } : {}),
    outputTokens: a.outputTokens + b.outputTokens,
    reasoningOutputTokens: a.reasoningOutputTokens + b.reasoningOutputTokens,
  };
}

/** Micro-dollars of `usage` at `price` (cached and cache-written input never counted twice; never negative). */
function micros(usage: TokenUsageBreakdown, price: Price): number {
  const cached = Math.min(usage.cachedInputTokens, usage.inputTokens);
  const written = Math.min(usage.cacheWriteInputTokens ?? 0, usage.inputTokens - cached);
  const fresh = usage.inputTokens - cached - written;
  return Math.round(
    fresh * price.input +
      cached * price.cachedInput +
      written * (price.cacheWriteInput ?? price.input) +
      usage.outputTokens * price.output,
  );
}

/** What one model's tokens cost (an unknown price names the model, unless it used no tokens). */
export function costOf(model: string, usage: TokenUsageBreakdown, price: WeftModelPrice | null): WeftCost {
  if (price !== null) return { usdMicros: micros(usage, price), unpricedModels: [] };
  return { usdMicros: 0, unpricedModels: usage.totalTokens > 0 ? [model] : [] };
}

/** The sum of some costs (each unpriced model named once). */
export function sumCosts(costs: readonly WeftCost[]): WeftCost {
  const unpriced = new Set<string>();
  let usdMicros = 0;
  for (const cost of costs) {
    usdMicros += cost.usdMicros;
    for (const model of cost.unpricedModels) unpriced.add(model);
  }
  return { usdMicros, unpricedModels: [...unpriced].sort() };
}

/** Each model's tokens with its price and cost, most expensive first (then by name). */
export function modelUsages(byModel: ReadonlyMap<string, TokenUsageBreakdown>, prices: PriceTable): WeftModelUsage[] {
  return [...byModel]
    .map(([model, usage]) => {
      const price = prices(model);
      return { model, usage, price, cost: costOf(model, usage, price) };
    })
    .sort((a, b) => b.cost.usdMicros - a.cost.usdMicros || a.model.localeCompare(b.model));
}

/** The thread's cost from its tokens by model: the whole, and each model's part. */
export function threadCost(
  byModel: ReadonlyMap<string, TokenUsageBreakdown>,
  prices: PriceTable,
): { cost: WeftCost; byModel: WeftModelUsage[] } {
  const models = modelUsages(byModel, prices);
  return { cost: sumCosts(models.map((m) => m.cost)), byModel: models };
}
