// The sandbox's health for `weft doctor` and the app's settings page: which mechanism, whether it
// works, and if not, why and how to fix it.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { DEFAULT_COMMAND_ENV_POLICY, DEFAULT_EXCLUDES, type CommandEnvPolicy } from '../command-env';
import { readUsernsSettings } from './bwrap-diagnose';
import type { SandboxMechanism } from './launcher';
import { findBwrap, probeBwrap, TRUSTED_BWRAP_DIRS } from './linux-bwrap';
import { SANDBOX_EXEC } from './seatbelt';

export interface SandboxStatus {
  platform: NodeJS.Platform;
  mechanism: SandboxMechanism;
  available: boolean;
  /** Why it is unavailable (set when `available` is false). */
  reason?: string;
  /** What to do about it (set when `available` is false). */
  fix?: string;
  /** Facts checked, one line each, e.g. "bwrap: /usr/bin/bwrap (bubblewrap 0.8.0)". */
  details: string[];
  /** Each containment layer: filesystem, network, unix sockets, environment filter. */
  layers: ContainmentLayer[];
}

export interface ContainmentLayer {
  name: 'filesystem' | 'network' | 'unix sockets' | 'environment filter';
  ok: boolean;
  /** What it does (ok) or, in one line, why it is missing. */
  detail: string;
}

/** The environment filter as configured (see safety/command-env.ts). */
export function envFilterLayer(policy: CommandEnvPolicy): ContainmentLayer {
  if (policy.ignoreDefaultExcludes) {
    return {
      name: 'environment filter',
      ok: false,
      detail: 'shell_environment_policy.ignore_default_excludes = true: secret-looking variables reach commands',
    };
  }
  const extra = policy.exclude.length > 0 ? ` and ${policy.exclude.length} of shell_environment_policy.exclude` : '';
  return {
    name: 'environment filter',
    ok: true,
    detail: `keys, tokens, passwords, cookies, credentials and agent sockets withheld (${DEFAULT_EXCLUDES.length} patterns${extra})`,
  };
}

export async function sandboxStatus(
  platform: NodeJS.Platform = process.platform,
  envPolicy: CommandEnvPolicy = DEFAULT_COMMAND_ENV_POLICY,
): Promise<SandboxStatus> {
  const env = envFilterLayer(envPolicy);
  if (platform === 'linux') return linuxStatus(env);
  if (platform === 'darwin') {
    const present = existsSync(SANDBOX_EXEC);
    const seatbelt = (ok: boolean, detail: string): ContainmentLayer[] => [
      { name: 'filesystem', ok, detail },
      { name: 'network', ok, detail },
      {
        name: 'unix sockets',
        ok,
        detail: ok ? 'Seatbelt denies network (unix sockets included) when the network is off' : detail,
      },
      env,
    ];
    return present
      ? {
          platform,
          mechanism: 'seatbelt',
          available: true,
          details: [`sandbox-exec: ${SANDBOX_EXEC}`],
          layers: seatbelt(true, 'Seatbelt profile'),
        }
      : {
          platform,
          mechanism: 'seatbelt',
          available: false,
          reason: `${SANDBOX_EXEC} is missing.`,
          fix: 'sandbox-exec ships with macOS; check the system installation.',
          details: [`sandbox-exec: not found at ${SANDBOX_EXEC}`],
          layers: seatbelt(false, `${SANDBOX_EXEC} is missing`),
        };
  }
  const none = `no command sandbox for ${platform}`;
  return {
    platform,
    mechanism: 'none',
    available: false,
    reason: `Weft has no command sandbox for ${platform} yet.`,
    fix: 'Commands ask for approval before running. Choose `sandbox_mode = "danger-full-access"` only in a disposable environment.',
    details: [],
    layers: [
      { name: 'filesystem', ok: false, detail: none },
      { name: 'network', ok: false, detail: none },
      { name: 'unix sockets', ok: false, detail: none },
      env,
    ],
  };
}

async function linuxStatus(env: ContainmentLayer): Promise<SandboxStatus> {
  const details: string[] = [];
  const bwrap = findBwrap();
  if (bwrap === null) details.push(`bwrap: not found in ${TRUSTED_BWRAP_DIRS.join(', ')}`);
  else details.push(`bwrap: ${bwrap} (${(await bwrapVersion(bwrap)) ?? 'version unknown'})`);
  const settings = readUsernsSettings();
  if (settings.apparmorRestrict !== null)
    details.push(`kernel.apparmor_restrict_unprivileged_userns = ${settings.apparmorRestrict}`);
  if (settings.unprivilegedClone !== null)
    details.push(`kernel.unprivileged_userns_clone = ${settings.unprivilegedClone}`);
  if (settings.maxUserNamespaces !== null) details.push(`user.max_user_namespaces = ${settings.maxUserNamespaces}`);
  const probe = await probeBwrap({ fresh: true });
  const layers: ContainmentLayer[] = [
    { name: 'filesystem', ...probe.layers.filesystem },
    { name: 'network', ...probe.layers.network },
    { name: 'unix sockets', ...probe.layers.unixSockets },
    env,
  ];
  if (probe.ok) {
    details.push('probe: `bwrap --unshare-user --unshare-pid --unshare-net … -- true` succeeded');
    if (!probe.layers.unixSockets.ok) {
      return {
        platform: 'linux',
        mechanism: 'bwrap',
        available: false,
        reason: `bwrap works, but its seccomp filter cannot be applied (${probe.layers.unixSockets.detail}), so with the network off commands could still reach host unix sockets.`,
        fix: 'Check that the kernel has seccomp (CONFIG_SECCOMP_FILTER) and bubblewrap is 0.3 or newer. Until then, commands without network access ask before running.',
        details,
        layers,
      };
    }
    return { platform: 'linux', mechanism: 'bwrap', available: true, details, layers };
  }
  details.push('probe: failed');
  return {
    platform: 'linux',
    mechanism: 'bwrap',
    available: false,
    reason: probe.reason,
    fix: probe.fix,
    details,
    layers,
  };
}

function bwrapVersion(bwrap: string): Promise<string | null> {
  return new Promise((resolve) => {
    execFile(bwrap, ['--version'], { timeout: 5_000, encoding: 'utf8' }, (error, stdout) => {
      resolve(error === null && stdout.trim() !== '' ? stdout.trim() : null);
    });
  });
}
