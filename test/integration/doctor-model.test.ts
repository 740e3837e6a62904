// `weft doctor` checks the model set-up: the real `weft` binary against the mock Responses server.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockResponsesServer } from '../support/mock-responses-server';
import type { MockResponsesServer } from '../support/mock-responses-server';
import { makeWeftHome } from '../support/workspace';
import type { WeftHome } from '../support/workspace';

const CLI = join(resolve(__dirname, '../..'), 'bin', 'weft.js');

let mock: MockResponsesServer;
const homes: WeftHome[] = [];

beforeAll(async () => {
  mock = await startMockResponsesServer();
});

afterAll(async () => {
  await mock.close();
  for (const home of homes) await home.cleanup();
});

async function homeFor(baseUrl: string, extra = ''): Promise<string> {
  const home = await makeWeftHome(
    [
      'model = "mock-model"',
      'model_provider = "mock"',
      extra,
      '',
      '[model_providers.mock]',
      'name = "Mock"',
      `base_url = "${baseUrl}"`,
      'env_key = "MOCK_API_KEY"',
      'wire_api = "responses"',
      '',
    ].join('\n'),
  );
  homes.push(home);
  return home.dir;
}

interface Check {
  name: string;
  state: 'ok' | 'warn' | 'fail';
  detail: string;
}

async function doctor(
  home: string,
  env: Record<string, string | undefined>,
): Promise<{ code: number | null; model: { provider: string | null; ready: boolean; checks: Check[] } }> {
  const vars = Object.fromEntries(
    Object.entries({ ...process.env, WEFT_HOME: home, ...env }).filter(
      (e): e is [string, string] => e[1] !== undefined,
    ),
  );
  const child = spawn(process.execPath, [CLI, 'doctor', '--json'], {
    cwd: home,
    env: vars,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  const parsed = JSON.parse(stdout) as { model: { provider: string | null; ready: boolean; checks: Check[] } };
  return { code, model: parsed.model };
}

const byName = (checks: Check[], name: string): Check | undefined => checks.find((c) => c.name === name);

describe('weft doctor: the model set-up', () => {
  it('finds the provider and its key, and the base URL answering /models', { timeout: 60_000 }, async () => {
    mock.setModels(['mock-model', 'mock-mini']);
    const { model } = await doctor(await homeFor(mock.url), { MOCK_API_KEY: 'x' });
    expect(model.provider).toBe('mock');
    expect(model.ready).toBe(true);
    expect(model.checks.map((c) => [c.name, c.state])).toEqual([
      ['Config', 'ok'],
      ['Provider', 'ok'],
      ['API key', 'ok'],
      ['Base URL', 'ok'],
    ]);
    expect(byName(model.checks, 'API key')?.detail).toBe('set (from $MOCK_API_KEY)');
    expect(byName(model.checks, 'Base URL')?.detail).toBe(`${mock.url}/models answered with 2 models`);
  });

  it(
    'exits 1 naming the variable when the key is missing, and shows config warnings',
    { timeout: 60_000 },
    async () => {
      const { code, model } = await doctor(await homeFor(mock.url, 'not_a_key = 1'), { MOCK_API_KEY: undefined });
      expect(code).toBe(1);
      expect(model.ready).toBe(false);
      expect(byName(model.checks, 'Config')?.state).toBe('warn');
      expect(byName(model.checks, 'Config')?.detail).toContain('not_a_key');
      expect(byName(model.checks, 'API key')).toMatchObject({ state: 'fail' });
      expect(byName(model.checks, 'API key')?.detail).toContain('MOCK_API_KEY is not set');
    },
  );

  it('exits 1 when the base URL does not answer', { timeout: 60_000 }, async () => {
    const { code, model } = await doctor(await homeFor('http://127.0.0.1:9/v1'), { MOCK_API_KEY: 'x' });
    expect(code).toBe(1);
    expect(byName(model.checks, 'Base URL')).toMatchObject({ state: 'fail' });
    expect(byName(model.checks, 'Base URL')?.detail).toContain('http://127.0.0.1:9/v1/models could not be reached');
  });
});
