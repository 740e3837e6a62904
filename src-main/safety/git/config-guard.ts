/**
 * Which configuration every git process Weft runs for the user gets on top of the repository's own.
 *
 * git runs programs its configuration names (`core.fsmonitor`, filters, diff drivers, hooks, credential
 * helpers…). The user's own configuration (system, global, and what their environment passes) is theirs
 * to trust. A repository's configuration (`.git/config`, `config.worktree` and the files they include) is
 * not: a hostile clone ships one, and a nested repository's is written by whoever can write the work tree,
 * which includes the sandboxed model. So for each key that names a program, a value set by the repository
 * is overridden (as "command" scope, which git reads last) by the user's own value for that key, or by a
 * value that runs nothing. A few keys are always pinned, whoever set them: no fsmonitor, no recursion into
 * submodules, no `ext::` transport, and the hooks directory `hooks.ts` chooses.
 *
 * The overrides travel in `GIT_CONFIG_COUNT` / `GIT_CONFIG_KEY_n` / `GIT_CONFIG_VALUE_n`, not `-c`: a
 * repository picks its drivers' names, and `-c` splits at the first `=`, so a driver named `a=b` would
 * turn `-c filter.a=b.clean=` into a different key. git passes these variables on to the git processes it
 * starts itself (hooks, `maintenance`, submodules).
 */

/** A line of `git config --list --show-scope -z`: scope, key (section and name lower-cased), value. */
export interface ConfigEntry {
  scope: string;
  key: string;
  /** null for a key written without `=` (boolean true). */
  value: string | null;
}

/** Scopes the user controls; anything else (`local`, `worktree`, `submodule`, `unknown`) is the repository's. */
const USER_SCOPES = new Set(['system', 'global', 'command']);

function isUserScope(scope: string): boolean {
  return USER_SCOPES.has(scope);
}

/** Parses `git config --list --show-scope -z`: records `scope\0key\nvalue\0` (no `\n` without a value). */
export function parseConfigList(output: string): ConfigEntry[] {
  const parts = output.split('\0');
  const entries: ConfigEntry[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const scope = parts[i] ?? '';
    const record = parts[i + 1] ?? '';
    const newline = record.indexOf('\n');
    entries.push(
      newline === -1
        ? { scope, key: record, value: null }
        : { scope, key: record.slice(0, newline), value: record.slice(newline + 1) },
    );
  }
  return entries;
}

/** `section`, optional `subsection` (case kept) and `name` of a config key as `git config --list` prints it. */
function splitKey(key: string): { section: string; subsection: string | null; name: string } {
  const first = key.indexOf('.');
  const last = key.lastIndexOf('.');
  if (first === -1) return { section: key, subsection: null, name: '' };
  return {
    section: key.slice(0, first),
    subsection: first === last ? null : key.slice(first + 1, last),
    name: key.slice(last + 1),
  };
}

/** How a key that names a program is neutralised when only the repository sets it. */
type Neutral = { kind: 'value'; value: string } | { kind: 'list' };

/**
 * The keys that name a program git may run (or that decide which one), and the value that runs nothing,
 * or only what git would run had nobody set the key. `null`: the key is not one of them.
 */
function neutralFor(key: string, env: NodeJS.ProcessEnv): Neutral | null {
  const { section, subsection, name } = splitKey(key);
  const value = (v: string): Neutral => ({ kind: 'value', value: v });
  const sub = subsection !== null;
  switch (`${section}.${sub ? '*.' : ''}${name}`) {
    case 'core.sshcommand':
      // Unset, git runs $GIT_SSH (a program, not a command line) or `ssh`.
      return value(env['GIT_SSH'] !== undefined ? shellQuote(env['GIT_SSH']) : 'ssh');
    case 'core.askpass':
      return value(env['SSH_ASKPASS'] ?? '');
    case 'core.editor':
    case 'sequence.editor':
      return value(env['VISUAL'] ?? env['EDITOR'] ?? 'vi');
    case 'core.pager':
      return value('cat');
    case 'core.gitproxy':
    case 'core.alternaterefscommand':
    case 'diff.external':
    case 'diff.*.command':
    case 'diff.*.textconv':
    case 'filter.*.clean':
    case 'filter.*.smudge':
    case 'filter.*.process':
    case 'merge.*.driver':
    case 'interactive.difffilter':
    case 'trailer.*.command':
    case 'trailer.*.cmd':
    case 'gpg.*.defaultkeycommand':
      return value('');
    case 'filter.*.required':
      return value('false');
    case 'gpg.program':
      return value('gpg');
    case 'gpg.*.program':
      return value(subsection === 'x509' ? 'gpgsm' : subsection === 'ssh' ? 'ssh-keygen' : 'gpg');
    case 'credential.helper':
    case 'credential.*.helper':
      return { kind: 'list' };
    default:
      return null;
  }
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** Pinned for every call, whoever set them (`core.hooksPath` is added by the caller). */
export const PINNED_CONFIG: readonly (readonly [string, string])[] = [
  // A repository's fsmonitor is a program it names; git's own daemon would outlive the call.
  ['core.fsmonitor', 'false'],
  // Never step into a nested repository (whose config the work tree's writer controls).
  ['submodule.recurse', 'false'],
  ['status.submoduleSummary', 'false'],
  ['diff.ignoreSubmodules', 'dirty'],
  ['push.recurseSubmodules', 'no'],
  ['fetch.recurseSubmodules', 'false'],
  // `ext::` runs a command line; `file` only when the user names it (not on behalf of a submodule).
  ['protocol.ext.allow', 'never'],
  ['protocol.file.allow', 'user'],
];

/**
 * The overrides for the keys the repository (not the user) sets that name a program: the user's own
 * value for the key, else the neutral one. A list key (credential helpers) is emptied, then refilled with
 * the user's entries in order.
 */
export function repositoryOverrides(entries: readonly ConfigEntry[], env: NodeJS.ProcessEnv): [string, string][] {
  const fromRepository = new Set<string>();
  for (const entry of entries) if (!isUserScope(entry.scope)) fromRepository.add(entry.key);
  const out: [string, string][] = [];
  for (const key of fromRepository) {
    const neutral = neutralFor(key, env);
    if (neutral === null) continue;
    const users = entries.filter((e) => e.key === key && isUserScope(e.scope)).map((e) => e.value ?? 'true');
    if (neutral.kind === 'list') {
      out.push([key, '']);
      for (const v of users) out.push([key, v]);
    } else {
      out.push([key, users.at(-1) ?? neutral.value]);
    }
  }
  return out;
}

/**
 * Options for the subcommand that a config override cannot give: git takes the FIRST
 * `remote.<name>.receivepack` it reads (the repository's, before any override), so a push where the
 * repository names one is told the program itself.
 */
export function subcommandOverrides(subcommand: string, entries: readonly ConfigEntry[]): string[] {
  if (subcommand !== 'push') return [];
  const named = entries.some((e) => !isUserScope(e.scope) && /^remote\..*\.receivepack$/.test(e.key));
  return named ? ['--receive-pack=git-receive-pack'] : [];
}

/** The last value the user's own scopes give `key` (lower-cased section and name), or null. */
export function userValue(entries: readonly ConfigEntry[], key: string): string | null {
  const hit = entries.filter((e) => e.key === key && isUserScope(e.scope)).at(-1);
  return hit === undefined ? null : (hit.value ?? 'true');
}

/** The last value the repository's own scopes give `key`, or null. */
export function repositoryValue(entries: readonly ConfigEntry[], key: string): string | null {
  const hit = entries.filter((e) => e.key === key && !isUserScope(e.scope)).at(-1);
  return hit === undefined ? null : (hit.value ?? 'true');
}

/**
 * `config` as `GIT_CONFIG_COUNT` / `GIT_CONFIG_KEY_n` / `GIT_CONFIG_VALUE_n`, after any the environment
 * already has (the user's).
 */
export function configEnv(config: readonly (readonly [string, string])[], env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const existing = Number.parseInt(env['GIT_CONFIG_COUNT'] ?? '0', 10);
  const start = Number.isFinite(existing) && existing > 0 ? existing : 0;
  const out: NodeJS.ProcessEnv = { GIT_CONFIG_COUNT: String(start + config.length) };
  config.forEach(([key, value], i) => {
    out[`GIT_CONFIG_KEY_${start + i}`] = key;
    out[`GIT_CONFIG_VALUE_${start + i}`] = value;
  });
  return out;
}
