// `weft doctor`'s model checks: the config loads, the provider it names exists, its key is there, and its
// base URL answers `GET /models`. Each check says what was found and, when a turn could not run, why.
import { resolveWeftHome, userConfigFile } from '../config/home';
import { FileKeyStore, keyFor } from '../config/key-store';
import { loadConfig } from '../config/load';
import { missingKeyMessage, resolveProvider } from '../config/providers';
import type { ResolvedProvider } from '../config/providers';
import { nodeFetch } from '../model/node-fetch';
import { errorMessage } from '../util/errors';

export interface ModelCheck {
  name: string;
  /** `fail`: a turn could not run; `warn`: worth knowing, turns still run. */
  state: 'ok' | 'warn' | 'fail';
  detail: string;
}

export interface ModelStatus {
  provider: string | null;
  baseUrl: string | null;
  checks: ModelCheck[];
  /** False when a turn could not run with this set-up. */
  ready: boolean;
}

/** How long the base URL gets to answer. */
const PROBE_TIMEOUT_MS = 5000;

async function probeModels(provider: ResolvedProvider, key: string | null): Promise<ModelCheck> {
  const url = new URL(`${provider.baseUrl}/models`);
  for (const [name, value] of Object.entries(provider.queryParams)) url.searchParams.set(name, value);
  const headers: Record<string, string> = { ...provider.headers };
  if (key !== null) headers['Authorization'] = `Bearer ${key}`;
  const shown = `${provider.baseUrl}/models`;
  try {
    // Sent as the model client sends its requests (node-fetch.ts), so that what is checked is what turns use.
    const response = await nodeFetch()(url, { headers, signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    if (response.status === 401 || response.status === 403) {
      return {
        name: 'Base URL',
        state: 'fail',
        detail: `${shown} refused the key (HTTP ${response.status}); check the key for "${provider.id}"`,
      };
    }
    if (!response.ok) {
      // Some compatible servers do not list models; they still answered.
      return {
        name: 'Base URL',
        state: 'warn',
        detail: `${shown} answered HTTP ${response.status} (the server is reachable but does not list models)`,
      };
    }
    const body: unknown = await response.json().catch(() => null);
    const data =
      typeof body === 'object' && body !== null && 'data' in body && Array.isArray(body.data) ? body.data : null;
    return {
      name: 'Base URL',
      state: 'ok',
      detail: `${shown} answered${data === null ? '' : ` with ${data.length} ${data.length === 1 ? 'model' : 'models'}`}`,
    };
  } catch (error) {
    const reason =
      error instanceof Error && error.name === 'TimeoutError'
        ? `no answer within ${PROBE_TIMEOUT_MS / 1000} s`
        : errorMessage(error);
    const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : '';
    return { name: 'Base URL', state: 'fail', detail: `${shown} could not be reached: ${reason}${cause}` };
  }
}

/** Checks the model set-up seen from `cwd` with `env`. */
export async function modelStatus(cwd: string, env: NodeJS.ProcessEnv): Promise<ModelStatus> {
  const weftHome = resolveWeftHome(env);
  const checks: ModelCheck[] = [];
  let loaded;
  try {
    loaded = await loadConfig({ weftHome, cwd, env });
  } catch (error) {
    checks.push({ name: 'Config', state: 'fail', detail: errorMessage(error) });
    return { provider: null, baseUrl: null, checks, ready: false };
  }
  checks.push(
    loaded.warnings.length === 0
      ? {
          name: 'Config',
          state: 'ok',
          detail: `read (${loaded.layers.length} ${loaded.layers.length === 1 ? 'layer' : 'layers'})`,
        }
      : { name: 'Config', state: 'warn', detail: loaded.warnings.join('; ') },
  );
  let provider: ResolvedProvider;
  try {
    provider = resolveProvider(loaded.config, env, userConfigFile(weftHome));
  } catch (error) {
    checks.push({ name: 'Provider', state: 'fail', detail: errorMessage(error) });
    return { provider: loaded.config.model_provider, baseUrl: null, checks, ready: false };
  }
  checks.push({
    name: 'Provider',
    state: 'ok',
    detail: `${provider.name} ("${provider.id}", ${provider.wireApi === 'chat' ? 'Chat Completions' : 'Responses'}), model ${loaded.config.model ?? 'default'}`,
  });
  const found = await keyFor(provider, new FileKeyStore(weftHome)).catch(() => null);
  if (provider.envKey === null && found === null) checks.push({ name: 'API key', state: 'ok', detail: 'none needed' });
  else if (found === null)
    checks.push({
      name: 'API key',
      state: 'fail',
      detail: missingKeyMessage(provider) ?? `no key for "${provider.id}"`,
    });
  else {
    const from =
      found.source === 'config'
        ? 'experimental_bearer_token in the config'
        : found.source === 'env'
          ? `$${provider.envKey ?? 'environment'}`
          : 'the key saved in Settings';
    checks.push({ name: 'API key', state: 'ok', detail: `set (from ${from})` });
  }
  if (provider.envKey !== null && found === null)
    checks.push({
      name: 'Base URL',
      state: 'warn',
      detail: `${provider.baseUrl}/models not asked (no key to ask with)`,
    });
  else checks.push(await probeModels(provider, found?.key ?? null));
  return { provider: provider.id, baseUrl: provider.baseUrl, checks, ready: checks.every((c) => c.state !== 'fail') };
}
