import { ErrorCodes } from '../../../src-preload/protocol';
import { loadConfig } from '../../config';
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
      const { loaded } = await threadConfig(environment, {}, environment.defaultCwd);
      const current = loaded.config.model;
      const ids = new Set([current, ...knownModels().map((m) => m.id)]);
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
      };
    },
    'config/value/write': async () => {
      throw new RpcError(ErrorCodes.InternalError, 'writing config.toml from a client is not available in this version of Weft yet; edit the file directly');
    },
  };
}
