// Why bubblewrap cannot run on this machine, and what the user can do about it. Pure: the caller
// passes bwrap's stderr and the kernel settings that decide whether user namespaces are allowed.
import { readFileSync } from 'node:fs';

export interface SandboxProblem {
  /** What is wrong, in one sentence. */
  reason: string;
  /** What to do, with concrete commands. */
  fix: string;
}

/** Kernel settings about unprivileged user namespaces; null when the file does not exist. */
export interface UsernsSettings {
  /** /proc/sys/kernel/apparmor_restrict_unprivileged_userns (Ubuntu 23.10+). */
  apparmorRestrict: string | null;
  /** /proc/sys/kernel/unprivileged_userns_clone (Debian, older Ubuntu). */
  unprivilegedClone: string | null;
  /** /proc/sys/user/max_user_namespaces. */
  maxUserNamespaces: string | null;
  /** /proc/version, to recognise WSL1. */
  kernelVersion: string | null;
}

export function readUsernsSettings(): UsernsSettings {
  const read = (path: string): string | null => {
    try {
      return readFileSync(path, 'utf8').trim();
    } catch {
      return null;
    }
  };
  return {
    apparmorRestrict: read('/proc/sys/kernel/apparmor_restrict_unprivileged_userns'),
    unprivilegedClone: read('/proc/sys/kernel/unprivileged_userns_clone'),
    maxUserNamespaces: read('/proc/sys/user/max_user_namespaces'),
    kernelVersion: read('/proc/version'),
  };
}

const INSTALL_FIX =
  'Install bubblewrap from your distribution: `sudo apt-get install -y bubblewrap` (Debian/Ubuntu), ' +
  '`sudo dnf install -y bubblewrap` (Fedora), `sudo pacman -S bubblewrap` (Arch), then restart Weft. ' +
  'Weft only uses a bwrap in /usr/bin, /bin or /usr/local/bin.';

const APPARMOR_FIX =
  'AppArmor blocks unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns = 1). ' +
  'Allow them for bwrap only by creating /etc/apparmor.d/bwrap containing:\n' +
  '  abi <abi/4.0>,\n  include <tunables/global>\n  profile bwrap /usr/bin/bwrap flags=(unconfined) {\n    userns,\n  }\n' +
  'then run `sudo apparmor_parser -r /etc/apparmor.d/bwrap`. ' +
  '(Or, for every program: `sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0`.)';

const NAMESPACE_MARKERS = [
  /no permissions to creat(e|ing) new namespace/i,
  /setting up uid map/i,
  /uid_map/i,
  /creating new namespace failed/i,
  /unshare.*(operation not permitted|permission denied)/i,
  /(operation not permitted|permission denied)/i,
];

/**
 * The problem behind a failed probe. `stderr` null means bwrap is not installed in a trusted folder.
 */
export function diagnoseBwrapFailure(stderr: string | null, settings: UsernsSettings): SandboxProblem {
  if (
    settings.kernelVersion !== null &&
    /microsoft/i.test(settings.kernelVersion) &&
    !/wsl2/i.test(settings.kernelVersion)
  ) {
    return {
      reason: 'WSL1 cannot run the Linux sandbox (it has no namespaces).',
      fix: 'Convert the distribution to WSL2: `wsl --set-version <distro> 2` in Windows PowerShell, then restart Weft.',
    };
  }
  if (stderr === null) {
    return { reason: 'bubblewrap (bwrap) is not installed, so Weft cannot sandbox commands.', fix: INSTALL_FIX };
  }
  const firstLine = stderr.split('\n').find((line) => line.trim() !== '') ?? stderr;
  if (/RTM_NEWADDR|loopback/i.test(stderr)) {
    return {
      reason: `bwrap cannot set up a private network namespace: ${firstLine}`,
      fix:
        'This usually happens inside a container. Run the container with `--cap-add NET_ADMIN` or ' +
        '`--security-opt seccomp=unconfined`, or run Weft outside the container.',
    };
  }
  if (NAMESPACE_MARKERS.some((marker) => marker.test(stderr))) {
    const reason = `user namespaces are blocked, so bwrap cannot create a sandbox: ${firstLine}`;
    if (settings.apparmorRestrict === '1') return { reason, fix: APPARMOR_FIX };
    if (settings.unprivilegedClone === '0') {
      return {
        reason,
        fix:
          'Enable unprivileged user namespaces: `sudo sysctl -w kernel.unprivileged_userns_clone=1` ' +
          '(add `kernel.unprivileged_userns_clone=1` to /etc/sysctl.d/99-userns.conf to keep it after a reboot).',
      };
    }
    if (settings.maxUserNamespaces === '0') {
      return {
        reason,
        fix:
          'User namespaces are disabled: `sudo sysctl -w user.max_user_namespaces=15000` ' +
          '(add `user.max_user_namespaces=15000` to /etc/sysctl.d/99-userns.conf to keep it after a reboot).',
      };
    }
    return {
      reason,
      fix:
        'If Weft runs in a container (Docker, Podman), its seccomp profile blocks namespaces: start it with ' +
        '`--security-opt seccomp=unconfined` (and `--security-opt apparmor=unconfined`), or run Weft outside ' +
        'the container. If the container is your sandbox, choose `sandbox_mode = "danger-full-access"`.',
    };
  }
  return {
    reason: `bwrap failed: ${firstLine}`,
    fix:
      'Run `bwrap --unshare-user --ro-bind / / --dev /dev --proc /proc -- true` to see the full error, ' +
      'and check that your bubblewrap is 0.4 or newer.',
  };
}
