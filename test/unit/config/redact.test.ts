import { describe, expect, it } from 'vitest';
import { DEFAULTS, redactConfig } from '../../../src-main/config';
import type { WeftConfig } from '../../../src-main/config';

describe('redactConfig', () => {
  it('hides tokens and credential-like header, env and set values, and nothing else', () => {
    const config: WeftConfig = {
      ...DEFAULTS,
      shell_environment_policy: { set: { CI: '1', NPM_TOKEN: 'npm-secret' } },
      model_providers: {
        proxy: {
          wire_api: 'responses',
          request_max_retries: 4,
          stream_max_retries: 5,
          stream_idle_timeout_ms: 300000,
          base_url: 'https://proxy/v1',
          experimental_bearer_token: 'tok-secret',
          http_headers: { Authorization: 'Bearer abc', 'X-Api-Key': 'k', 'X-Title': 'Weft' },
          env_http_headers: { 'X-Auth-Token': 'PROXY_TOKEN' },
        },
      },
      mcp_servers: {
        gh: { command: 'gh-mcp', env: { GITHUB_TOKEN: 'ghp_secret', LOG_LEVEL: 'debug' } },
        web: { url: 'https://mcp.example', http_headers: { Cookie: 'session=1', Accept: 'text/event-stream' } },
      },
    };
    expect(redactConfig(config)).toEqual({
      ...DEFAULTS,
      shell_environment_policy: { set: { CI: '1', NPM_TOKEN: '<redacted>' } },
      model_providers: {
        proxy: {
          wire_api: 'responses',
          request_max_retries: 4,
          stream_max_retries: 5,
          stream_idle_timeout_ms: 300000,
          base_url: 'https://proxy/v1',
          experimental_bearer_token: '<redacted>',
          http_headers: { Authorization: '<redacted>', 'X-Api-Key': '<redacted>', 'X-Title': 'Weft' },
          env_http_headers: { 'X-Auth-Token': 'PROXY_TOKEN' },
        },
      },
      mcp_servers: {
        gh: { command: 'gh-mcp', env: { GITHUB_TOKEN: '<redacted>', LOG_LEVEL: 'debug' } },
        web: { url: 'https://mcp.example', http_headers: { Cookie: '<redacted>', Accept: 'text/event-stream' } },
      },
    });
    expect(config.model_providers['proxy']?.experimental_bearer_token).toBe('tok-secret');
  });
});
