// Weft's own set-up requests (not in Codex's protocol): providers and their keys, remembered approval
// rules, and folder completion for "Open folder". Keys only ever travel towards the server: no result
// carries a key, only whether one is set and where it comes from.
import { z } from 'zod';
import { lazySchema } from './lazy-schema';
import { WeftEnvironmentName } from './weft-environments';

/** Where the key a provider would use comes from, in the order they are tried. */
export const ProviderKeySource = lazySchema(() => z.enum(['config', 'env', 'saved']));
export type ProviderKeySource = z.infer<typeof ProviderKeySource>;

/** `cwd`: resolve project config for that folder (default: the server's project). */
export const WeftProviderListParams = lazySchema(() =>
  z
    .object({
      cwd: z.string().nullish(),
      /** Weft: on this environment (see `WeftEnvironmentName`). */
      weftEnvironment: WeftEnvironmentName,
    })
    .default({}),
);
export type WeftProviderListParams = z.infer<typeof WeftProviderListParams>;

export const WeftProviderInfo = lazySchema(() =>
  z.object({
    id: z.string(),
    name: z.string(),
    /** Built into Weft (openai, ollama, lmstudio) rather than a `[model_providers.<id>]` table. */
    builtin: z.boolean(),
    baseUrl: z.string().nullable(),
    wireApi: z.enum(['responses', 'chat']),
    /** The environment variable read for the key; null when the provider takes none from the environment. */
    envKey: z.string().nullable(),
    /** Whether a turn cannot run without a key. */
    keyRequired: z.boolean(),
    /** The key the next turn would use: from `experimental_bearer_token`, the environment, or a saved key; null = none. */
    keySource: ProviderKeySource.nullable(),
    /** A key saved through `weft/auth/setKey` exists (it may be shadowed by config or env). */
    savedKey: z.boolean(),
  }),
);
export type WeftProviderInfo = z.infer<typeof WeftProviderInfo>;

export const WeftProviderListResult = lazySchema(() =>
  z.object({
    providers: z.array(WeftProviderInfo),
    /** `model_provider` of the effective config. */
    activeProviderId: z.string(),
    /** The user config file the settings are written to. */
    configFile: z.string(),
    /** Where saved keys are kept: the OS keychain, or `WEFT_HOME/auth.json` (mode 0600). */
    keyStorage: z.enum(['keychain', 'file']),
    /** Problems in the config files, one line each. */
    warnings: z.array(z.string()),
  }),
);
export type WeftProviderListResult = z.infer<typeof WeftProviderListResult>;

export const WeftAuthSetKeyParams = lazySchema(() =>
  z.object({
    providerId: z.string().min(1),
    apiKey: z
      .string()
      .transform((key) => key.trim())
      .refine((key) => key !== '', { message: 'the key is empty' })
      .refine((key) => !/\s/.test(key), { message: 'the key contains spaces or line breaks' }),
    /** Weft: saved on this environment, for its providers (see `WeftEnvironmentName`). */
    weftEnvironment: WeftEnvironmentName,
  }),
);
export type WeftAuthSetKeyParams = z.infer<typeof WeftAuthSetKeyParams>;

export const WeftAuthSetKeyResult = lazySchema(() =>
  z.object({ providerId: z.string(), keyStorage: z.enum(['keychain', 'file']) }),
);
export type WeftAuthSetKeyResult = z.infer<typeof WeftAuthSetKeyResult>;

export const WeftAuthClearKeyParams = lazySchema(() =>
  z.object({
    providerId: z.string().min(1),
    /** Weft: on this environment (see `WeftEnvironmentName`). */
    weftEnvironment: WeftEnvironmentName,
  }),
);
export type WeftAuthClearKeyParams = z.infer<typeof WeftAuthClearKeyParams>;

/** `removed`: false when no key was saved. */
export const WeftAuthClearKeyResult = lazySchema(() => z.object({ removed: z.boolean() }));
export type WeftAuthClearKeyResult = z.infer<typeof WeftAuthClearKeyResult>;

export const WeftRulesListParams = lazySchema(() =>
  z
    .object({
      /** Weft: on this environment (see `WeftEnvironmentName`). */
      weftEnvironment: WeftEnvironmentName,
    })
    .default({}),
);
export type WeftRulesListParams = z.infer<typeof WeftRulesListParams>;

/** A remembered approval rule with where it came from. */
export const WeftRuleInfo = lazySchema(() =>
  z.object({
    id: z.string(),
    /** argv prefix matched word by word. */
    pattern: z.array(z.string()),
    decision: z.enum(['allow', 'prompt', 'forbidden']),
    justification: z.string().nullable(),
    /** RFC 3339; null when a hand-written rule does not say. */
    createdAt: z.string().nullable(),
    /** The rules file and line holding it. */
    sourceFile: z.string(),
    line: z.number().int().positive(),
  }),
);
export type WeftRuleInfo = z.infer<typeof WeftRuleInfo>;

export const WeftRulesListResult = lazySchema(() =>
  z.object({ rules: z.array(WeftRuleInfo), warnings: z.array(z.string()) }),
);
export type WeftRulesListResult = z.infer<typeof WeftRulesListResult>;

export const WeftRulesRevokeParams = lazySchema(() =>
  z.object({
    id: z.string().min(1),
    /** Weft: on this environment (see `WeftEnvironmentName`). */
    weftEnvironment: WeftEnvironmentName,
  }),
);
export type WeftRulesRevokeParams = z.infer<typeof WeftRulesRevokeParams>;

/** `revoked`: null when no rule has that id (it was already gone). */
export const WeftRulesRevokeResult = lazySchema(() => z.object({ revoked: WeftRuleInfo.nullable() }));
export type WeftRulesRevokeResult = z.infer<typeof WeftRulesRevokeResult>;

/** `path`: what the person typed; `~` is the server's home folder. */
export const WeftFsCompleteParams = lazySchema(() =>
  z.object({
    path: z.string().max(4096),
    /** Weft: complete on this environment's disk (see `WeftEnvironmentName`); absent = this machine's. */
    weftEnvironment: WeftEnvironmentName,
  }),
);
export type WeftFsCompleteParams = z.infer<typeof WeftFsCompleteParams>;

export const WeftFsCompleteResult = lazySchema(() =>
  z.object({
    /** `path` made absolute (`~` expanded). */
    resolved: z.string(),
    /** What `resolved` is on disk. */
    kind: z.enum(['folder', 'file', 'missing', 'unreadable']),
    /** Folders whose path starts with `resolved` (sorted, at most 50), each ending without a slash. */
    completions: z.array(z.string()),
  }),
);
export type WeftFsCompleteResult = z.infer<typeof WeftFsCompleteResult>;
