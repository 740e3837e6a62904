// Params and results of the requests not tied to a thread: models, config, files.
import { z } from 'zod';
import { JsonValue, ReasoningEffort } from './common';

/** All optional; omitted params mean `{}`. `includeHidden`: also list models hidden from the picker. */
export const ModelListParams = z
  .object({
    cursor: z.string().nullish(),
    limit: z.number().int().nonnegative().nullish(),
    includeHidden: z.boolean().nullish(),
  })
  .default({});
export type ModelListParams = z.infer<typeof ModelListParams>;

export const ReasoningEffortOption = z.object({
  reasoningEffort: ReasoningEffort,
  description: z.string(),
});
export type ReasoningEffortOption = z.infer<typeof ReasoningEffortOption>;

/**
 * A model the user can pick. `id` is what `model` params take; `model` is the provider's model name when
 * it differs; `contextWindow` is in tokens, null/absent when unknown.
 */
export const ModelInfo = z.object({
  id: z.string(),
  model: z.string().optional(),
  displayName: z.string(),
  description: z.string().optional(),
  contextWindow: z.number().int().positive().nullish(),
  supportedReasoningEfforts: z.array(ReasoningEffortOption).optional(),
  defaultReasoningEffort: ReasoningEffort.nullish(),
  isDefault: z.boolean().optional(),
});
export type ModelInfo = z.infer<typeof ModelInfo>;

export const ModelListResult = z.object({
  data: z.array(ModelInfo),
  nextCursor: z.string().nullish(),
});
export type ModelListResult = z.infer<typeof ModelListResult>;

/** All optional. `cwd`: resolve project config for that folder; `includeLayers`: also return each layer. */
export const ConfigReadParams = z
  .object({
    includeLayers: z.boolean().nullish(),
    cwd: z.string().nullish(),
  })
  .default({});
export type ConfigReadParams = z.infer<typeof ConfigReadParams>;

/**
 * The effective config as TOML-shaped JSON, secrets redacted. `origins` maps a dotted key path to where
 * its value came from; `layers` lists the layers (only with `includeLayers`).
 */
export const ConfigReadResult = z.object({
  config: z.record(z.string(), JsonValue),
  origins: z.record(z.string(), JsonValue).optional(),
  layers: z.array(JsonValue).nullish(),
  /** Weft: the project root of `cwd` and whether its `.weft/config.toml` files apply (null = never decided). */
  weftProjectTrust: z.object({ root: z.string(), trusted: z.boolean().nullable(), skippedFiles: z.array(z.string()) }).optional(),
});
export type ConfigReadResult = z.infer<typeof ConfigReadResult>;

export const MergeStrategy = z.enum(['replace', 'upsert']);
export type MergeStrategy = z.infer<typeof MergeStrategy>;

/**
 * Set one key of the user config.toml, keeping the rest of the file. `keyPath` is dotted
 * (`"model"`, `"sandbox_workspace_write.network_access"`). `mergeStrategy` omitted = replace; `upsert`
 * merges a table value into the existing table. `expectedVersion`: fail if the file changed since that
 * version was read.
 */
export const ConfigValueWriteParams = z.object({
  keyPath: z.string().min(1),
  value: JsonValue,
  mergeStrategy: MergeStrategy.nullish(),
  filePath: z.string().nullish(),
  expectedVersion: z.string().nullish(),
});
export type ConfigValueWriteParams = z.infer<typeof ConfigValueWriteParams>;

/** `okOverridden`: written, but a higher-precedence layer still masks the value (see `overriddenMetadata`). */
export const ConfigWriteStatus = z.enum(['ok', 'okOverridden']);
export type ConfigWriteStatus = z.infer<typeof ConfigWriteStatus>;

export const ConfigValueWriteResult = z.object({
  status: ConfigWriteStatus,
  version: z.string(),
  filePath: z.string(),
  overriddenMetadata: z.looseObject({ message: z.string() }).nullish(),
});
export type ConfigValueWriteResult = z.infer<typeof ConfigValueWriteResult>;

/** An absolute path: `/…` on Unix, `C:\…` or `\\server\…` on Windows. */
const AbsolutePath = z
  .string()
  .refine((path) => /^(?:\/|[A-Za-z]:[\\/]|\\\\)/.test(path), { message: 'must be an absolute path' });

export const FsReadFileParams = z.object({ path: AbsolutePath });
export type FsReadFileParams = z.infer<typeof FsReadFileParams>;

/** The file's bytes, base64-encoded. */
export const FsReadFileResult = z.object({ dataBase64: z.string() });
export type FsReadFileResult = z.infer<typeof FsReadFileResult>;
