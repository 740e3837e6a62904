// Params and results of the requests not tied to a thread: models, config, files.
import { z } from 'zod';
import { lazySchema } from './lazy-schema';
import { WeftEnvironmentName } from './weft-environments';
import { JsonValue, ReasoningEffortValue } from './common';

/**
 * All optional; omitted params mean `{}`. `includeHidden`: also list models hidden from the picker.
 * `weftCwd` (Weft's): the project whose config says the default model (absent = the server's own project).
 */
export const ModelListParams = lazySchema(() =>
  z
    .object({
      cursor: z.string().nullish(),
      limit: z.number().int().nonnegative().nullish(),
      includeHidden: z.boolean().nullish(),
      weftCwd: z.string().nullish(),
      /** Weft: the models of this environment (its config, for `weftCwd` there); see `WeftEnvironmentName`. */
      weftEnvironment: WeftEnvironmentName,
    })
    .default({}),
);
export type ModelListParams = z.infer<typeof ModelListParams>;

export const ReasoningEffortOption = lazySchema(() =>
  z.object({
    reasoningEffort: ReasoningEffortValue,
    description: z.string(),
  }),
);
export type ReasoningEffortOption = z.infer<typeof ReasoningEffortOption>;

/**
 * A model the user can pick. `id` is what `model` params take; `model` is the provider's model name;
 * `hidden`: left out of pickers (listed only with `includeHidden`); `supportedReasoningEfforts` empty and
 * `defaultReasoningEffort` `none` for models without reasoning; `contextWindow` is in tokens, null/absent
 * when unknown (Weft's addition).
 */
export const ModelInfo = lazySchema(() =>
  z.object({
    id: z.string(),
    model: z.string(),
    displayName: z.string(),
    description: z.string(),
    hidden: z.boolean(),
    contextWindow: z.number().int().positive().nullish(),
    supportedReasoningEfforts: z.array(ReasoningEffortOption),
    defaultReasoningEffort: ReasoningEffortValue,
    isDefault: z.boolean(),
  }),
);
export type ModelInfo = z.infer<typeof ModelInfo>;

export const ModelListResult = lazySchema(() =>
  z.object({
    data: z.array(ModelInfo),
    nextCursor: z.string().nullish(),
  }),
);
export type ModelListResult = z.infer<typeof ModelListResult>;

/** All optional. `cwd`: resolve project config for that folder; `includeLayers`: also return each layer. */
export const ConfigReadParams = lazySchema(() =>
  z
    .object({
      includeLayers: z.boolean().nullish(),
      cwd: z.string().nullish(),
      /** Weft: the config of this environment (for `cwd` there); see `WeftEnvironmentName`. */
      weftEnvironment: WeftEnvironmentName,
    })
    .default({}),
);
export type ConfigReadParams = z.infer<typeof ConfigReadParams>;

/**
 * The effective config as TOML-shaped JSON, secrets redacted. `origins` maps a dotted key path to where
 * its value came from; `layers` lists the layers (only with `includeLayers`).
 */
export const ConfigReadResult = lazySchema(() =>
  z.object({
    config: z.record(z.string(), JsonValue),
    origins: z.record(z.string(), JsonValue).optional(),
    layers: z.array(JsonValue).nullish(),
    /**
     * Weft: the project root of `cwd`, whether it is trusted (null = never decided), and the project config
     * files that did not apply (project not trusted, or new or changed since it was: `weft/projectConfig/list` says which).
     */
    weftProjectTrust: z
      .object({ root: z.string(), trusted: z.boolean().nullable(), skippedFiles: z.array(z.string()) })
      .optional(),
  }),
);
export type ConfigReadResult = z.infer<typeof ConfigReadResult>;

export const MergeStrategy = lazySchema(() => z.enum(['replace', 'upsert']));
export type MergeStrategy = z.infer<typeof MergeStrategy>;

/**
 * Set one key of the user config.toml, keeping the rest of the file. `keyPath` is dotted
 * (`"model"`, `"sandbox_workspace_write.network_access"`). `mergeStrategy` omitted = replace; `upsert`
 * merges a table value into the existing table. `expectedVersion`: fail if the file changed since that
 * version was read.
 */
export const ConfigValueWriteParams = lazySchema(() =>
  z.object({
    keyPath: z.string().min(1),
    value: JsonValue,
    mergeStrategy: MergeStrategy.nullish(),
    filePath: z.string().nullish(),
    expectedVersion: z.string().nullish(),
    /** Weft: the user config.toml of this environment (see `WeftEnvironmentName`). */
    weftEnvironment: WeftEnvironmentName,
  }),
);
export type ConfigValueWriteParams = z.infer<typeof ConfigValueWriteParams>;

/** `okOverridden`: written, but a higher-precedence layer still masks the value (see `overriddenMetadata`). */
export const ConfigWriteStatus = lazySchema(() => z.enum(['ok', 'okOverridden']));
export type ConfigWriteStatus = z.infer<typeof ConfigWriteStatus>;

export const ConfigValueWriteResult = lazySchema(() =>
  z.object({
    status: ConfigWriteStatus,
    version: z.string(),
    filePath: z.string(),
    overriddenMetadata: z.looseObject({ message: z.string() }).nullish(),
  }),
);
export type ConfigValueWriteResult = z.infer<typeof ConfigValueWriteResult>;

/** An absolute path: `/…` on Unix, `C:\…` or `\\server\…` on Windows. */
const AbsolutePath = lazySchema(() =>
  z.string().refine((path) => /^(?:\/|[A-Za-z]:[\\/]|\\\\)/.test(path), { message: 'must be an absolute path' }),
);

export const FsReadFileParams = lazySchema(() => z.object({ path: AbsolutePath }));
export type FsReadFileParams = z.infer<typeof FsReadFileParams>;

/** The file's bytes, base64-encoded. */
export const FsReadFileResult = lazySchema(() => z.object({ dataBase64: z.string() }));
export type FsReadFileResult = z.infer<typeof FsReadFileResult>;

/**
 * `refreshToken` is accepted and ignored: Weft's accounts are API keys. `weftCwd` (Weft's): the project
 * whose config says the provider (absent = the server's own project).
 */
export const AccountReadParams = lazySchema(() =>
  z.object({ refreshToken: z.boolean().nullish(), weftCwd: z.string().nullish() }).default({}),
);
export type AccountReadParams = z.infer<typeof AccountReadParams>;

/** How Weft reaches the model: always an API key (the chatgpt, Bedrock and Vertex kinds are Codex's). */
export const Account = lazySchema(() => z.object({ type: z.literal('apiKey') }));
export type Account = z.infer<typeof Account>;

/**
 * `account` null when the configured provider needs a key and has none (or needs none);
 * `requiresOpenaiAuth`: the provider authenticates like OpenAI.
 */
export const AccountReadResult = lazySchema(() =>
  z.object({
    account: Account.nullable(),
    requiresOpenaiAuth: z.boolean(),
  }),
);
export type AccountReadResult = z.infer<typeof AccountReadResult>;

/** `cwds` omitted or empty = the server's working folder. `forceReload` is accepted (Weft always scans). */
export const SkillsListParams = lazySchema(() =>
  z
    .object({
      cwds: z.array(z.string()).nullish(),
      forceReload: z.boolean().nullish(),
      /** Weft's: the folder listed when `cwds` is empty (absent = the server's project). */
      weftCwd: z.string().nullish(),
    })
    .default({}),
);
export type SkillsListParams = z.infer<typeof SkillsListParams>;

/** `user`: from WEFT_HOME; `repo`: from the project. */
export const SkillScope = lazySchema(() => z.enum(['user', 'repo', 'system', 'admin']));
export type SkillScope = z.infer<typeof SkillScope>;

/** A skill the model is told about; `path` is its SKILL.md. */
export const SkillMetadata = lazySchema(() =>
  z.object({
    name: z.string(),
    description: z.string(),
    path: z.string(),
    scope: SkillScope,
    enabled: z.boolean(),
  }),
);
export type SkillMetadata = z.infer<typeof SkillMetadata>;

export const SkillErrorInfo = lazySchema(() => z.object({ path: z.string(), message: z.string() }));
export type SkillErrorInfo = z.infer<typeof SkillErrorInfo>;

/** The skills found for one folder, and the SKILL.md files that could not be read. */
export const SkillsListEntry = lazySchema(() =>
  z.object({
    cwd: z.string(),
    skills: z.array(SkillMetadata),
    errors: z.array(SkillErrorInfo),
  }),
);
export type SkillsListEntry = z.infer<typeof SkillsListEntry>;

export const SkillsListResult = lazySchema(() => z.object({ data: z.array(SkillsListEntry) }));
export type SkillsListResult = z.infer<typeof SkillsListResult>;
