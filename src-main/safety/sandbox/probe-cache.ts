// A successful bwrap probe, remembered for the later processes of the same boot. `weft exec` is one process
// per task, and the probe (three bwrap starts, see linux-bwrap.ts) costs about 125 ms before its first
// command. Only a success is kept: a failed probe runs again in the next process, so a fix (a sysctl, an
// AppArmor profile, installing bubblewrap) takes effect at once. The entry is used only when everything
// the probe's outcome depends on is unchanged: the boot, the kernel, the user-namespace settings, the
// bwrap and bash binaries (path and inode), the seccomp program and what the probe runs; and for a day at
// most. A sandboxed command that bwrap itself refused forgets the entry (`forgetBwrapProbe`).
//
// The file lives in $XDG_RUNTIME_DIR (a per-user tmpfs, gone at reboot) or else the temp folder, named
// for the user, mode 0600; one not owned by this user, or writable by others, is ignored.
import { createHash } from 'node:crypto';
import { lstatSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { writePrivateJson } from '../../util/private-file';
import { readUsernsSettings } from './bwrap-diagnose';

/** Older than this, an entry is probed again. */
const MAX_AGE_MS = 24 * 60 * 60 * 1000;

const Layer = z.object({ ok: z.boolean(), detail: z.string() });
const CachedProbe = z.object({
  key: z.string(),
  savedAtMs: z.number(),
  probe: z.object({
    ok: z.literal(true),
    bwrap: z.string(),
    bash: z.string(),
    layers: z.object({ filesystem: Layer, network: Layer, unixSockets: Layer }),
  }),
});
export type CachedBwrapProbe = z.infer<typeof CachedProbe>['probe'];

function uid(): number {
  return process.getuid?.() ?? -1;
}

function cacheFile(): string {
  const runtime = process.env['XDG_RUNTIME_DIR'];
  let dir = tmpdir();
  if (runtime !== undefined && runtime !== '') {
    try {
      const s = statSync(runtime);
      if (s.isDirectory() && s.uid === uid()) dir = runtime;
    } catch {
      // not there: the temp folder
    }
  }
  return join(dir, `weft-${uid()}-bwrap-probe.json`);
}

function fileIdentity(path: string): string {
  try {
    const s = statSync(path);
    return `${path}:${s.dev}:${s.ino}:${s.size}:${s.mtimeMs}`;
  } catch {
    return `${path}:missing`;
  }
}

function readOr(path: string, fallback: string): string {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return fallback;
  }
}

/** What a probe's outcome depends on, hashed: a different machine state gives a different key. */
export function bwrapProbeKey(parts: { bwrap: string; bash: string; seccomp: Buffer | null; argv: string }): string {
  const hash = createHash('sha256');
  hash.update(
    JSON.stringify({
      format: 1,
      uid: uid(),
      arch: process.arch,
      boot: readOr('/proc/sys/kernel/random/boot_id', ''),
      userns: readUsernsSettings(),
      bwrap: fileIdentity(parts.bwrap),
      bash: fileIdentity(parts.bash),
      argv: parts.argv,
    }),
  );
  hash.update(parts.seccomp ?? Buffer.alloc(0));
  return hash.digest('hex');
}

/** The remembered successful probe for `key`, or null. Never throws. */
export function readBwrapProbe(key: string, nowMs = Date.now()): CachedBwrapProbe | null {
  try {
    const file = cacheFile();
    const s = lstatSync(file);
    if (!s.isFile() || s.uid !== uid() || (s.mode & 0o022) !== 0) return null;
    const parsed = CachedProbe.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    if (!parsed.success || parsed.data.key !== key) return null;
    const age = nowMs - parsed.data.savedAtMs;
    return age >= 0 && age < MAX_AGE_MS ? parsed.data.probe : null;
  } catch {
    return null;
  }
}

/** Remembers a successful probe for `key` (in the background; a failure to write only costs a probe later). */
export function saveBwrapProbe(key: string, probe: CachedBwrapProbe, nowMs = Date.now()): Promise<void> {
  return writePrivateJson(cacheFile(), { key, savedAtMs: nowMs, probe }).catch(() => undefined);
}

/** Forgets the remembered probe (bwrap refused to start a command although the probe said it works). */
export function forgetBwrapProbeFile(): void {
  try {
    rmSync(cacheFile(), { force: true });
  } catch {
    // nothing to forget
  }
}
