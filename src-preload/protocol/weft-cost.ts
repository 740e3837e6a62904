// Weft's cost of tokens (not in Codex's protocol): the price of a model per million tokens, from the user's
// `[model_prices."<model>"]` table or Weft's defaults for its built-in models, and what tokens cost at it.
// Money is in millionths of a US dollar (integers, as Codex's `estimatedUsageUsdMicros`): a price per
// million tokens times a number of tokens is a number of micro-dollars.
import { z } from 'zod';
import { lazySchema } from './lazy-schema';
import { WeftEnvironmentName } from './weft-environments';
import { TokenUsageBreakdown } from './common';

/**
 * USD per million tokens; `cachedInput` is what input tokens read from the cache cost instead, and
 * `cacheWriteInput` what input tokens written to the cache cost instead (absent: the same as `input`).
 */
export const WeftModelPrice = lazySchema(() =>
  z.object({
    input: z.number().nonnegative(),
    cachedInput: z.number().nonnegative(),
    cacheWriteInput: z.number().nonnegative().optional(),
    output: z.number().nonnegative(),
    /** `config`: the user's `[model_prices]`; `default`: Weft's price list for its built-in models. */
    source: z.enum(['config', 'default']),
  }),
);
export type WeftModelPrice = z.infer<typeof WeftModelPrice>;

/**
 * What some tokens cost. `usdMicros` counts only the tokens of models with a price; `unpricedModels` names
 * the models whose tokens have none (an "unknown price"): empty means `usdMicros` is the whole cost.
 */
export const WeftCost = lazySchema(() =>
  z.object({
    usdMicros: z.number().int().nonnegative(),
    unpricedModels: z.array(z.string()),
  }),
);
export type WeftCost = z.infer<typeof WeftCost>;

/** The tokens of one model and what they cost (`price` null: an unknown price). */
export const WeftModelUsage = lazySchema(() =>
  z.object({
    model: z.string(),
    usage: TokenUsageBreakdown,
    price: WeftModelPrice.nullable(),
    cost: WeftCost,
  }),
);
export type WeftModelUsage = z.infer<typeof WeftModelUsage>;

/** `thread/tokenUsage/updated`'s `weftCost`: the turn's tokens and cost so far, and the thread's by model. */
export const WeftTokenCost = lazySchema(() =>
  z.object({
    /** The model of the latest request, and its price (null: unknown). */
    model: z.string(),
    price: WeftModelPrice.nullable(),
    /**
     * The turn so far (every request of it; `tokenUsage.last` is only the latest one); null when the
     * notification follows no request (the one sent after `thread/resume`).
     */
    turn: z.object({ usage: TokenUsageBreakdown, cost: WeftCost }).nullable(),
    /** The whole thread (its tokens are `tokenUsage.total`), with each model's part. */
    thread: z.object({ cost: WeftCost, byModel: z.array(WeftModelUsage) }),
  }),
);
export type WeftTokenCost = z.infer<typeof WeftTokenCost>;

/** `weft/usage/daily`: the last `days` days (default 14, at most 366), today included, in the server's time zone. */
export const WeftUsageDailyParams = lazySchema(() =>
  z
    .object({
      days: z.number().int().min(1).max(366).nullish(),
      cwd: z.string().nullish(),
      /** Weft: on this environment (see `WeftEnvironmentName`). */
      weftEnvironment: WeftEnvironmentName,
    })
    .default({}),
);
export type WeftUsageDailyParams = z.infer<typeof WeftUsageDailyParams>;

export const WeftUsageDay = lazySchema(() =>
  z.object({
    /** `YYYY-MM-DD`, local to the server. */
    date: z.string(),
    usage: TokenUsageBreakdown,
    cost: WeftCost,
    byModel: z.array(WeftModelUsage),
    /** Threads that used tokens that day. */
    threads: z.number().int().nonnegative(),
  }),
);
export type WeftUsageDay = z.infer<typeof WeftUsageDay>;

/** Newest day first; days without tokens are left out. `total` is over every day listed. */
export const WeftUsageDailyResult = lazySchema(() =>
  z.object({
    days: z.array(WeftUsageDay),
    total: z.object({ usage: TokenUsageBreakdown, cost: WeftCost }),
    /** The time zone the days are cut in (IANA name). */
    timeZone: z.string(),
  }),
);
export type WeftUsageDailyResult = z.infer<typeof WeftUsageDailyResult>;
