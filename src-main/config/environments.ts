/**
 * `[environments.NAME]`: where a remote project's Weft runs and the pipe that reaches it. Either ssh
 * (`ssh`, `port`, `ssh_args`, `weft`) or any program whose stdin/stdout reach a remote `weft app-server`
 * (`command`, an argv). Nothing listens on a network port: the pipe is ssh's, docker's or kubectl's.
 */
import { z } from 'zod';
import { formatKeyPath } from './toml-keys';

/** The command that starts Weft on the remote when `weft` is not set. */
export const DEFAULT_REMOTE_WEFT = 'weft';

/** One environment as a layer may write it; the merged table is checked by `environmentsSchema`. */
export const environmentSchema = z.strictObject({
  /** ssh's destination (`user@host`, or a Host of ~/.ssh/config); never an option. */
  ssh: z
    .string()
    .min(1, 'must name a host, such as "dev@build-box"')
    .refine((value) => !value.startsWith('-'), 'must name a host, not an ssh option (put options in `ssh_args`)')
    .optional(),
  port: z.int().min(1).max(65_535).optional(),
  /** More ssh arguments (`-F FILE`, `-i KEY`, `-o K=V`…), passed to ssh as given, before the host. */
  ssh_args: z.array(z.string()).optional(),
  /** The shell command that starts Weft on the remote (may set variables: `WEFT_HOME=/data weft`). */
  weft: z.string().min(1, 'must be a command, such as "weft"').optional(),
  /** Any program whose stdin and stdout reach a remote `weft app-server` (kubectl exec -i, docker exec -i…). */
  command: z
    .array(z.string().min(1, 'cannot have an empty word'))
    .refine((argv) => argv.length > 0, 'must name a program, such as ["kubectl", "exec", "-i", …]')
    .optional(),
});

export type EnvironmentConfig = z.output<typeof environmentSchema>;

const SSH_ONLY = ['port', 'ssh_args', 'weft'] as const;

/** Each environment is ssh or a command, not both; ssh's own keys only with ssh. Checked after layers merge. */
export const environmentsSchema = z.record(z.string(), environmentSchema).superRefine((environments, ctx) => {
  for (const [name, environment] of Object.entries(environments)) {
    const label = formatKeyPath(['environments', name]);
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name)) {
      ctx.addIssue({
        code: 'custom',
        path: [name],
        message: `\`${label}\`: an environment's name is letters, digits, ".", "_" and "-" (it is typed after --env)`,
      });
    }
    if (environment.ssh === undefined && environment.command === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: [name],
        message: `\`${label}\` needs \`ssh\` (a host, such as "dev@build-box") or \`command\` (a pipe to a remote \`weft app-server\`)`,
      });
    } else if (environment.ssh !== undefined && environment.command !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: [name],
        message: `\`${label}\` has both \`ssh\` and \`command\`; keep one`,
      });
    } else if (environment.command !== undefined) {
      for (const key of SSH_ONLY) {
        if (environment[key] === undefined) continue;
        ctx.addIssue({
          code: 'custom',
          path: [name, key],
          message: `\`${formatKeyPath(['environments', name, key])}\` applies to ssh environments only; \`command\` is run as given`,
        });
      }
    }
  }
});

/** How to reach an environment: the program to start, for people and for the relay. */
export interface EnvironmentPipe {
  name: string;
  /** The program and its arguments; its stdin/stdout carry the protocol. */
  argv: string[];
  /** ssh environments: the host, for messages. */
  host: string | null;
}

/**
 * The argv that starts the remote app server. ssh: batch mode (a password prompt would wait on a terminal
 * nobody sees) and a connect timeout, each overridable because ssh keeps the first value it reads and
 * `ssh_args` come first; `-T`: no terminal, the pipe carries bytes as they are. The remote command goes
 * through the remote user's shell, so `weft` may set variables or name a path.
 */
export function environmentPipe(
  name: string,
  environment: EnvironmentConfig,
  remote = 'app-server --attach',
): EnvironmentPipe {
  if (environment.command !== undefined) return { name, argv: [...environment.command], host: null };
  return {
    name,
    host: environment.ssh ?? '',
    argv: sshArgv(environment, `${environment.weft ?? DEFAULT_REMOTE_WEFT} ${remote}`),
  };
}

/** ssh to an ssh environment with `remoteCommand` run by the remote user's shell there. */
export function sshArgv(environment: EnvironmentConfig, remoteCommand: string): string[] {
  return [
    'ssh',
    ...(environment.ssh_args ?? []),
    ...(environment.port === undefined ? [] : ['-p', String(environment.port)]),
    '-T',
    '-o',
    'BatchMode=yes',
    '-o',
    'ConnectTimeout=15',
    '-o',
    'ServerAliveInterval=15',
    '--',
    environment.ssh ?? '',
    remoteCommand,
  ];
}

/** The pipe of environment `name` among `environments`; throws a message naming the configured ones. */
export function namedEnvironmentPipe(environments: Record<string, EnvironmentConfig>, name: string): EnvironmentPipe {
  const environment = environments[name];
  if (environment === undefined) {
    const names = Object.keys(environments).sort();
    throw new Error(
      `no environment named "${name}" in config.toml (${names.length === 0 ? 'none is configured; add one with `weft environments add`' : `configured: ${names.join(', ')}`})`,
    );
  }
  return environmentPipe(name, environment);
}
