/**
 * Why a pipe to a remote app server ended, for people: ssh's and the remote shell's own words are kept,
 * and the usual causes are named with what to do.
 */
export interface PipeExit {
  code: number | null;
  signal: string | null;
  /** The last of what the pipe's program wrote on stderr. */
  stderr: string;
  /** The program could not be started at all (ENOENT…). */
  spawnError: string | null;
}

interface Cause {
  test: RegExp;
  /** Installing this Weft there would cure it. */
  installable?: boolean;
  say(environment: string, host: string): string;
}

const CAUSES: readonly Cause[] = [
  {
    test: /Could not resolve hostname|Name or service not known|nodename nor servname/i,
    say: (env, host) =>
      `ssh cannot find the host "${host}" of environment "${env}": check \`ssh\` in [environments.${env}] (or your ~/.ssh/config)`,
  },
  {
    test: /Permission denied \(|Too many authentication failures|no mutual signature/i,
    say: (env, host) =>
      `${host} refused the login of environment "${env}": ssh has no key it accepts (ssh-agent, -i in ssh_args, or ~/.ssh/config); try \`ssh ${host}\` yourself`,
  },
  {
    test: /Host key verification failed|REMOTE HOST IDENTIFICATION HAS CHANGED/i,
    say: (env, host) =>
      `ssh does not trust the host key of ${host} (environment "${env}"): connect once with \`ssh ${host}\` to check and accept it`,
  },
  {
    test: /Connection refused|Connection timed out|No route to host|Network is unreachable|Connection closed by/i,
    say: (env, host) =>
      `ssh cannot reach ${host} (environment "${env}"): is it up, and is sshd listening on that port?`,
  },
  {
    test: /unexpected argument "--attach"/,
    installable: true,
    say: (env) =>
      `the Weft on environment "${env}" is too old to keep turns running across a dropped link (no \`app-server --attach\`): install this Weft's version there with \`weft environments install ${env}\``,
  },
  {
    test: /command not found|No such file or directory|not found$/im,
    installable: true,
    say: (env) =>
      `environment "${env}" has no Weft where its \`weft\` command points: install it with \`weft environments install ${env}\` (it needs Node 22.12 or later there), or set \`weft\` in [environments.${env}] to its path`,
  },
];

/**
 * Whether the pipe ended because the environment has no Weft, or one too old to start (`--attach`
 * unknown): installing this Weft there would help.
 */
export function pipeExitNeedsWeft(exit: PipeExit): boolean {
  if (exit.spawnError !== null) return false;
  const said = exit.stderr.trim();
  // The causes before these (host, key, host key, network) say the pipe never reached a shell there.
  for (const cause of CAUSES) {
    if (cause.test.test(said)) return cause.installable === true;
  }
  return false;
}

/** A sentence saying why the pipe of `environment` ended (before or after the handshake). */
export function explainPipeExit(environment: string, host: string | null, program: string, exit: PipeExit): string {
  if (exit.spawnError !== null) {
    return `cannot start ${program} for environment "${environment}": ${exit.spawnError}`;
  }
  const said = exit.stderr.trim();
  for (const cause of CAUSES) {
    if (cause.test.test(said)) return withDetail(cause.say(environment, host ?? environment), said);
  }
  const how = exit.signal !== null ? `was stopped by ${exit.signal}` : `exited with code ${String(exit.code)}`;
  return withDetail(`the link to environment "${environment}" closed: ${program} ${how}`, said);
}

function withDetail(message: string, stderr: string): string {
  const last = stderr.split('\n').slice(-3).join(' | ').trim();
  return last === '' ? message : `${message} (${clip(last)})`;
}

function clip(text: string): string {
  return text.length > 400 ? `${text.slice(0, 400)}…` : text;
}
