// `weft mcp`: lists, shows, adds and removes MCP servers in WEFT_HOME/config.toml (as `codex mcp`
// does), editing the file in place so its comments and order survive.
import { parseArgs } from 'node:util';
import { loadConfig, userConfigFile, writeConfigValue } from '../config';
import { resolveWeftHome } from '../config/home';
import type { McpServerConfig } from '../config/schema';
import { formatKeyPath } from '../config/toml-keys';
import { McpOAuthStore, mcpLogin } from '../mcp/oauth';
import { openInBrowser } from './serve';
import { dispatchSubCommand } from './sub-commands';

const USAGE = `Usage: weft mcp list [--json]
       weft mcp get <name> [--json]
       weft mcp add <name> [--env KEY=VALUE]… -- <command> [args…]
       weft mcp add <name> --url <URL> [--bearer-token-env-var VAR]
       weft mcp remove <name>
       weft mcp login <name> [--scopes a,b] [--no-browser]
       weft mcp logout <name>

MCP servers give the agent more tools. They live in [mcp_servers.<name>] tables of
~/.weft/config.toml (WEFT_HOME), with the same keys as Codex's config.toml.

  list     Show every configured server (name, command or URL, enabled)
  get      Show one server's settings
  add      Add (or replace) a stdio server started with <command>, or an HTTP server at <URL>
  remove   Remove the server's table from config.toml
  login    Sign in to a streamable HTTP server with OAuth (opens a browser; the tokens are
           kept in WEFT_HOME/mcp-oauth.json, readable by you only)
  logout   Forget the server's OAuth sign-in
`;

export async function runMcpCommand(argv: string[]): Promise<number> {
  const weftHome = resolveWeftHome(process.env);
  return dispatchSubCommand(
    {
      command: 'mcp',
      usage: USAGE,
      verbs: {
        list: { aliases: ['ls'], run: (rest) => list(weftHome, rest) },
        get: { run: (rest) => get(weftHome, rest) },
        add: { run: (rest) => add(weftHome, rest) },
        remove: { aliases: ['rm'], run: (rest) => remove(weftHome, rest) },
        login: { run: (rest) => login(weftHome, rest) },
        logout: { run: (rest) => logout(weftHome, rest) },
      },
    },
    argv,
  );
}

async function servers(weftHome: string): Promise<Record<string, McpServerConfig>> {
  const { config, warnings } = await loadConfig({ weftHome, cwd: process.cwd(), env: process.env });
  for (const w of warnings) process.stderr.write(`weft: warning: ${w}\n`);
  return config.mcp_servers;
}

function target(server: McpServerConfig): string {
  return server.url ?? [server.command ?? '', ...(server.args ?? [])].join(' ');
}

async function list(weftHome: string, argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { json: { type: 'boolean' } } });
  const all = await servers(weftHome);
  if (values.json) {
    process.stdout.write(`${JSON.stringify(all, null, 2)}\n`);
    return 0;
  }
  const names = Object.keys(all).sort();
  if (names.length === 0) {
    process.stdout.write('No MCP servers configured. Add one with `weft mcp add <name> -- <command>`.\n');
    return 0;
  }
  const rows = names.map((name) => {
    const s = all[name] ?? {};
    return [name, s.url !== undefined ? 'http' : 'stdio', s.enabled === false ? 'disabled' : 'enabled', target(s)];
  });
  const widths = [0, 1, 2].map((i) =>
    Math.max(...[['Name', 'Type', 'Status'][i] ?? '', ...rows.map((r) => r[i] ?? '')].map((c) => c.length)),
  );
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => (i < 3 ? c.padEnd(widths[i] ?? 0) : c))
      .join('  ')
      .trimEnd();
  process.stdout.write(`${[line(['Name', 'Type', 'Status', 'Command / URL']), ...rows.map(line)].join('\n')}\n`);
  return 0;
}

async function get(weftHome: string, argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { json: { type: 'boolean' } },
    allowPositionals: true,
  });
  const name = positionals[0];
  if (name === undefined) {
    process.stderr.write(`weft mcp get: name the server\n\n${USAGE}`);
    return 2;
  }
  const server = (await servers(weftHome))[name];
  if (server === undefined) {
    process.stderr.write(`weft mcp get: no MCP server named "${name}"\n`);
    return 1;
  }
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ name, ...server }, null, 2)}\n`);
    return 0;
  }
  const lines = [
    `${name}`,
    `  type: ${server.url !== undefined ? 'http' : 'stdio'}`,
    `  enabled: ${server.enabled !== false}`,
  ];
  for (const [key, value] of Object.entries(server)) {
    if (key === 'enabled') continue;
    // Values of env and headers may be secrets: only their names are shown.
    const shown =
      (key === 'env' || key === 'http_headers') && typeof value === 'object' && value !== null
        ? Object.keys(value)
            .map((k) => `${k}=*****`)
            .join(', ')
        : JSON.stringify(value);
    lines.push(`  ${key}: ${shown}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

async function add(weftHome: string, argv: string[]): Promise<number> {
  const dash = argv.indexOf('--');
  const own = dash >= 0 ? argv.slice(0, dash) : argv;
  const command = dash >= 0 ? argv.slice(dash + 1) : [];
  const { values, positionals } = parseArgs({
    args: own,
    options: {
      env: { type: 'string', multiple: true },
      url: { type: 'string' },
      'bearer-token-env-var': { type: 'string' },
    },
    allowPositionals: true,
  });
  const name = positionals[0];
  if (name === undefined || positionals.length > 1) {
    process.stderr.write(`weft mcp add: give one server name, then \`-- <command>\` or \`--url <URL>\`\n\n${USAGE}`);
    return 2;
  }
  if ((values.url === undefined) === (command.length === 0)) {
    process.stderr.write(`weft mcp add: give either \`-- <command> [args…]\` or \`--url <URL>\`\n\n${USAGE}`);
    return 2;
  }
  const table: Record<string, unknown> = {};
  if (values.url !== undefined) {
    table['url'] = values.url;
    if (values['bearer-token-env-var'] !== undefined) table['bearer_token_env_var'] = values['bearer-token-env-var'];
  } else {
    table['command'] = command[0];
    if (command.length > 1) table['args'] = command.slice(1);
  }
  const env: Record<string, string> = {};
  for (const pair of values.env ?? []) {
    const eq = pair.indexOf('=');
    if (eq <= 0) {
      process.stderr.write(`weft mcp add: --env takes KEY=VALUE (got "${pair}")\n`);
      return 2;
    }
    env[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  if (Object.keys(env).length > 0) table['env'] = env;
  const file = userConfigFile(weftHome);
  await writeConfigValue(file, formatKeyPath(['mcp_servers', name]), table);
  process.stdout.write(`Added MCP server "${name}" to ${file}.\n`);
  return 0;
}

async function remove(weftHome: string, argv: string[]): Promise<number> {
  const name = argv[0];
  if (name === undefined || argv.length > 1) {
    process.stderr.write(`weft mcp remove: name one server\n\n${USAGE}`);
    return 2;
  }
  const file = userConfigFile(weftHome);
  const result = await writeConfigValue(file, formatKeyPath(['mcp_servers', name]), null);
  process.stdout.write(
    result.changed ? `Removed MCP server "${name}" from ${file}.\n` : `No MCP server named "${name}" in ${file}.\n`,
  );
  return result.changed ? 0 : 1;
}

async function login(weftHome: string, argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { scopes: { type: 'string' }, 'no-browser': { type: 'boolean' } },
  });
  const name = positionals[0];
  if (name === undefined || positionals.length > 1) throw new Error('login takes one server name');
  const server = (await servers(weftHome))[name];
  if (server === undefined) throw new Error(`no MCP server named "${name}" in ${userConfigFile(weftHome)}`);
  if (server.url === undefined) throw new Error(`"${name}" is a stdio server; OAuth is for servers reached by URL`);
  const scopes =
    values.scopes !== undefined
      ? values.scopes
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s !== '')
      : server.scopes;
  await mcpLogin({
    weftHome,
    server: name,
    url: server.url,
    ...(scopes === undefined ? {} : { scopes }),
    open: async (url) => {
      process.stderr.write(`Open this URL to sign in to "${name}":\n${url.href}\n`);
      if (values['no-browser'] !== true) openInBrowser(url.href, (line) => process.stderr.write(`${line}\n`));
    },
  });
  process.stdout.write(`Signed in to "${name}".\n`);
  return 0;
}

async function logout(weftHome: string, argv: string[]): Promise<number> {
  const { positionals } = parseArgs({ args: argv, allowPositionals: true, options: {} });
  const name = positionals[0];
  if (name === undefined || positionals.length > 1) throw new Error('logout takes one server name');
  const removed = await new McpOAuthStore(weftHome).remove(name);
  process.stdout.write(removed ? `Signed out of "${name}".\n` : `Not signed in to "${name}".\n`);
  return 0;
}
