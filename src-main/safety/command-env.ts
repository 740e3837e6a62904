// The environment every command starts with — the model's commands, `weft sandbox`, anything Weft
// spawns for the model — built by one filter, configured with Codex's `shell_environment_policy` keys:
//
//   inherit                 "all" (default): the parent's variables; "core": only HOME, LOGNAME, PATH,
//                           SHELL, USER, USERNAME, TMPDIR, TEMP, TMP; "none": nothing
//   ignore_default_excludes false (default): drop secret-looking variables (see DEFAULT_EXCLUDES) and
//                           any whose value is a URL with a password in it
//   exclude                 more name patterns to drop (glob, any case)
//   set                     variables to set (never filtered)
//   include_only            when non-empty, keep only names matching one of these patterns
//
// Applied in that order, then TERM/PAGER/GIT_PAGER are fixed so commands never wait for a keypress
// (`set` still wins), and SHLVL is at least 1 (`nestedShellLevel`). Agent sockets (ssh-agent, gpg-agent,
// D-Bus) are default excludes: a command must not reach a host service through a socket path it inherited.
import picomatch from 'picomatch';

export type EnvInherit = 'all' | 'core' | 'none';

export interface CommandEnvPolicy {
  inherit: EnvInherit;
  ignoreDefaultExcludes: boolean;
  exclude: readonly string[];
  includeOnly: readonly string[];
  set: Readonly<Record<string, string>>;
}

export const DEFAULT_COMMAND_ENV_POLICY: CommandEnvPolicy = {
  inherit: 'all',
  ignoreDefaultExcludes: false,
  exclude: [],
  includeOnly: [],
  set: {},
};

/** `shell_environment_policy` as config.toml spells it (every key optional). */
export interface ShellEnvironmentPolicyToml {
  inherit?: EnvInherit;
  ignore_default_excludes?: boolean;
  exclude?: string[];
  include_only?: string[];
  set?: Record<string, string>;
}

export function commandEnvPolicy(toml: ShellEnvironmentPolicyToml | undefined): CommandEnvPolicy {
  return {
    inherit: toml?.inherit ?? 'all',
    ignoreDefaultExcludes: toml?.ignore_default_excludes ?? false,
    exclude: toml?.exclude ?? [],
    includeOnly: toml?.include_only ?? [],
    set: toml?.set ?? {},
  };
}

const CORE_VARS = ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'USER', 'USERNAME', 'TMPDIR', 'TEMP', 'TMP'];

/**
 * Names that look like credentials or lead to a credential holder. Codex's three (`*KEY*`, `*SECRET*`,
 * `*TOKEN*`) and what they miss: passwords (`PGPASSWORD`, `*_PASSWORD`), personal access tokens
 * (`GH_PAT`), cookies, credential files, private keys, and the agent sockets.
 */
export const DEFAULT_EXCLUDES: readonly string[] = [
  '*KEY*',
  '*SECRET*',
  '*TOKEN*',
  '*PASSWORD*',
  '*PASSWD*',
  '*PASSPHRASE*',
  '*_PAT',
  '*COOKIE*',
  '*CREDENTIAL*',
  '*PRIVATE*',
  'SSH_AUTH_SOCK',
  'SSH_AGENT_PID',
  'GPG_AGENT_INFO',
  'DBUS_SESSION_BUS_ADDRESS',
  'KRB5CCNAME',
];

/**
 * SHLVL at least 1 (unless `set` gives it). Bash reads the user's ~/.bashrc even for `bash -c` when it
 * takes itself for a shell a remote login started: its stdin a socket (as the pipes Node gives a child
 * are) or SSH_CLIENT set, and a shell level below 2. Under Weft over ssh (an environment), started from a
 * shell that `exec`ed it (SHLVL 0), every command, login shell or not, ran the user's interactive set-up
 * first: seconds each where it starts a version manager. A command of Weft's is nested in Weft, not a
 * login's first shell.
 */
function nestedShellLevel(env: Record<string, string>, policy: CommandEnvPolicy): Record<string, string> {
  if (policy.set['SHLVL'] !== undefined) return env;
  const level = Number.parseInt(env['SHLVL'] ?? '', 10);
  return Number.isInteger(level) && level >= 1 ? env : { ...env, SHLVL: '1' };
}

/** Always set, so pagers never wait for a keypress and programs know they can use colour. */
const FIXED_VARS: Readonly<Record<string, string>> = {
  TERM: 'xterm-256color',
  PAGER: 'cat',
  GIT_PAGER: 'cat',
};

/** `scheme://user:password@host`: a connection string that carries its password. */
const URL_WITH_PASSWORD = /^[a-z][a-z0-9+.-]*:\/\/[^/@:\s]*:[^/@\s]+@/i;

function matcher(patterns: readonly string[]): (name: string) => boolean {
  if (patterns.length === 0) return () => false;
  return picomatch([...patterns], { nocase: true, dot: true });
}

const isDefaultExcluded = matcher(DEFAULT_EXCLUDES);

/** Whether the default filter withholds this variable (by its name or its value). */
export function isSecretEnv(name: string, value = ''): boolean {
  return isDefaultExcluded(name) || URL_WITH_PASSWORD.test(value);
}

/**
 * The environment for a command: `base` filtered by `policy`, then `extra` (per-command variables the
 * caller sets, such as the sandbox markers) on top.
 */
export function commandEnv(
  base: NodeJS.ProcessEnv,
  policy: CommandEnvPolicy = DEFAULT_COMMAND_ENV_POLICY,
  extra: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const excluded = matcher(policy.exclude);
  const includeOnly = policy.includeOnly.length === 0 ? null : matcher(policy.includeOnly);
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined) continue;
    if (policy.inherit === 'none') continue;
    if (policy.inherit === 'core' && !CORE_VARS.includes(name)) continue;
    if (!policy.ignoreDefaultExcludes && isSecretEnv(name, value)) continue;
    if (excluded(name)) continue;
    env[name] = value;
  }
  Object.assign(env, FIXED_VARS, policy.set);
  const kept =
    includeOnly === null ? env : Object.fromEntries(Object.entries(env).filter(([name]) => includeOnly(name)));
  return { ...nestedShellLevel(kept, policy), ...extra };
}
