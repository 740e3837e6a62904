// The macOS sandbox: `/usr/bin/sandbox-exec` with a Seatbelt profile built from the policy. Everything
// is denied by default; reading files, running programs and the few system services ordinary tools
// need are allowed; writes only under the writable roots minus their protected paths; network only when
// the policy allows it. Paths enter the profile as `-D` parameters, never spliced into its text.
import type { SandboxPolicy } from '../../../src-preload/protocol';
import { networkAllowed } from './network';
import { writableRootsFor, type WritableRoot } from './writable-roots';

/** The only sandbox-exec Weft runs (a copy elsewhere could be anything). */
export const SANDBOX_EXEC = '/usr/bin/sandbox-exec';

const BASE_PROFILE = `(version 1)
; Weft sandbox: deny by default.
(deny default)

; Run programs; signal and inspect only processes of this sandbox.
(allow process-exec)
(allow process-fork)
(allow signal (target same-sandbox))
(allow process-info* (target same-sandbox))

; Read any file.
(allow file-read*)

; Devices ordinary tools write to, and terminals.
(allow file-write-data file-ioctl
  (literal "/dev/null")
  (literal "/dev/zero")
  (literal "/dev/tty")
  (literal "/dev/dtracehelper"))
(allow pseudo-tty)
(allow file-read* file-write* file-ioctl
  (literal "/dev/ptmx")
  (regex #"^/dev/ttys[0-9]+$"))

; System information and services the C library and common runtimes use.
(allow sysctl-read)
(allow user-preference-read)
(allow ipc-posix-sem)
(allow ipc-posix-shm-read* ipc-posix-shm-write-create ipc-posix-shm-write-data)
(allow mach-lookup
  (global-name "com.apple.system.opendirectoryd.libinfo")
  (global-name "com.apple.system.notification_center")
  (global-name "com.apple.PowerManagement.control")
  (global-name "com.apple.cfprefsd.daemon")
  (global-name "com.apple.cfprefsd.agent")
  (global-name "com.apple.logd"))
`;

const NETWORK_PROFILE = `
; Network access (the policy allows it).
(allow network-outbound)
(allow network-inbound)
(allow system-socket)
(allow mach-lookup
  (global-name "com.apple.SystemConfiguration.configd")
  (global-name "com.apple.SystemConfiguration.DNSConfiguration")
  (global-name "com.apple.trustd.agent")
  (global-name "com.apple.networkd"))
`;

export interface SeatbeltProfile {
  profile: string;
  /** `-D` parameters: WRITABLE_ROOT_<i> and WRITABLE_ROOT_<i>_RO_<j> → absolute paths. */
  params: Record<string, string>;
}

/**
 * The profile and its parameters for `policy` in a thread working in `cwd`. `extraRoots`: more writable
 * roots with their read-only paths (what a commit in the thread's own worktree writes, worktree-git.ts).
 */
export function seatbeltProfile(
  policy: SandboxPolicy,
  cwd: string,
  env: Record<string, string | undefined>,
  protectedPaths: readonly string[] = [],
  extraRoots: readonly WritableRoot[] = [],
): SeatbeltProfile {
  const params: Record<string, string> = {};
  const writeRules: string[] = [];
  [...writableRootsFor(policy, cwd, env, protectedPaths), ...extraRoots].forEach((root, i) => {
    const rootParam = `WRITABLE_ROOT_${i}`;
    params[rootParam] = root.root;
    const excluded = root.readOnlySubpaths.map((path, j) => {
      const param = `${rootParam}_RO_${j}`;
      params[param] = path;
      return `\n    (require-not (subpath (param "${param}")))`;
    });
    writeRules.push(
      excluded.length === 0
        ? `  (subpath (param "${rootParam}"))`
        : `  (require-all\n    (subpath (param "${rootParam}"))${excluded.join('')})`,
    );
  });
  let profile = BASE_PROFILE;
  if (writeRules.length > 0)
    profile += `\n; Writable roots, minus their protected paths.\n(allow file-write*\n${writeRules.join('\n')})\n`;
  if (networkAllowed(policy)) profile += NETWORK_PROFILE;
  return { profile, params };
}

/** `sandbox-exec -p <profile> -D… -- argv…`. */
export function seatbeltArgv(
  policy: SandboxPolicy,
  cwd: string,
  env: Record<string, string | undefined>,
  argv: readonly string[],
  protectedPaths: readonly string[] = [],
  extraRoots: readonly WritableRoot[] = [],
): string[] {
  const { profile, params } = seatbeltProfile(policy, cwd, env, protectedPaths, extraRoots);
  return [
    SANDBOX_EXEC,
    '-p',
    profile,
    ...Object.entries(params).map(([key, value]) => `-D${key}=${value}`),
    '--',
    ...argv,
  ];
}
