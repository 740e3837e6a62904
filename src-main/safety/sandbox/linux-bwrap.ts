// The Linux sandbox: bubblewrap. A command sees the whole filesystem read-only, its writable roots
// bound read-write, the protected paths in them bound read-only again, fresh /dev and /proc, its own
// user namespace with no capabilities (as root too: without that, root inside could remount / read-write),
// its own PID namespace (nothing outlives the command), a new session (no keystroke injection into the
// parent terminal) and, when network is off, a network namespace with only a loopback of its own.
//
// A missing `.git`, `.agents` or `.weft` in the cwd or a configured root is protected by mounting an
// empty read-only tmpfs on it (a placeholder). The mount point has to exist on disk, in the workspace:
// placeholders.ts makes it and removes it once the last command using it has ended. While it is there
// it is no repository (no `HEAD`): git looks further up, and Weft does not count it as a project root
// (see util/markers.ts).
import { lstat } from 'node:fs/promises';
import { execFile } from 'node:child_process';
import type { SandboxPolicy } from '../../../src-preload/protocol';
import { diagnoseBwrapFailure, readUsernsSettings } from './bwrap-diagnose';
import type { SandboxProblem } from './bwrap-diagnose';
import { findBash, firstExecutable, trampolineArgv } from './bwrap-launch';
import { networkAllowed } from './network';
import { claimPlaceholder, releasePlaceholder } from './placeholders';
import { bwrapProbeKey, forgetBwrapProbeFile, readBwrapProbe, saveBwrapProbe } from './probe-cache';
import { seccompArchOf, unixSocketFilter } from './seccomp-filter';
import { writableRootsFor } from './writable-roots';
import { worktreeCommitRoots, type OwnWorktree } from './worktree-git';

export type { SandboxProblem } from './bwrap-diagnose';

/** Only these folders are searched: never PATH (it may hold the workspace or `.`). */
export const TRUSTED_BWRAP_DIRS = ['/usr/bin', '/bin', '/usr/local/bin'];

/** The absolute path of a trusted `bwrap` executable, or null. */
export function findBwrap(): string | null {
  return firstExecutable(TRUSTED_BWRAP_DIRS.map((dir) => `${dir}/bwrap`));
}

export interface BwrapArgsOptions {
  /** Folder the command starts in; default the policy's cwd. */
  chdir?: string;
  /** More paths kept read-only when they exist inside a writable root (see `writableRootsFor`). */
  protectedPaths?: readonly string[];
  /**
   * The thread's own git worktree, when it works in one: what a commit there writes is made writable
   * (see worktree-git.ts), if `cwd` is inside it and the policy lets the workspace be written.
   */
  ownWorktree?: OwnWorktree | null;
}

export interface BwrapLaunch {
  /** The bwrap options, without the program and without the `--` before the command. */
  args: string[];
  /**
   * Call once the command has ended (or did not start): gives up the placeholders it claimed, so the
   * last command using one removes it from disk. Calling it again does nothing; never rejects.
   */
  release(): Promise<void>;
}

/**
 * The bwrap options for `policy` in a thread working in `cwd`, with the placeholder folders they mount
 * claimed (see placeholders.ts). Not for dangerFullAccess, which runs without bwrap.
 */
export async function bwrapArgs(
  policy: SandboxPolicy,
  cwd: string,
  env: Record<string, string | undefined>,
  options: BwrapArgsOptions = {},
): Promise<BwrapLaunch> {
  if (policy.type === 'dangerFullAccess') throw new Error('danger-full-access runs commands without bwrap');
  const args = ['--new-session', '--die-with-parent', '--unshare-user', '--cap-drop', 'ALL', '--unshare-pid'];
  if (!networkAllowed(policy)) args.push('--unshare-net');
  args.push('--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc');

  const roots = writableRootsFor(policy, cwd, env, options.protectedPaths).sort(
    (a, b) => depth(a.root) - depth(b.root),
  );
  for (const { root } of roots) args.push('--bind', root, root);
  const protectedPaths = [...new Set(roots.flatMap((r) => r.readOnlySubpaths))].sort((a, b) => depth(a) - depth(b));
  const mounts = await Promise.allSettled(protectedPaths.map((path) => protectedMount(path)));
  const claimed = protectedPaths.filter((_path, i) => {
    const mount = mounts[i];
    return mount?.status === 'fulfilled' && mount.value.claimed;
  });
  let released: Promise<void> | null = null;
  const release = (): Promise<void> => {
    released ??= Promise.all(claimed.map((path) => releasePlaceholder(path))).then(() => undefined);
    return released;
  };
  for (const mount of mounts) {
    if (mount.status === 'rejected') {
      await release();
      throw mount.reason;
    }
    args.push(...mount.value.args);
  }
  // After the protected paths: a commit's paths inside a protected `.git` (a writable project root
  // holding the repository) are writable all the same.
  args.push(...(await commitMounts(policy, cwd, options.ownWorktree ?? null)));
  args.push('--chdir', options.chdir ?? cwd);
  return { args, release };
}

/** The mounts that let a command commit in the thread's own worktree (see worktree-git.ts). */
async function commitMounts(policy: SandboxPolicy, cwd: string, own: OwnWorktree | null): Promise<string[]> {
  const roots = await worktreeCommitRoots(policy, cwd, own);
  return [
    ...roots.flatMap(({ root }) => ['--bind', root, root]),
    ...roots.flatMap(({ readOnlySubpaths }) => readOnlySubpaths.flatMap((path) => ['--ro-bind', path, path])),
  ];
}

/** The mount of one protected path, and whether it claimed a placeholder there. */
async function protectedMount(path: string): Promise<{ args: string[]; claimed: boolean }> {
  const kind = await pathKind(path);
  // A symlink is bound through its target, which is in the list too.
  if (kind === 'symlink') return { args: [], claimed: false };
  // A file, or a folder with content, is bound as it is; a missing or empty folder gets a placeholder.
  const claim = kind === 'file' ? 'existing' : await claimPlaceholder(path);
  const bound = claim === 'existing' || (claim === 'unclaimable' && kind === 'dir');
  return {
    args: bound ? ['--ro-bind', path, path] : ['--tmpfs', path, '--remount-ro', path],
    claimed: claim === 'claimed',
  };
}

function depth(path: string): number {
  return path.split('/').length;
}

async function pathKind(path: string): Promise<'file' | 'dir' | 'symlink' | 'missing'> {
  try {
    const stat = await lstat(path);
    return stat.isSymbolicLink() ? 'symlink' : stat.isDirectory() ? 'dir' : 'file';
  } catch {
    return 'missing';
  }
}

/** One containment layer as the probe found it: working, or why not (one line). */
export interface LayerStatus {
  ok: boolean;
  /** What was checked (ok) or what is wrong (not ok), in one line. */
  detail: string;
}

export interface BwrapLayers {
  /** Read-only root, writable roots, fresh /dev and /proc in a user namespace without capabilities. */
  filesystem: LayerStatus;
  /** A network namespace of its own (loopback only) when the network is off. */
  network: LayerStatus;
  /** The seccomp program that refuses unix sockets when the network is off (see seccomp-filter.ts). */
  unixSockets: LayerStatus;
}

export type BwrapProbe = ({ ok: true; bwrap: string; bash: string } | ({ ok: false } & SandboxProblem)) & {
  layers: BwrapLayers;
};

let probeResult: Promise<BwrapProbe> | null = null;

/**
 * Runs bwrap once per process with the same isolation the sandbox uses, layer by layer, and caches the
 * outcome: ok, or why not and what to do, and the state of each layer. A success is also remembered for
 * later processes while nothing it depends on changes (probe-cache.ts); `fresh` (`weft doctor`) always
 * runs bwrap.
 */
export function probeBwrap(options: { fresh?: boolean } = {}): Promise<BwrapProbe> {
  if (options.fresh === true) return runProbe(false);
  probeResult ??= runProbe(true);
  return probeResult;
}

/**
 * Forgets the probe, in this process and for later ones: bwrap refused to start a command although the
 * probe said it works (the machine changed), so the next command probes again.
 */
export function forgetBwrapProbe(): void {
  probeResult = null;
  forgetBwrapProbeFile();
}

/** Generous: on a loaded machine bwrap can take seconds to start, and a timeout reads as "no sandbox". */
const PROBE_TIMEOUT_MS = 30_000;
const ISOLATION = ['--new-session', '--die-with-parent', '--unshare-user', '--cap-drop', 'ALL', '--unshare-pid'];
const MOUNTS = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc'];
/** The seccomp program for this machine, or null (with why) when Weft has none for its architecture. */
export function seccompProgram(): { program: Buffer } | { program: null; reason: string } {
  const arch = seccompArchOf();
  return arch === null
    ? { program: null, reason: `Weft has no seccomp filter for ${process.arch} (only x64 and arm64)` }
    : { program: unixSocketFilter(arch) };
}

function run(argv: string[], env: Record<string, string>): Promise<{ ok: boolean; stdout: string; stderr: string }> {
  const [file, ...args] = argv;
  return new Promise((resolve) => {
    if (file === undefined) return resolve({ ok: false, stdout: '', stderr: 'empty argv' });
    execFile(file, args, { timeout: PROBE_TIMEOUT_MS, encoding: 'utf8', env }, (error, stdout, stderr) => {
      resolve({
        ok: error === null,
        stdout,
        stderr: stderr.trim() === '' && error !== null ? error.message : stderr.trim(),
      });
    });
  });
}

async function runProbe(remembered: boolean): Promise<BwrapProbe> {
  const bwrap = findBwrap();
  const bash = findBash();
  const missing = (detail: string): BwrapLayers => ({
    filesystem: { ok: false, detail },
    network: { ok: false, detail },
    unixSockets: { ok: false, detail },
  });
  if (bwrap === null) {
    const problem = diagnoseBwrapFailure(null, readUsernsSettings());
    return { ok: false, ...problem, layers: missing(problem.reason) };
  }
  if (bash === null) {
    const reason = 'bash is not installed in /bin or /usr/bin, and Weft starts bwrap through it.';
    return { ok: false, reason, fix: 'Install bash (`sudo apt-get install -y bash`).', layers: missing(reason) };
  }
  const env = { PATH: '/usr/bin:/bin', ELECTRON_RUN_AS_NODE: '1' };
  const seccomp = seccompProgram();
  const key = bwrapProbeKey({
    bwrap,
    bash,
    seccomp: seccomp.program,
    argv: JSON.stringify([ISOLATION, MOUNTS]),
  });
  const known = remembered ? readBwrapProbe(key) : null;
  if (known !== null && known.bwrap === bwrap && known.bash === bash) return known;
  // The unix-socket layer works when bwrap accepts and loads the program (it refuses to run the command
  // otherwise); what the program refuses is checked against the kernel by the escape suite.
  const [fs, net, unix] = await Promise.all([
    run(trampolineArgv(bash, bwrap, [...ISOLATION, ...MOUNTS], ['true'], null), env),
    run(trampolineArgv(bash, bwrap, [...ISOLATION, '--unshare-net', ...MOUNTS], ['true'], null), env),
    seccomp.program === null
      ? Promise.resolve({ ok: false, stdout: '', stderr: seccomp.reason })
      : run(trampolineArgv(bash, bwrap, [...ISOLATION, '--unshare-net', ...MOUNTS], ['true'], seccomp.program), env),
  ]);
  const firstLine = (text: string): string => text.split('\n').find((line) => line.trim() !== '') ?? text;
  const layers: BwrapLayers = {
    filesystem: fs.ok
      ? { ok: true, detail: 'read-only root, writable roots bound, no capabilities' }
      : { ok: false, detail: firstLine(fs.stderr) },
    network: net.ok
      ? { ok: true, detail: 'own network namespace (loopback only) when the network is off' }
      : { ok: false, detail: firstLine(net.stderr) },
    unixSockets: unix.ok
      ? { ok: true, detail: 'seccomp refuses unix sockets when the network is off' }
      : { ok: false, detail: firstLine(unix.stderr) },
  };
  if (!fs.ok) return { ok: false, ...diagnoseBwrapFailure(fs.stderr, readUsernsSettings()), layers };
  if (!net.ok) return { ok: false, ...diagnoseBwrapFailure(net.stderr, readUsernsSettings()), layers };
  const probe = { ok: true as const, bwrap, bash, layers };
  void saveBwrapProbe(key, probe);
  return probe;
}
