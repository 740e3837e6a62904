// Installing this Weft on a configured environment from a client (the app's "Install Weft … on NAME"):
// `faces/remote/install.ts` does it; the environment's `weft` (or `command`) in the user's config.toml is
// then pointed at it, as the person asked by pressing the button. One install per environment at a time.
import { loadConfig } from '../../config';
import { installOnEnvironment, InstallError, pointEnvironmentAt } from '../remote-install';
import { errorMessage } from '../../util/errors';
import { VERSION } from '../../version';
import type { HandlerTable } from '../dispatcher';
import { invalidParams, RpcError } from '../rpc-error';
import type { HandlerContext } from './context';

type InstallHandlers = Pick<HandlerTable, 'weft/environment/install' | 'weft/environment/install/cancel'>;

/** The JSON-RPC error code of a failed install (the message says which step and why). */
const INSTALL_FAILED = -32603;

export function environmentInstallHandlers(ctx: HandlerContext): InstallHandlers {
  const { environment } = ctx;
  const running = new Map<string, AbortController>();
  return {
    'weft/environment/install': async (params, client) => {
      const name = params.environment;
      const { config } = await loadConfig({
        weftHome: environment.weftHome,
        cwd: environment.defaultCwd,
        env: environment.env,
      }).catch((error: unknown) => {
        throw invalidParams(errorMessage(error));
      });
      const entry = config.environments?.[name];
      if (entry === undefined) throw invalidParams(`no environment named "${name}" in config.toml`);
      if (running.has(name)) throw invalidParams(`Weft is already being installed on ${name}`);
      const abort = new AbortController();
      running.set(name, abort);
      client.onClose(() => abort.abort());
      const notify = (stage: InstallError['stage'], message: string): void =>
        client.notify({ method: 'weft/environment/install/progress', params: { environment: name, stage, message } });
      try {
        // WEFT_INSTALL_PACKAGE: a tarball made by `npm pack` to install instead of packing this installation
        // (a desktop app bundle is not an npm package).
        const packagePath = environment.env['WEFT_INSTALL_PACKAGE']?.trim() || undefined;
        const result = await installOnEnvironment({
          name,
          environment: entry,
          version: VERSION,
          packagePath,
          signal: abort.signal,
          onProgress: (p) => notify(p.stage, p.message),
        });
        const configFile = await pointEnvironmentAt(environment.weftHome, name, result.update);
        notify('config', `[environments.${name}] ${result.update.key} now starts it (${configFile}).`);
        return {
          version: result.version,
          directory: result.directory,
          node: result.node,
          configFile,
          key: result.update.key,
          value: result.update.value,
        };
      } catch (error) {
        const stage = error instanceof InstallError ? error.stage : null;
        throw new RpcError(INSTALL_FAILED, errorMessage(error), stage === null ? undefined : { stage });
      } finally {
        running.delete(name);
      }
    },

    'weft/environment/install/cancel': async (params) => {
      const abort = running.get(params.environment);
      abort?.abort();
      return { cancelled: abort !== undefined };
    },
  };
}
