import { join, sep } from 'node:path';
import { z } from 'zod';
import { ErrorCodes } from '../../../src-preload/protocol';
import { loadConfig, userConfigFile, writeConfigValue } from '../../config';
import { keyFor } from '../../config/key-store';
import { redactConfig } from '../../config/redact';
import { parseKeyPath } from '../../config/toml-keys';
import { discoverSkills } from '../../context/skills';
import { knownModels, modelInfo } from '../../model/catalog';
import { nodeFetch } from '../../model/node-fetch';
import type { HandlerTable } from '../dispatcher';
import { RpcError } from '../rpc-error';
import { checkKeyPathParts, resolveCwd, threadConfig } from '../thread-factory';
import type { HandlerContext } from './context';

type ServiceHandlers = Pick<
  HandlerTable,
  'model/list' | 'config/read' | 'config/value/write' | 'account/read' | 'skills/list'
>;

/** What reasoning models are offered; models without reasoning support get none (and `none` as default). */
const REASONING_OPTIONS = [
  { reasoningEffort: 'low', description: 'Answers quickly, thinks briefly' },
  { reasoningEffort: 'medium', description: 'Balances speed and depth' },
  { reasoningEffort: 'high', description: 'Thinks longest, for hard problems' },
];

export function serviceHandlers(ctx: HandlerContext): ServiceHandlers {
  const { environment } = ctx;
  return {
    'model/list': async (params) => {
      const cwd = resolveCwd(params.weftCwd, environment.defaultCwd);
      const { loaded, provider } = await threadConfig(environment, {}, cwd);
      const current = loaded.config.model;
      const key = await keyFor(provider, environment.keyStore).catch(() => null);
      const remote = await providerModels(provider.baseUrl, key?.key ?? null, provider.headers);
      // The provider's own list when it answers (local servers list what is installed), else ours.
      const ids = new Set([current, ...(remote ?? knownModels().map((m) => m.id))]);
      return {
        data: [...ids].map((id) => {
          const info = modelInfo(id);
          const known = knownModels().some((m) => m.id === id);
          return {
            id,
            model: id,
            displayName: info.displayName,
            description: known
              ? `${info.displayName}${info.contextWindow ? `, ${Math.round(info.contextWindow / 1000)}k context` : ''}`
              : `${id} from ${provider.name}`,
            hidden: false,
            contextWindow: info.contextWindow,
            supportedReasoningEfforts: info.supportsReasoning ? REASONING_OPTIONS : [],
            defaultReasoningEffort: info.supportsReasoning
              ? (loaded.config.model_reasoning_effort ?? 'medium')
              : 'none',
            isDefault: id === current,
          };
        }),
        nextCursor: null,
      };
    },
    'account/read': async (params) => {
      const cwd = resolveCwd(params.weftCwd, environment.defaultCwd);
      const { provider } = await threadConfig(environment, {}, cwd);
      const requiresOpenaiAuth = provider.id === 'openai' || provider.envKey === 'OPENAI_API_KEY';
      return {
        account: provider.envKey !== null && provider.apiKey !== null ? { type: 'apiKey' as const } : null,
        requiresOpenaiAuth,
      };
    },
    'skills/list': async (params) => {
      const cwds =
        params.cwds && params.cwds.length > 0 ? params.cwds : [resolveCwd(params.weftCwd, environment.defaultCwd)];
      const userRoot = join(environment.weftHome, 'skills');
      const data = [];
      for (const cwd of cwds) {
        // Each folder with its own config (its project's `project_root_markers`), not the server's `--cd`.
        const { loaded } = await threadConfig(environment, {}, resolveCwd(cwd, environment.defaultCwd));
        const found = await discoverSkills({
          cwd,
          weftHome: environment.weftHome,
          projectRootMarkers: loaded.config.project_root_markers ?? undefined,
        });
        data.push({
          cwd,
          skills: found.skills.map((skill) => ({
            ...skill,
            scope: skill.path.startsWith(`${userRoot}${sep}`) ? ('user' as const) : ('repo' as const),
            enabled: true,
          })),
          errors: found.problems,
        });
      }
      return { data };
    },
    'config/read': async (params) => {
      const loaded = await loadConfig({
        weftHome: environment.weftHome,
        cwd: params.cwd ?? environment.defaultCwd,
        env: environment.env,
      });
      const config = redactConfig(loaded.config);
      return {
        config: JSON.parse(JSON.stringify(config)) as Record<string, never>,
        origins: Object.fromEntries(loaded.origins),
        layers: params.includeLayers ? loaded.layers.map((l) => ({ source: l.source, file: l.file })) : null,
        weftProjectTrust: {
          root: loaded.projectTrust.root,
          trusted: loaded.projectTrust.trusted,
          skippedFiles: loaded.projectTrust.skippedFiles,
        },
      };
    },
    'config/value/write': async (params) => {
      checkKeyPathParts(parseKeyPath(params.keyPath) ?? [], 'params.keyPath');
      try {
        const result = await writeConfigValue(
          params.filePath ?? userConfigFile(environment.weftHome),
          params.keyPath,
          params.value,
          {
            expectedVersion: params.expectedVersion ?? undefined,
            mergeStrategy: params.mergeStrategy ?? undefined,
            check: { weftHome: environment.weftHome, cwd: environment.defaultCwd, env: environment.env },
          },
        );
        return {
          status: result.status,
          version: result.version,
          filePath: result.filePath,
          overriddenMetadata: result.overriddenMetadata,
        };
      } catch (error) {
        throw new RpcError(ErrorCodes.InvalidParams, error instanceof Error ? error.message : String(error));
      }
    },
  };
}

/** Model ids from the provider's `GET /models` (sent as the model client sends), or null when it does not answer within 2 s. */
async function providerModels(
  baseUrl: string,
  apiKey: string | null,
  headers: Record<string, string>,
): Promise<string[] | null> {
  try {
    const response = await nodeFetch()(`${baseUrl.replace(/\/$/, '')}/models`, {
      headers: { ...headers, ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
      signal: AbortSignal.timeout(2000),
    });
    if (!response.ok) return null;
    const body: unknown = await response.json();
    const parsed = z.object({ data: z.array(z.object({ id: z.string() })) }).safeParse(body);
    return parsed.success ? parsed.data.data.map((m) => m.id) : null;
  } catch {
    return null;
  }
}
