// The environment a command runs with: the parent's, minus anything that looks like a secret, plus
// settings that keep commands non-interactive and their output readable.

export interface ExecEnvOptions {
  /** Variable names (exact) to pass through even though they look like secrets. */
  allow?: readonly string[];
  /** Set last, over everything else (including TERM/PAGER), and never filtered. */
  set?: Readonly<Record<string, string>>;
}

/** A variable whose name contains one of these words (any case) is withheld unless allowed. */
const SECRET_NAME = /KEY|SECRET|TOKEN/i;

/** Always set, so pagers never wait for a keypress and programs know they can use colour. */
const FIXED_VARS: Readonly<Record<string, string>> = {
  TERM: 'xterm-256color',
  PAGER: 'cat',
  GIT_PAGER: 'cat',
};

export function isSecretEnvName(name: string): boolean {
  return SECRET_NAME.test(name);
}

export function buildExecEnv(base: NodeJS.ProcessEnv, opts: ExecEnvOptions = {}): Record<string, string> {
  const allow = new Set(opts.allow ?? []);
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined) continue;
    if (isSecretEnvName(name) && !allow.has(name)) continue;
    env[name] = value;
  }
  Object.assign(env, FIXED_VARS, opts.set ?? {});
  return env;
}
