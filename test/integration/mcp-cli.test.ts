// `weft mcp list|get|add|remove` edits config.toml keeping its comments; `weft exec` warns about an MCP
// server that failed and still answers.
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startMockResponsesServer, type MockResponsesServer } from '../support/mock-responses-server';
import { evAssistantMessage, evCompleted, evCreated, evOutputTextDelta } from '../support/sse';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../support/workspace';

const WEFT = resolve(__dirname, '../../bin/weft.js');
const FAILING = resolve(__dirname, '..', 'fixtures', 'mcp', 'failing-server.mjs');

let ws: TempWorkspace;
let home: WeftHome;

beforeEach(async () => {
  ws = await makeTempWorkspace({});
  home = await makeWeftHome('# my settings\nmodel = "mock-model"\n');
});

afterEach(async () => {
  await ws.cleanup();
  await home.cleanup();
});

function runWeft(
  args: string[],
  extraEnv: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const env = { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', WEFT_HOME: home.dir, ...extraEnv };
    const child = spawn(process.execPath, [WEFT, ...args], { cwd: ws.dir, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
    child.stdin.end();
  });
}

describe('weft mcp', () => {
  it('adds, lists, shows and removes servers, keeping the rest of config.toml', async () => {
    expect(
      (await runWeft(['mcp', 'add', 'docs', '--env', 'TOKEN=s3cret', '--', 'npx', '-y', 'docs-server'])).code,
    ).toBe(0);
    expect(
      (
        await runWeft([
          'mcp',
          'add',
          'web',
          '--url',
          'https://mcp.example.com/mcp',
          '--bearer-token-env-var',
          'WEB_TOKEN',
        ])
      ).code,
    ).toBe(0);
    const text = await readFile(join(home.dir, 'config.toml'), 'utf8');
    expect(text.startsWith('# my settings\nmodel = "mock-model"\n')).toBe(true);

    const listed = await runWeft(['mcp', 'list']);
    expect(listed.stdout).toBe(
      'Name  Type   Status   Command / URL\n' +
        'docs  stdio  enabled  npx -y docs-server\n' +
        'web   http   enabled  https://mcp.example.com/mcp\n',
    );
    const json = JSON.parse((await runWeft(['mcp', 'get', 'docs', '--json'])).stdout) as Record<string, unknown>;
    expect(json).toEqual({ name: 'docs', command: 'npx', args: ['-y', 'docs-server'], env: { TOKEN: 's3cret' } });
    const shown = await runWeft(['mcp', 'get', 'docs']);
    expect(shown.stdout).toContain('env: TOKEN=*****');
    expect(shown.stdout).not.toContain('s3cret');

    expect((await runWeft(['mcp', 'remove', 'docs'])).code).toBe(0);
    expect((await runWeft(['mcp', 'list'])).stdout).not.toContain('docs');
    const missing = await runWeft(['mcp', 'get', 'docs']);
    expect([missing.code, missing.stderr]).toEqual([1, 'weft mcp get: no MCP server named "docs"\n']);
    expect((await runWeft(['mcp', 'add', 'bad'])).code).toBe(2);
  });
});

describe('weft exec with an MCP server that fails', () => {
  let model: MockResponsesServer;
  beforeEach(async () => {
    model = await startMockResponsesServer();
  });
  afterEach(async () => {
    await model.close();
  });

  it('warns on stderr and still answers', async () => {
    model.enqueue({
      kind: 'sse',
      events: [evCreated(), evOutputTextDelta('hi'), evAssistantMessage('hi'), evCompleted()],
    });
    await writeFile(
      join(home.dir, 'config.toml'),
      `model = "mock-model"\nmodel_provider = "mock"\n[model_providers.mock]\nname = "Mock"\nbase_url = "${model.url}"\nenv_key = "MOCK_API_KEY"\n[mcp_servers.broken]\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${JSON.stringify(FAILING)}]\n`,
    );
    const result = await runWeft(['exec', '--skip-git-repo-check', 'hello'], { MOCK_API_KEY: 'sk-test' });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('hi\n');
    expect(result.stderr).toMatch(
      /weft: warning: MCP server "broken" is not available \(.+\); its tools are left out\n/,
    );
  });
});
