// The Linux sandbox: bubblewrap. A command sees the whole filesystem read-only, its writable roots
// bound read-write, the protected paths in them bound read-only again, fresh /dev and /proc, its own
// user namespace with no capabilities (as root too: without that, root inside could remount / read-write),
// its own PID namespace (nothing outlives the command), a new session (no keystroke injection into the
// parent terminal) and, when network is off, a network namespace with only a loopback of its own.
//
// A missing `.weft` in the cwd is protected by mounting an empty read-only tmpfs on it, which leaves an
// empty `.weft/` folder in the workspace (the mount point has to exist on disk).
import { accessSync, constants, lstatSync, statSync } from 'node:fs';
import { execFile } from 'node:child_process';
import type { SandboxPolicy } from '../../../src-preload/protocol';
import { diagnoseBwrapFailure, readUsernsSettings } from './bwrap-diagnose';
import type { SandboxProblem } from './bwrap-diagnose';
import { networkAllowed } from './network';
import { writableRootsFor } from './writable-roots';

export type { SandboxProblem } from './bwrap-diagnose';

/** Only these folders are searched: never PATH (it may hold the workspace or `.`). */
export const TRUSTED_BWRAP_DIRS = ['/usr/bin', '/bin', '/usr/local/bin'];

/** The absolute path of a trusted `bwrap` executable, or null. */
export function findBwrap(): string | null {
  for (const dir of TRUSTED_BWRAP_DIRS) {
    const candidate = `${dir}/bwrap`;
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not there: try the next folder
    }
  }
  return null;
}

export interface BwrapArgsOptions {
  /** Folder the command starts in; default the policy's cwd. */
  chdir?: string;
}

/**
 * The bwrap options (without the program and without the `--` before the command) for `policy` in a
 * thread working in `cwd`. Not for dangerFullAccess, which runs without bwrap.
 */
export function bwrapArgs(policy: SandboxPolicy, cwd: string, env: Record<string, string | undefined>, options: BwrapArgsOptions = {}): string[] {
  if (policy.type === 'dangerFullAccess') throw new Error('danger-full-access runs commands without bwrap');
  const args = ['--new-session', '--die-with-parent', '--unshare-user', '--cap-drop', 'ALL', '--unshare-pid'];
  if (!networkAllowed(policy)) args.push('--unshare-net');
  args.push('--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc');

  const roots = writableRootsFor(policy, cwd, env).sort((a, b) => depth(a.root) - depth(b.root));
  for (const { root } of roots) args.push('--bind', root, root);
  const protectedPaths = [...new Set(roots.flatMap((r) => r.readOnlySubpaths))].sort((a, b) => depth(a) - depth(b));
  for (const path of protectedPaths) {
    const kind = pathKind(path);
    // A symlink is bound through its target, which is in the list too.
    if (kind === 'file-or-dir') args.push('--ro-bind', path, path);
    else if (kind === 'missing' && path.endsWith('/.weft')) args.push('--tmpfs', path, '--remount-ro', path);
  }
  args.push('--chdir', options.chdir ?? cwd);
  return args;
}

function depth(path: string): number {
  return path.split('/').length;
}

function pathKind(path: string): 'file-or-dir' | 'symlink' | 'missing' {
  try {
    return lstatSync(path).isSymbolicLink() ? 'symlink' : 'file-or-dir';
  } catch {
    return 'missing';
  }
}

export type BwrapProbe = { ok: true; bwrap: string } | ({ ok: false } & SandboxProblem);

let probeResult: Promise<BwrapProbe> | null = null;

/**
 * Runs `bwrap … -- true` once per process with the same isolation the sandbox uses, and caches the
 * outcome: ok, or why not and what to do.
 */
export function probeBwrap(): Promise<BwrapProbe> {
  probeResult ??= runProbe();
  return probeResult;
}

/** Forgets the cached probe (for `weft doctor` after the user changed something, and tests). */
export function resetBwrapProbe(): void {
  probeResult = null;
}

const PROBE_TIMEOUT_MS = 10_000;

async function runProbe(): Promise<BwrapProbe> {
  const bwrap = findBwrap();
  if (bwrap === null) return { ok: false, ...diagnoseBwrapFailure(null, readUsernsSettings()) };
  const args = [
    '--new-session', '--die-with-parent', '--unshare-user', '--cap-drop', 'ALL', '--unshare-pid', '--unshare-net',
    '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--', 'true',
  ];
  const stderr = await new Promise<string | null>((resolve) => {
    execFile(bwrap, args, { timeout: PROBE_TIMEOUT_MS, encoding: 'utf8' }, (error, _stdout, errText) => {
      if (error === null) resolve(null);
      else resolve(errText.trim() === '' ? error.message : errText.trim());
    });
  });
  if (stderr === null) return { ok: true, bwrap };
  return { ok: false, ...diagnoseBwrapFailure(stderr, readUsernsSettings()) };
}
