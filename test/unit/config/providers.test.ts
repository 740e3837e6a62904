import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { ConfigError, DEFAULTS, missingKeyMessage, resolveProvider, resolveWeftHome } from '../../../src-main/config';
import type { WeftConfig } from '../../../src-main/config';

const FILE = '/home/me/.weft/config.toml';

function configWith(patch: Partial<WeftConfig>): WeftConfig {
  return { ...DEFAULTS, model_providers: {}, mcp_servers: {}, ...patch };
}

const RETRIES = { request_max_retries: 4, stream_max_retries: 5, stream_idle_timeout_ms: 300000 } as const;

function resolveError(config: WeftConfig, env: NodeJS.ProcessEnv): ConfigError {
  try {
    resolveProvider(config, env, FILE);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('resolveProvider', () => {
  it('resolves the built-in openai provider from the environment', () => {
    const provider = resolveProvider(
      configWith({}),
      { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: 'http://127.0.0.1:9000/v1/' },
      FILE,
    );
    expect(provider).toEqual({
      id: 'openai',
      name: 'OpenAI',
      baseUrl: 'http://127.0.0.1:9000/v1',
      wireApi: 'responses',
      apiKey: 'sk-test',
      apiKeySource: 'env',
      configFile: FILE,
      envKey: 'OPENAI_API_KEY',
      envKeyInstructions: null,
      headers: {},
      queryParams: {},
      requestMaxRetries: 4,
      streamMaxRetries: 5,
      streamIdleTimeoutMs: 300000,
    });
    expect(missingKeyMessage(provider)).toBeNull();
  });

  it('uses the public OpenAI URL and says what to do when the key is missing', () => {
    const provider = resolveProvider(configWith({}), { OPENAI_API_KEY: '  ', OPENAI_BASE_URL: '' }, FILE);
    expect([provider.baseUrl, provider.apiKey]).toEqual(['https://api.openai.com/v1', null]);
    expect(missingKeyMessage(provider)).toBe(
      'OPENAI_API_KEY is not set. Set it in your environment (export OPENAI_API_KEY=…), save a key for "openai" in Settings, or point model_provider in /home/me/.weft/config.toml at a provider that needs no key.',
    );
  });

  it('takes CODEX_API_KEY (first) and openai_base_url (over OPENAI_BASE_URL) for the openai provider', () => {
    const env = { OPENAI_API_KEY: 'sk-openai', CODEX_API_KEY: 'sk-codex', OPENAI_BASE_URL: 'http://127.0.0.1:9000/v1' };
    const provider = resolveProvider(configWith({ openai_base_url: 'http://127.0.0.1:9100/v1/' }), env, FILE);
    expect([provider.baseUrl, provider.apiKey]).toEqual(['http://127.0.0.1:9100/v1', 'sk-codex']);
    expect(resolveProvider(configWith({}), { CODEX_API_KEY: 'sk-codex' }, FILE).apiKey).toBe('sk-codex');
    const custom = configWith({
      model_provider: 'mine',
      model_providers: {
        mine: { base_url: 'http://127.0.0.1:9200/v1', env_key: 'MINE_KEY', wire_api: 'responses', ...RETRIES },
      },
    });
    expect(
      resolveProvider(
        { ...custom, openai_base_url: 'http://elsewhere/v1' },
        { CODEX_API_KEY: 'sk-codex', MINE_KEY: 'sk-mine' },
        FILE,
      ),
    ).toMatchObject({ baseUrl: 'http://127.0.0.1:9200/v1', apiKey: 'sk-mine' });
  });

  it('resolves the local built-ins without a key', () => {
    const ollama = resolveProvider(
      configWith({ model_provider: 'ollama' }),
      { OPENAI_BASE_URL: 'http://ignored' },
      FILE,
    );
    expect(ollama).toMatchObject({
      id: 'ollama',
      name: 'Ollama',
      baseUrl: 'http://localhost:11434/v1',
      wireApi: 'chat',
      apiKey: null,
      envKey: null,
    });
    expect(missingKeyMessage(ollama)).toBeNull();
    const lmstudio = resolveProvider(configWith({ model_provider: 'lmstudio' }), {}, FILE);
    expect(lmstudio).toMatchObject({
      id: 'lmstudio',
      name: 'LM Studio',
      baseUrl: 'http://localhost:1234/v1',
      wireApi: 'chat',
      apiKey: null,
    });
  });

  it('resolves a custom provider with headers, query params and key instructions', () => {
    const config = configWith({
      model_provider: 'azure',
      model_providers: {
        azure: {
          ...RETRIES,
          request_max_retries: 2,
          wire_api: 'responses',
          base_url: 'https://team.openai.azure.com/openai',
          env_key: 'AZURE_OPENAI_API_KEY',
          env_key_instructions: 'Create a key in the Azure portal, then export AZURE_OPENAI_API_KEY.',
          query_params: { 'api-version': '2025-04-01-preview' },
          http_headers: { 'X-Team': 'core' },
          env_http_headers: { 'X-Org': 'AZURE_ORG', 'X-Unset': 'NOT_SET_ANYWHERE' },
        },
      },
    });
    const provider = resolveProvider(config, { AZURE_ORG: 'org-1' }, FILE);
    expect(provider).toEqual({
      id: 'azure',
      name: 'azure',
      baseUrl: 'https://team.openai.azure.com/openai',
      wireApi: 'responses',
      apiKey: null,
      apiKeySource: null,
      configFile: FILE,
      envKey: 'AZURE_OPENAI_API_KEY',
      envKeyInstructions: 'Create a key in the Azure portal, then export AZURE_OPENAI_API_KEY.',
      headers: { 'X-Team': 'core', 'X-Org': 'org-1' },
      queryParams: { 'api-version': '2025-04-01-preview' },
      requestMaxRetries: 2,
      streamMaxRetries: 5,
      streamIdleTimeoutMs: 300000,
    });
    expect(missingKeyMessage(provider)).toBe(
      'AZURE_OPENAI_API_KEY is not set. Create a key in the Azure portal, then export AZURE_OPENAI_API_KEY. (provider "azure" in /home/me/.weft/config.toml)',
    );
  });

  it('needs a key for a custom provider only when it names env_key, and prefers a bearer token', () => {
    const open = configWith({
      model_provider: 'local',
      model_providers: { local: { ...RETRIES, wire_api: 'chat', base_url: 'http://gpu:8000/v1' } },
    });
    const local = resolveProvider(open, {}, FILE);
    expect([local.apiKey, local.envKey, missingKeyMessage(local)]).toEqual([null, null, null]);

    const tokened = configWith({
      model_provider: 'proxy',
      model_providers: {
        proxy: {
          ...RETRIES,
          wire_api: 'responses',
          base_url: 'http://p/v1',
          env_key: 'PROXY_KEY',
          experimental_bearer_token: 'tok',
        },
      },
    });
    const proxy = resolveProvider(tokened, { PROXY_KEY: 'from-env' }, FILE);
    expect([proxy.apiKey, missingKeyMessage(proxy)]).toEqual(['tok', null]);

    const openaiAuth = configWith({
      model_provider: 'gateway',
      model_providers: {
        gateway: { ...RETRIES, wire_api: 'responses', base_url: 'http://g/v1', requires_openai_auth: true },
      },
    });
    expect(resolveProvider(openaiAuth, { OPENAI_API_KEY: 'sk' }, FILE)).toMatchObject({
      envKey: 'OPENAI_API_KEY',
      apiKey: 'sk',
    });
  });

  it('says how to define an unknown provider', () => {
    const config = configWith({
      model_provider: 'foo',
      model_providers: { mock: { ...RETRIES, wire_api: 'responses', base_url: 'http://m/v1' } },
    });
    const error = resolveError(config, {});
    expect(error.message).toBe(
      `model_provider "foo" is not defined; add a [model_providers.foo] table to ${FILE} or use one of openai, ollama, lmstudio, mock`,
    );
    expect(error.file).toBe(FILE);
  });

  it('says where to add a missing base_url', () => {
    const config = configWith({
      model_provider: 'mock',
      model_providers: { mock: { ...RETRIES, wire_api: 'responses', env_key: 'K' } },
    });
    expect(resolveError(config, {}).message).toBe(
      `provider "mock" has no base_url; add base_url = "https://…/v1" to [model_providers.mock] in ${FILE}`,
    );
  });

  it('defaults the file it names to config.toml under WEFT_HOME', () => {
    const config = configWith({ model_provider: 'foo' });
    expect(() => resolveProvider(config, { WEFT_HOME: '/srv/weft' })).toThrow(
      'model_provider "foo" is not defined; add a [model_providers.foo] table to /srv/weft/config.toml or use one of openai, ollama, lmstudio',
    );
  });
});

describe('resolveWeftHome', () => {
  it('uses WEFT_HOME, expanding ~, else ~/.weft', () => {
    expect(resolveWeftHome({ HOME: '/home/me' })).toBe('/home/me/.weft');
    expect(resolveWeftHome({ HOME: '/home/me', WEFT_HOME: '' })).toBe('/home/me/.weft');
    expect(resolveWeftHome({ HOME: '/home/me', WEFT_HOME: '/srv/weft' })).toBe('/srv/weft');
    expect(resolveWeftHome({ HOME: '/home/me', WEFT_HOME: '~/alt' })).toBe('/home/me/alt');
    expect(resolveWeftHome({ HOME: '/home/me', WEFT_HOME: 'rel' })).toBe(join(process.cwd(), 'rel'));
  });
});
