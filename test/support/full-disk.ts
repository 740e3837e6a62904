// A real full disk for tests: a small tmpfs mounted in a private mount namespace (`unshare -rm`, which
// needs no privileges where user namespaces are allowed), filled to the last block before the command
// starts. Writes there fail with ENOSPC exactly as on a full disk. The mount lives as long as the
// command; the test frees space (or looks inside) through `/proc/<pid>/root`.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';

export interface FullDiskOptions {
  /** Folder that becomes the mount point (must exist and be empty). */
  mountPoint: string;
  /** Folder whose contents are copied onto the tmpfs before it is filled (e.g. a prepared WEFT_HOME). */
  seed?: string;
  /** Size of the tmpfs. Default 8 MiB. */
  size?: string;
  /** Fill it (default true); false gives the same mount with room, for comparison. */
  fill?: boolean;
  env: Record<string, string>;
  cwd: string;
}

/** Runs `argv` with `mountPoint` a full tmpfs. The spawned pid is the command's own (unshare and sh exec it). */
export function spawnOnFullDisk(argv: readonly string[], options: FullDiskOptions): ChildProcessWithoutNullStreams {
  const script = [
    'set -e',
    'mount -t tmpfs -o "size=$2" tmpfs "$1"',
    'if [ -n "$3" ]; then cp -a "$3"/. "$1"/; fi',
    // Fill every block; dd stops at ENOSPC (its failure is the point). A dd stopped early by anything else
    // (a transient ENOMEM) is run again, appending, until no block is left; a disk that keeps room is an
    // error of the harness, said as such, never a test that passes against a disk with room.
    'if [ "$4" = fill ]; then',
    '  for try in 1 2 3; do',
    '    dd if=/dev/zero of="$1/.filler" bs=4096 oflag=append conv=notrunc >/dev/null 2>&1 || true',
    '    left=$(stat -f -c %a "$1")',
    '    [ "$left" = 0 ] && break',
    '  done',
    '  if [ "$left" != 0 ]; then echo "full-disk: $1 still has $left free block(s)" >&2; exit 97; fi',
    'fi',
    'shift 4',
    'exec "$@"',
  ].join('\n');
  return spawn(
    'unshare',
    [
      '-rm',
      'sh',
      '-c',
      script,
      'full-disk',
      options.mountPoint,
      options.size ?? '8m',
      options.seed ?? '',
      options.fill === false ? 'room' : 'fill',
      ...argv,
    ],
    {
      cwd: options.cwd,
      env: options.env,
    },
  );
}

/** The filler file of a full disk as seen from outside the command's mount namespace. */
export function fillerOf(pid: number, mountPoint: string): string {
  return join(`/proc/${pid}/root`, mountPoint, '.filler');
}

/** Whether this machine can mount a tmpfs in a private namespace (user namespaces allowed). */
export function canMountFullDisk(): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn('unshare', ['-rm', 'sh', '-c', 'mount -t tmpfs -o size=64k tmpfs /mnt'], { stdio: 'ignore' });
    child.on('error', () => resolve(false));
    child.on('close', (code) => resolve(code === 0));
  });
}
