import { z } from 'zod';
import { ErrorCodes } from '../../../src-preload/protocol';
import { loadConfig, userConfigFile, writeConfigValue } from '../../config';
import { keyFor } from '../../config/key-store';
import { redactConfig } from '../../config/redact';
import { knownModels, modelInfo } from '../../model/catalog';
import type { HandlerTable } from '../dispatcher';
import { RpcError } from '../rpc-error';
import { threadConfig } from '../thread-factory';
import type { HandlerContext } from './context';

type ServiceHandlers = Pick<HandlerTable, 'model/list' | 'config/read' | 'config/value/write'>;

export function serviceHandlers(ctx: HandlerContext): ServiceHandlers {
  const { environment } = ctx;
  return {
    'model/list': async () => {
      const { loaded, provider } = await threadConfig(environment, {}, environment.defaultCwd);
      const current = loaded.config.model;
      const key = await keyFor(provider, environment.keyStore).catch(() => null);
      const remote = await providerModels(provider.baseUrl, key?.key ?? null, provider.headers);
      // The provider's own list when it answers (local servers list what is installed), else ours.
      const ids = new Set([current, ...(remote ?? knownModels().map((m) => m.id))]);
      return {
        data: [...ids].map((id) => {
          const info = modelInfo(id);
          return { id, model: id, displayName: info.displayName, contextWindow: info.contextWindow, isDefault: id === current };
        }),
        nextCursor: null,
      };
    },
    'config/read': async (params) => {
      const loaded = await loadConfig({ weftHome: environment.weftHome, cwd: params.cwd ?? environment.defaultCwd, env: environment.env });
      const config = redactConfig(loaded.config);
      return {
        config: JSON.parse(JSON.stringify(config)) as Record<string, never>,
        origins: Object.fromEntries(loaded.origins),
        layers: params.includeLayers ? loaded.layers.map((l) => ({ source: l.source, file: l.file })) : null,
        weftProjectTrust: loaded.projectTrust,
      };
    },
    'config/value/write': async (params) => {
      try {
        const result = await writeConfigValue(params.filePath ?? userConfigFile(environment.weftHome), params.keyPath, params.value, {
          expectedVersion: params.expectedVersion ?? undefined,
          mergeStrategy: params.mergeStrategy ?? undefined,
          check: { weftHome: environment.weftHome, cwd: environment.defaultCwd, env: environment.env },
        });
        return { status: result.status, version: result.version, filePath: result.filePath, overriddenMetadata: result.overriddenMetadata };
      } catch (error) {
        throw new RpcError(ErrorCodes.InvalidParams, error instanceof Error ? error.message : String(error));
      }
    },
  };
}

/** Model ids from the provider's `GET /models`, or null when it does not answer within 2 s. */
async function providerModels(baseUrl: string, apiKey: string | null, headers: Record<string, string>): Promise<string[] | null> {
  try {
    const response = await fetch(`${baseUrl.replace(/\/$/, '')}/models`, {
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
