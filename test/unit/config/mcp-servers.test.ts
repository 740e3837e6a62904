import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src-main/config';
import { tempWeftHome } from './helpers';

let weft: Awaited<ReturnType<typeof tempWeftHome>>;

beforeEach(async () => {
  weft = await tempWeftHome();
});

afterEach(async () => {
  await weft.dispose();
});

const load = () => loadConfig({ weftHome: weft.home, cwd: weft.home, env: {} });

async function loadError(): Promise<ConfigError> {
  const error: unknown = await load().then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof ConfigError)) throw new Error(`expected a ConfigError, got ${String(error)}`);
  return error;
}

describe('[mcp_servers.NAME] in config.toml', () => {
  it('reads every key Codex and Weft define', async () => {
    await weft.write(`[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-server"]
env = { LEVEL = "debug" }
env_vars = ["DOCS_TOKEN"]
cwd = "/srv"
enabled = true
required = true
startup_timeout_sec = 20
tool_timeout_sec = 5.5
enabled_tools = ["search"]
disabled_tools = ["delete"]
approval = "always"
tools.search.approval = "never"

[mcp_servers.web]
url = "https://mcp.example.com/mcp"
bearer_token_env_var = "WEB_TOKEN"
http_headers = { "X-Team" = "core" }
env_http_headers = { "X-Key" = "WEB_KEY" }
`);
    const { config } = await load();
    expect(config.mcp_servers['docs']).toMatchObject({
      command: 'npx',
      env_vars: ['DOCS_TOKEN'],
      required: true,
      tool_timeout_sec: 5.5,
      approval: 'always',
      tools: { search: { approval: 'never' } },
    });
    expect(config.mcp_servers['web']).toMatchObject({
      url: 'https://mcp.example.com/mcp',
      env_http_headers: { 'X-Key': 'WEB_KEY' },
    });
  });

  it('reports bad values at their line and column', async () => {
    await weft.write('[mcp_servers.docs]\ncommand = "x"\napproval = "sometimes"\n');
    const error = await loadError();
    expect([error.line, error.column]).toEqual([3, 1]);
    expect(error.message).toContain(
      '`mcp_servers.docs.approval` must be one of never, on-request, always (got "sometimes")',
    );

    await weft.write('[mcp_servers.docs]\ncommand = "x"\n\nstartup_timeout_sec = -1\n');
    const negative = await loadError();
    expect([negative.line, negative.column]).toEqual([4, 1]);

    await weft.write('[mcp_servers.web]\nurl = "ftp://example.com"\n');
    expect((await loadError()).message).toContain('must be an http:// or https:// URL');
  });

  it('needs command or url, not both', async () => {
    await weft.write('[mcp_servers.none]\nenabled = true\n');
    expect((await loadError()).message).toContain(
      '`mcp_servers.none` needs `command` (a stdio server) or `url` (an HTTP server)',
    );
    await weft.write('[mcp_servers.both]\ncommand = "x"\nurl = "http://127.0.0.1/mcp"\n');
    expect((await loadError()).message).toContain('has both `command` and `url`');
  });

  it('warns about unknown keys with a suggestion', async () => {
    await weft.write('[mcp_servers.docs]\ncommand = "x"\ntool_timeout = 5\n');
    const { warnings } = await load();
    expect(warnings.join('\n')).toContain(
      'unknown key `mcp_servers.docs.tool_timeout` (did you mean `mcp_servers.docs.tool_timeout_sec`?)',
    );
  });
});
