import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdir, readFile, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError, configVersion, loadConfig, resolveProvider } from '../../../src-main/config';
import type { LoadedConfig } from '../../../src-main/config';
import { agentMaxThreads, agentRoles } from '../../../src-main/core/agents/config';
import { browserTimeouts } from '../../../src-main/browser/launch-settings';
import { tempWeftHome } from './helpers';

let weft: Awaited<ReturnType<typeof tempWeftHome>>;

beforeEach(async () => {
  weft = await tempWeftHome();
});

afterEach(async () => {
  await weft.dispose();
});

const load = (overrides?: string[]): Promise<LoadedConfig> =>
  loadConfig({ weftHome: weft.home, cwd: weft.home, overrides, env: {} });

/** The ConfigError a load throws; fails the test when the load succeeds. */
async function loadError(overrides?: string[]): Promise<ConfigError> {
  const error: unknown = await load(overrides).then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof ConfigError)) throw new Error(`expected a ConfigError, got ${String(error)}`);
  return error;
}

const DEFAULT_ORIGINS = new Map([
  ['model', 'default'],
  ['model_provider', 'default'],
  ['approval_policy', 'default'],
  ['sandbox_mode', 'default'],
  ['model_reasoning_summary', 'default'],
  ['project_doc_max_bytes', 'default'],
  ['web_search', 'default'],
]);

const DEFAULT_CONFIG = {
  model: 'gpt-5.1-codex',
  model_provider: 'openai',
  model_providers: {},
  approval_policy: 'on-request',
  sandbox_mode: 'workspace-write',
  model_reasoning_summary: 'auto',
  project_doc_max_bytes: 32768,
  web_search: 'disabled',
  mcp_servers: {},
};

describe('loadConfig', () => {
  it('gives the defaults when there is no config.toml', async () => {
    const loaded = await load();
    expect(loaded).toEqual({
      config: DEFAULT_CONFIG,
      warnings: [],
      layers: [
        { source: 'default', file: null },
        { source: 'user', file: weft.file, version: configVersion('') },
      ],
      origins: DEFAULT_ORIGINS,
      originPlaces: DEFAULT_ORIGINS,
      projectTrust: {
        root: await realpath(weft.home),
        trusted: null,
        skippedFiles: [],
        files: [],
        trustedConfigDirs: [],
      },
      heldBackMcpServers: [],
    });
  });

  it('reads a Codex-style provider block and resolves it', async () => {
    await weft.write(
      [
        'model = "mock-model"',
        'model_provider = "mock"',
        '',
        '[model_providers.mock]',
        'name = "Mock"',
        'base_url = "http://127.0.0.1:5555/v1"',
        'env_key = "MOCK_API_KEY"',
        'wire_api = "responses"',
        '',
      ].join('\n'),
    );
    const { config, warnings } = await load();
    expect(warnings).toEqual([]);
    expect(config.model_providers).toEqual({
      mock: {
        name: 'Mock',
        base_url: 'http://127.0.0.1:5555/v1',
        env_key: 'MOCK_API_KEY',
        wire_api: 'responses',
        request_max_retries: 4,
        stream_max_retries: 5,
        stream_idle_timeout_ms: 300000,
      },
    });
    expect(resolveProvider(config, { MOCK_API_KEY: 'sk-mock' }, weft.file)).toEqual({
      id: 'mock',
      name: 'Mock',
      baseUrl: 'http://127.0.0.1:5555/v1',
      wireApi: 'responses',
      apiKey: 'sk-mock',
      apiKeySource: 'env',
      configFile: weft.file,
      envKey: 'MOCK_API_KEY',
      envKeyInstructions: null,
      headers: {},
      queryParams: {},
      requestMaxRetries: 4,
      streamMaxRetries: 5,
      streamIdleTimeoutMs: 300000,
    });
  });

  it('accepts every documented key', async () => {
    await weft.write(`
model = "gpt-5"
model_provider = "ollama"
approval_policy = "never"
sandbox_mode = "read-only"
model_reasoning_effort = "xhigh"
model_reasoning_summary = "none"
model_context_window = 200000
model_auto_compact_token_limit = 150000
tool_output_token_limit = 10000
project_doc_max_bytes = 0
project_doc_fallback_filenames = ["CLAUDE.md"]
project_root_markers = [".git", ".hg"]
web_search = "live"
questions = false
agent_command_priority = "normal"
notify = ["notify-send", "weft"]
instructions = "Be brief."
developer_instructions = "Use tabs."
model_instructions_file = "/etc/weft/instructions.md"
profile = "fast"

[sandbox_workspace_write]
writable_roots = ["/srv/data"]
network_access = true
exclude_tmpdir_env_var = true
exclude_slash_tmp = false

[shell_environment_policy]
inherit = "core"
exclude = ["AWS_*"]
include_only = ["PATH", "HOME"]
set = { CI = "1" }
ignore_default_excludes = true

[model_providers.proxy]
name = "Proxy"
base_url = "https://proxy.example/v1"
env_key = "PROXY_KEY"
env_key_instructions = "Ask the team for a proxy key."
wire_api = "chat"
query_params = { "api-version" = "2025-01-01" }
http_headers = { "X-Team" = "core" }
env_http_headers = { "X-Org" = "PROXY_ORG" }
request_max_retries = 100
stream_max_retries = 0
stream_idle_timeout_ms = 60000
experimental_bearer_token = "tok"
requires_openai_auth = false

[mcp_servers.files]
command = "mcp-files"
args = ["--root", "."]
env = { LOG = "1" }
cwd = "/tmp"
startup_timeout_sec = 20
tool_timeout_sec = 90.5

[mcp_servers.docs]
url = "https://docs.example/mcp"
bearer_token_env_var = "DOCS_TOKEN"
http_headers = { "X-Client" = "weft" }
enabled = false
enabled_tools = ["search"]

[profiles.fast]
model = "gpt-5-mini"
model_provider = "openai"
approval_policy = "on-failure"
sandbox_mode = "workspace-write"
model_reasoning_effort = "low"
model_reasoning_summary = "concise"
web_search = "cached"

[projects."/home/me/app"]
trust_level = "trusted"

[history]
persistence = "none"

[tui]
animations = false

[features]
unified_exec = true
`);
    const loaded = await load();
    expect(loaded.warnings).toEqual([]);
    // profile = "fast" is applied over the top-level keys.
    expect(loaded.layers.map((layer) => layer.source)).toEqual(['default', 'user', 'profile']);
    expect(loaded.config).toEqual({
      model: 'gpt-5-mini',
      model_provider: 'openai',
      approval_policy: 'on-failure',
      sandbox_mode: 'workspace-write',
      model_reasoning_effort: 'low',
      model_reasoning_summary: 'concise',
      model_context_window: 200000,
      model_auto_compact_token_limit: 150000,
      tool_output_token_limit: 10000,
      project_doc_max_bytes: 0,
      project_doc_fallback_filenames: ['CLAUDE.md'],
      project_root_markers: ['.git', '.hg'],
      web_search: 'cached',
      questions: false,
      agent_command_priority: 'normal',
      notify: ['notify-send', 'weft'],
      instructions: 'Be brief.',
      developer_instructions: 'Use tabs.',
      model_instructions_file: '/etc/weft/instructions.md',
      profile: 'fast',
      sandbox_workspace_write: {
        writable_roots: ['/srv/data'],
        network_access: true,
        exclude_tmpdir_env_var: true,
        exclude_slash_tmp: false,
      },
      shell_environment_policy: {
        inherit: 'core',
        exclude: ['AWS_*'],
        include_only: ['PATH', 'HOME'],
        set: { CI: '1' },
        ignore_default_excludes: true,
      },
      model_providers: {
        proxy: {
          name: 'Proxy',
          base_url: 'https://proxy.example/v1',
          env_key: 'PROXY_KEY',
          env_key_instructions: 'Ask the team for a proxy key.',
          wire_api: 'chat',
          query_params: { 'api-version': '2025-01-01' },
          http_headers: { 'X-Team': 'core' },
          env_http_headers: { 'X-Org': 'PROXY_ORG' },
          request_max_retries: 100,
          stream_max_retries: 0,
          stream_idle_timeout_ms: 60000,
          experimental_bearer_token: 'tok',
          requires_openai_auth: false,
        },
      },
      mcp_servers: {
        files: {
          command: 'mcp-files',
          args: ['--root', '.'],
          env: { LOG: '1' },
          cwd: '/tmp',
          startup_timeout_sec: 20,
          tool_timeout_sec: 90.5,
        },
        docs: {
          url: 'https://docs.example/mcp',
          bearer_token_env_var: 'DOCS_TOKEN',
          http_headers: { 'X-Client': 'weft' },
          enabled: false,
          enabled_tools: ['search'],
        },
      },
      profiles: {
        fast: {
          model: 'gpt-5-mini',
          model_provider: 'openai',
          approval_policy: 'on-failure',
          sandbox_mode: 'workspace-write',
          model_reasoning_effort: 'low',
          model_reasoning_summary: 'concise',
          web_search: 'cached',
        },
      },
      projects: { '/home/me/app': { trust_level: 'trusted' } },
      history: { persistence: 'none' },
      tui: { animations: false },
      features: { unified_exec: true },
    });
  });

  it('reports a TOML syntax error at file:line:col', async () => {
    await weft.write('model = "gpt-5"\napproval_policy = = "never"\n');
    const error = await loadError();
    expect(error.message).toBe(`${weft.file}:2:19: TOML syntax error: invalid value`);
    expect([error.file, error.line, error.column]).toEqual([weft.file, 2, 19]);
  });

  it('names an unterminated string as such', async () => {
    await weft.write('model = "gpt-5\napproval_policy = "never"\n');
    const error = await loadError();
    expect(error.message).toBe(
      `${weft.file}:1:15: TOML syntax error: unterminated string (the closing " is missing on line 1)`,
    );
    await weft.write("model = 'gpt-5");
    expect((await loadError()).message).toBe(
      `${weft.file}:1:9: TOML syntax error: unterminated string (the closing ' is missing)`,
    );
    await weft.write('instructions = """hello\nworld\n');
    expect((await loadError()).message).toBe(
      `${weft.file}:1:16: TOML syntax error: unterminated string (the closing """ is missing)`,
    );
  });

  it('reports a bad enum value with its position, the allowed values and a suggestion', async () => {
    await weft.write('model = "gpt-5"\n\napproval_policy = "sometimes"\n');
    const error = await loadError();
    expect(error.message).toBe(
      `${weft.file}:3:1: \`approval_policy\` must be one of untrusted, on-failure, on-request, never (got "sometimes")`,
    );
    expect([error.file, error.line, error.column]).toEqual([weft.file, 3, 1]);

    await weft.write('model = "gpt-5"\n  approval_policy = "on-reqest"\n');
    expect((await loadError()).message).toBe(
      `${weft.file}:2:3: \`approval_policy\` must be one of untrusted, on-failure, on-request, never (got "on-reqest"); did you mean "on-request"?`,
    );
  });

  it('points at keys inside tables, dotted keys and inline tables', async () => {
    await weft.write('[sandbox_workspace_write]\nwritable_roots = ["/a"]\nnetwork_access = "yes"\n');
    expect((await loadError()).message).toBe(
      `${weft.file}:3:1: \`sandbox_workspace_write.network_access\` must be true or false (got "yes")`,
    );

    await weft.write('model = "m"\nsandbox_workspace_write = { exclude_slash_tmp = true, network_access = 1 }\n');
    expect((await loadError()).message).toBe(
      `${weft.file}:2:55: \`sandbox_workspace_write.network_access\` must be true or false (got 1)`,
    );

    await weft.write('model_providers.mock.base_url = "http://x"\nmodel_providers.mock.request_max_retries = 500\n');
    expect((await loadError()).message).toBe(
      `${weft.file}:2:1: \`model_providers.mock.request_max_retries\` must be at most 100 (got 500)`,
    );

    await weft.write('[sandbox_workspace_write]\nwritable_roots = [\n  "/a",\n  5,\n]\n');
    expect((await loadError()).message).toBe(
      `${weft.file}:2:1: \`sandbox_workspace_write.writable_roots[1]\` must be a string (got 5)`,
    );
  });

  it('reports every bad value at once', async () => {
    await weft.write('sandbox_mode = "workspace_write"\nmodel_context_window = 0\nmodel = 5\n');
    const error = await loadError();
    expect(error.message.split('\n')).toEqual([
      `${weft.file}:1:1: \`sandbox_mode\` must be one of read-only, workspace-write, danger-full-access (got "workspace_write"); did you mean "workspace-write"?`,
      `${weft.file}:2:1: \`model_context_window\` must be greater than 0 (got 0)`,
      `${weft.file}:3:1: \`model\` must be a string (got 5)`,
    ]);
    expect([error.line, error.column]).toEqual([1, 1]);
  });

  it("reads the browser's waits in seconds, the defaults for those left out, and refuses 0 or more than 10 minutes", async () => {
    expect(browserTimeouts((await load()).config.browser)).toEqual({ loadMs: 15_000, actionMs: 10_000, busyMs: 5_000 });
    await weft.write('[browser]\nload_timeout_sec = 3\nbusy_timeout_sec = 1.5\n');
    expect(browserTimeouts((await load()).config.browser)).toEqual({ loadMs: 3_000, actionMs: 10_000, busyMs: 1_500 });
    await weft.write('[browser]\naction_timeout_sec = 0\nbusy_timeout_sec = 601\n');
    expect((await loadError()).message.split('\n')).toEqual([
      `${weft.file}:2:1: \`browser.action_timeout_sec\` must be greater than 0 (got 0)`,
      `${weft.file}:3:1: \`browser.busy_timeout_sec\` must be at most 600 (got 601)`,
    ]);
  });

  it('warns about unknown keys with a suggestion and keeps loading', async () => {
    await weft.write(
      [
        'modle = "gpt-5"',
        'approval_policy = "never"',
        'colour = "blue"',
        '[sandbox_workspace_write]',
        'netwrok_access = true',
        '[model_providers.mock]',
        'base_ulr = "http://x"',
        '[tuii]',
        'x = 1',
      ].join('\n'),
    );
    const { config, warnings } = await load();
    expect(warnings).toEqual([
      `${weft.file}:1: unknown key \`modle\` (did you mean \`model\`?)`,
      `${weft.file}:3: unknown key \`colour\``,
      `${weft.file}:5: unknown key \`sandbox_workspace_write.netwrok_access\` (did you mean \`sandbox_workspace_write.network_access\`?)`,
      `${weft.file}:7: unknown key \`model_providers.mock.base_ulr\` (did you mean \`model_providers.mock.base_url\`?)`,
      `${weft.file}:8: unknown key \`tuii\` (did you mean \`tui\`?)`,
    ]);
    expect(config).toEqual({
      ...DEFAULT_CONFIG,
      approval_policy: 'never',
      sandbox_workspace_write: {},
      model_providers: {
        mock: { request_max_retries: 4, stream_max_retries: 5, stream_idle_timeout_ms: 300000, wire_api: 'responses' },
      },
    });
  });

  it('ignores a table that redefines a built-in provider, with a warning', async () => {
    await weft.write('[model_providers.openai]\nbase_url = "http://evil.example/v1"\n');
    const { config, warnings } = await load();
    expect(warnings).toEqual([
      `${weft.file}:1: [model_providers.openai] is ignored: "openai" is a built-in provider and cannot be redefined; give your table another id and point model_provider at it`,
    ]);
    expect(config.model_providers).toEqual({});
    expect(resolveProvider(config, {}, weft.file).baseUrl).toBe('https://api.openai.com/v1');
  });

  it('lets -c overrides beat the file and the file beat the defaults', async () => {
    await weft.write(
      [
        'model = "from-file"',
        'approval_policy = "never"',
        '[sandbox_workspace_write]',
        'network_access = false',
        'writable_roots = ["/file"]',
      ].join('\n'),
    );
    const loaded = await load([
      'model=gpt-5',
      'sandbox_workspace_write.network_access=true',
      'model_reasoning_effort="high"',
      'model_reasoning_effort=low',
    ]);
    expect(loaded.warnings).toEqual([]);
    expect(loaded.config).toEqual({
      ...DEFAULT_CONFIG,
      model: 'gpt-5',
      approval_policy: 'never',
      model_reasoning_effort: 'low',
      sandbox_workspace_write: { network_access: true, writable_roots: ['/file'] },
    });
    expect(loaded.layers).toEqual([
      { source: 'default', file: null },
      { source: 'user', file: weft.file, version: configVersion(await readFile(weft.file, 'utf8')) },
      { source: 'override', file: null },
    ]);
    expect(loaded.origins).toEqual(
      new Map([
        ['model', '-c model'],
        ['model_provider', 'default'],
        ['approval_policy', weft.file],
        ['sandbox_mode', 'default'],
        ['model_reasoning_summary', 'default'],
        ['project_doc_max_bytes', 'default'],
        ['web_search', 'default'],
        ['sandbox_workspace_write.network_access', '-c sandbox_workspace_write.network_access'],
        ['sandbox_workspace_write.writable_roots', weft.file],
        ['model_reasoning_effort', '-c model_reasoning_effort'],
      ]),
    );
  });

  it('names the flag when an override has a bad value or an unknown key', async () => {
    expect((await loadError(['approval_policy=sometimes'])).message).toBe(
      '-c approval_policy: `approval_policy` must be one of untrusted, on-failure, on-request, never (got "sometimes")',
    );
    expect((await loadError(['sandbox_workspace_write={ network_access = "yes" }'])).message).toBe(
      '-c sandbox_workspace_write: `sandbox_workspace_write.network_access` must be true or false (got "yes")',
    );
    expect((await loadError(['model'])).message).toBe(
      'invalid -c override "model": expected key=value, e.g. -c model=gpt-5.1-codex or -c sandbox_workspace_write.network_access=true',
    );
    expect((await load(['modle=gpt-5'])).warnings).toEqual(['-c modle: unknown key `modle` (did you mean `model`?)']);
  });

  it('checks MCP servers once the layers are merged', async () => {
    await weft.write('[mcp_servers.files]\nargs = ["--root", "."]\n');
    expect((await loadError()).message).toBe(
      `${weft.file}:1:1: \`mcp_servers.files\` needs \`command\` (a stdio server) or \`url\` (an HTTP server)`,
    );
    const { config } = await load(['mcp_servers.files.command="mcp-files"']);
    expect(config.mcp_servers).toEqual({ files: { command: 'mcp-files', args: ['--root', '.'] } });
  });

  it('reports an unreadable config file without crashing', async () => {
    await mkdir(join(weft.home, 'config.toml'));
    const error = await loadError();
    expect(error.message).toMatch(
      new RegExp(`^${weft.file}: cannot read the config file \\(EISDIR: .*\\); check that it is a readable file$`),
    );
  });
});

describe('[agents]', () => {
  it('reads the limit of open sub-agents and the roles, and says what is wrong with a role', async () => {
    await weft.write(
      '[agents]\nmax_threads = 2\n\n[agents.reviewer]\ndescription = "Reviews a change"\ndeveloper_instructions = "Be strict."\nmodel_reasoning_effort = "high"\n',
    );
    const { config } = await load();
    expect(agentMaxThreads(config)).toBe(2);
    expect(agentRoles(config)).toEqual({
      reviewer: { description: 'Reviews a change', developerInstructions: 'Be strict.', effort: 'high' },
    });

    await weft.write('');
    const defaults = (await load()).config;
    expect([agentMaxThreads(defaults), agentRoles(defaults)]).toEqual([6, {}]);

    await weft.write('[agents]\nmax_threads = 0\n');
    expect((await loadError()).message).toBe(`${weft.file}:2:1: \`agents.max_threads\` must be greater than 0 (got 0)`);

    await weft.write('[agents.reviewer]\nmodel = "gpt-5"\n');
    expect((await loadError()).message).toBe(
      `${weft.file}:1:1: \`agents.reviewer.description\` must be a string (got nothing)`,
    );
  });
});
