// `hooks/list` (Codex's), `weft/hooks/trust` and `weft/hooks/setEnabled`: a client shows the person each
// configured hook (where it comes from, what it runs, whether it is trusted, its last run) and records
// their decision in the user's config.toml, for exactly the hook they saw.
import { ConfigError } from '../../config/errors';
import { hooksListEntry, hooksOf } from '../../config/hooks/list';
import { setHookEnabled, trustHooks } from '../../config/hooks/trust';
import { lastRunOf } from '../../core/hooks/last-runs';
import type { HandlerTable } from '../dispatcher';
import { invalidParams, invalidRequest } from '../rpc-error';
import { resolveCwd } from '../thread-factory';
import type { HandlerContext } from './context';

type HooksHandlers = Pick<HandlerTable, 'hooks/list' | 'weft/hooks/trust' | 'weft/hooks/setEnabled'>;

export function hooksHandlers(ctx: HandlerContext): HooksHandlers {
  const { environment } = ctx;
  const found = async (cwd: string) => {
    try {
      return await hooksOf({ weftHome: environment.weftHome, cwd, env: environment.env });
    } catch (error) {
      throw invalidParams(error instanceof Error ? error.message : String(error));
    }
  };
  const recorded = async (write: () => Promise<unknown>): Promise<void> => {
    try {
      await write();
    } catch (error) {
      if (error instanceof ConfigError) throw invalidRequest(error.message);
      throw error;
    }
  };
  return {
    'hooks/list': async (params) => {
      const loaded = params.threadId ? ctx.manager.get(params.threadId) : undefined;
      const asked = params.cwds ?? [];
      const cwds =
        asked.length > 0
          ? asked.map((c) => resolveCwd(c, environment.defaultCwd))
          : [loaded?.session.currentSettings.cwd ?? environment.defaultCwd];
      const data = [];
      for (const cwd of cwds) {
        const entry = hooksListEntry(cwd, await found(cwd));
        data.push({ ...entry, hooks: entry.hooks.map((h) => ({ ...h, weftLastRun: lastRunOf(h.key) })) });
      }
      return { data };
    },
    'weft/hooks/trust': async (params) => {
      const cwd = resolveCwd(params.cwd, environment.defaultCwd);
      const current = await found(cwd);
      let trusted: string[] = [];
      await recorded(async () => {
        trusted = await trustHooks(environment.weftHome, current.hooks, params.hooks);
      });
      return { trusted };
    },
    'weft/hooks/setEnabled': async (params) => {
      await recorded(() => setHookEnabled(environment.weftHome, params.key, params.enabled));
      return {};
    },
  };
}
