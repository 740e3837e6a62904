// The sandbox's health for `weft doctor` and the app's settings page: which mechanism, whether it
// works, and if not, why and how to fix it.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
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
}

export async function sandboxStatus(platform: NodeJS.Platform = process.platform): Promise<SandboxStatus> {
  if (platform === 'linux') return linuxStatus();
  if (platform === 'darwin') {
    const present = existsSync(SANDBOX_EXEC);
    return present
      ? { platform, mechanism: 'seatbelt', available: true, details: [`sandbox-exec: ${SANDBOX_EXEC}`] }
      : {
          platform,
          mechanism: 'seatbelt',
          available: false,
          reason: `${SANDBOX_EXEC} is missing.`,
          fix: 'sandbox-exec ships with macOS; check the system installation.',
          details: [`sandbox-exec: not found at ${SANDBOX_EXEC}`],
        };
  }
  return {
    platform,
    mechanism: 'none',
    available: false,
    reason: `Weft has no command sandbox for ${platform} yet.`,
    fix: 'Commands ask for approval before running. Choose `sandbox_mode = "danger-full-access"` only in a disposable environment.',
    details: [],
  };
}

async function linuxStatus(): Promise<SandboxStatus> {
  const details: string[] = [];
  const bwrap = findBwrap();
  if (bwrap === null) details.push(`bwrap: not found in ${TRUSTED_BWRAP_DIRS.join(', ')}`);
  else details.push(`bwrap: ${bwrap} (${(await bwrapVersion(bwrap)) ?? 'version unknown'})`);
  const settings = readUsernsSettings();
  if (settings.apparmorRestrict !== null) details.push(`kernel.apparmor_restrict_unprivileged_userns = ${settings.apparmorRestrict}`);
  if (settings.unprivilegedClone !== null) details.push(`kernel.unprivileged_userns_clone = ${settings.unprivilegedClone}`);
  if (settings.maxUserNamespaces !== null) details.push(`user.max_user_namespaces = ${settings.maxUserNamespaces}`);
  const probe = await probeBwrap();
  if (probe.ok) {
    details.push('probe: `bwrap --unshare-user --unshare-pid --unshare-net … -- true` succeeded');
    return { platform: 'linux', mechanism: 'bwrap', available: true, details };
  }
  details.push('probe: failed');
  return { platform: 'linux', mechanism: 'bwrap', available: false, reason: probe.reason, fix: probe.fix, details };
}

function bwrapVersion(bwrap: string): Promise<string | null> {
  return new Promise((resolve) => {
    execFile(bwrap, ['--version'], { timeout: 5_000, encoding: 'utf8' }, (error, stdout) => {
      resolve(error === null && stdout.trim() !== '' ? stdout.trim() : null);
    });
  });
}
