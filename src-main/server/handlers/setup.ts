// Weft's set-up requests: providers and their keys, remembered approval rules, folder completion.
import { readdir, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import type { WeftRuleInfo } from '../../../src-preload/protocol';
import { loadConfig, userConfigFile } from '../../config';
import { checkProviderId, keyFor } from '../../config/key-store';
import { BUILTIN_PROVIDER_IDS, BUILTIN_PROVIDERS, resolveProvider } from '../../config/providers';
import type { Rule } from '../../safety/approvals/rules';
import type { HandlerTable } from '../dispatcher';
import { invalidParams } from '../rpc-error';
import type { HandlerContext } from './context';

type SetupHandlers = Pick<
  HandlerTable,
  | 'weft/provider/list'
  | 'weft/auth/setKey'
  | 'weft/auth/clearKey'
  | 'weft/rules/list'
  | 'weft/rules/revoke'
  | 'weft/fs/complete'
  | 'weft/environment/list'
>;

const MAX_COMPLETIONS = 50;

function ruleInfo(rule: Rule): WeftRuleInfo {
  return {
    id: rule.id,
    pattern: rule.pattern,
    decision: rule.decision,
    justification: rule.justification ?? null,
    createdAt: rule.createdAt,
    sourceFile: rule.sourceFile,
    line: rule.line,
  };
}

export function setupHandlers(ctx: HandlerContext): SetupHandlers {
  const { environment } = ctx;
  const keys = environment.keyStore;

  const load = async (cwd: string | null | undefined) => {
    try {
      return await loadConfig({
        weftHome: environment.weftHome,
        cwd: cwd ?? environment.defaultCwd,
        env: environment.env,
      });
    } catch (error) {
      throw invalidParams(error instanceof Error ? error.message : String(error));
    }
  };

  return {
    'weft/provider/list': async (params) => {
      const loaded = await load(params.cwd);
      const { config } = loaded;
      const saved = new Set(await keys.list().catch(() => []));
      const ids = [
        ...BUILTIN_PROVIDER_IDS,
        ...Object.keys(config.model_providers).filter((id) => !BUILTIN_PROVIDER_IDS.includes(id)),
      ];
      const providers = await Promise.all(
        ids.map(async (id) => {
          const entry = BUILTIN_PROVIDERS[id] ?? config.model_providers[id];
          try {
            const provider = resolveProvider({ ...config, model_provider: id }, environment.env);
            const found = await keyFor(provider, keys).catch(() => null);
            return {
              id,
              name: provider.name,
              builtin: id in BUILTIN_PROVIDERS,
              baseUrl: provider.baseUrl,
              wireApi: provider.wireApi,
              envKey: provider.envKey,
              keyRequired: provider.envKey !== null,
              keySource: found?.source ?? null,
              savedKey: saved.has(id),
            };
          } catch {
            // A provider table without a base_url: listed so it can be fixed, never used as is.
            return {
              id,
              name: entry?.name ?? id,
              builtin: id in BUILTIN_PROVIDERS,
              baseUrl: null,
              wireApi: entry?.wire_api ?? 'responses',
              envKey: entry?.env_key ?? null,
              keyRequired: entry?.env_key !== undefined,
              keySource: null,
              savedKey: saved.has(id),
            };
          }
        }),
      );
      return {
        providers,
        activeProviderId: config.model_provider,
        configFile: userConfigFile(environment.weftHome),
        keyStorage: keys.kind,
        warnings: loaded.warnings,
      };
    },

    'weft/auth/setKey': async (params) => {
      const { config } = await load(null);
      if (!(params.providerId in BUILTIN_PROVIDERS) && config.model_providers[params.providerId] === undefined) {
        throw invalidParams(
          `there is no provider "${params.providerId}"; add a [model_providers.${params.providerId}] table to ${userConfigFile(environment.weftHome)} first`,
        );
      }
      try {
        checkProviderId(params.providerId);
        await keys.set(params.providerId, params.apiKey);
      } catch (error) {
        throw invalidParams(error instanceof Error ? error.message : String(error));
      }
      environment.log(`weft: saved an API key for provider "${params.providerId}" (${keys.kind})`);
      return { providerId: params.providerId, keyStorage: keys.kind };
    },

    'weft/auth/clearKey': async (params) => {
      try {
        return { removed: await keys.clear(params.providerId) };
      } catch (error) {
        throw invalidParams(error instanceof Error ? error.message : String(error));
      }
    },

    'weft/rules/list': async () => {
      // Re-read: `weft rules` or an editor may have changed the files since the server started.
      const warnings = await environment.rules.load();
      return { rules: environment.rules.list().map(ruleInfo), warnings: [...warnings] };
    },

    'weft/rules/revoke': async (params) => {
      try {
        const revoked = await environment.rules.revoke(params.id);
        return { revoked: revoked === null ? null : ruleInfo(revoked) };
      } catch (error) {
        throw invalidParams(error instanceof Error ? error.message : String(error));
      }
    },

    // The environments of config.toml as the host's own folder reads it (the `--env` of every face).
    'weft/environment/list': async () => {
      const { config } = await load(null);
      const data = Object.entries(config.environments ?? {})
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([name, entry]) => ({
          name,
          kind: entry.command === undefined ? ('ssh' as const) : ('command' as const),
          destination: entry.command === undefined ? (entry.ssh ?? null) : null,
        }));
      return { data };
    },

    'weft/fs/complete': async (params) => {
      const typed = params.path.trim();
      const home = environment.env['HOME'] ?? homedir();
      const expanded = typed === '~' ? home : typed.startsWith('~/') ? join(home, typed.slice(2)) : typed;
      const absolute =
        expanded === ''
          ? environment.defaultCwd
          : isAbsolute(expanded)
            ? expanded
            : resolve(environment.defaultCwd, expanded);
      const resolved = absolute.length > 1 && absolute.endsWith(sep) ? absolute.slice(0, -1) : absolute;
      const info = await stat(resolved).catch((error: unknown) =>
        error instanceof Error && 'code' in error && error.code === 'ENOENT' ? null : undefined,
      );
      const kind =
        info === undefined ? 'unreadable' : info === null ? 'missing' : info.isDirectory() ? 'folder' : 'file';
      // "/home/me/pro" completes in /home/me; "/home/me/" (typed with the slash) lists inside it.
      const listIn = expanded.endsWith('/') && kind === 'folder' ? resolved : dirname(resolved);
      const prefix = expanded.endsWith('/') && kind === 'folder' ? '' : basename(resolved);
      let completions: string[] = [];
      try {
        const entries = await readdir(listIn, { withFileTypes: true });
        completions = entries
          .filter(
            (e) => e.isDirectory() && e.name.startsWith(prefix) && (prefix.startsWith('.') || !e.name.startsWith('.')),
          )
          .map((e) => join(listIn, e.name))
          .sort()
          .slice(0, MAX_COMPLETIONS);
      } catch {
        // An unreadable or missing parent: nothing to offer.
      }
      return { resolved, kind, completions };
    },
  };
}
