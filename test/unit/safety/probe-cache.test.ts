import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  bwrapProbeKey,
  forgetBwrapProbeFile,
  readBwrapProbe,
  saveBwrapProbe,
  type CachedBwrapProbe,
} from '../../../src-main/safety/sandbox/probe-cache';

let runtime: string;
const before = process.env['XDG_RUNTIME_DIR'];

beforeEach(() => {
  runtime = mkdtempSync(join(tmpdir(), 'weft-runtime-'));
  process.env['XDG_RUNTIME_DIR'] = runtime;
});

afterEach(() => {
  if (before === undefined) delete process.env['XDG_RUNTIME_DIR'];
  else process.env['XDG_RUNTIME_DIR'] = before;
  rmSync(runtime, { recursive: true, force: true });
});

const layer = { ok: true, detail: 'works' };
const probe: CachedBwrapProbe = {
  ok: true,
  bwrap: '/usr/bin/bwrap',
  bash: '/bin/bash',
  layers: { filesystem: layer, network: layer, unixSockets: layer },
};
const file = (): string => join(runtime, `weft-${process.getuid?.() ?? -1}-bwrap-probe.json`);

describe('the remembered bwrap probe', () => {
  it('is read back for the same key only, for a day, from a private file of this user', async () => {
    const key = bwrapProbeKey({ bwrap: '/bin/sh', bash: '/bin/bash', seccomp: Buffer.from([1, 2]), argv: '[]' });
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(readBwrapProbe(key)).toBeNull();
    await saveBwrapProbe(key, probe, 1_000_000);
    expect(existsSync(file())).toBe(true);
    expect(readBwrapProbe(key, 1_000_000 + 60_000)).toEqual(probe);
    expect(readBwrapProbe('other', 1_000_000 + 60_000)).toBeNull();
    expect(readBwrapProbe(key, 1_000_000 + 25 * 3600_000)).toBeNull();
    // Another user could have written a file others may write: not trusted.
    chmodSync(file(), 0o666);
    expect(readBwrapProbe(key, 1_000_000 + 60_000)).toBeNull();
    chmodSync(file(), 0o600);
    writeFileSync(file(), '{"key":', { mode: 0o600 });
    expect(readBwrapProbe(key, 1_000_000 + 60_000)).toBeNull();
    await saveBwrapProbe(key, probe, 1_000_000);
    forgetBwrapProbeFile();
    expect(readBwrapProbe(key, 1_000_000 + 60_000)).toBeNull();
  });

  it('changes its key when a binary or the seccomp program changes', () => {
    const base = { bwrap: '/bin/sh', bash: '/bin/bash', seccomp: Buffer.from([1]), argv: '[]' };
    const key = bwrapProbeKey(base);
    expect(bwrapProbeKey(base)).toBe(key);
    expect(bwrapProbeKey({ ...base, bwrap: '/bin/true' })).not.toBe(key);
    expect(bwrapProbeKey({ ...base, seccomp: Buffer.from([2]) })).not.toBe(key);
    expect(bwrapProbeKey({ ...base, argv: '["--unshare-net"]' })).not.toBe(key);
  });

  it.runIf(process.platform === 'linux' && existsSync('/usr/bin/bwrap'))(
    'spares later processes the probe once it succeeded; `weft doctor` probes for real',
    async () => {
      vi.resetModules();
      const first = await import('../../../src-main/safety/sandbox/linux-bwrap');
      const probed = await first.probeBwrap();
      expect(probed.ok).toBe(true);
      await vi.waitFor(() => expect(existsSync(file())).toBe(true));
      // Mark the remembered entry: a new process (fresh modules) answers from it without running bwrap.
      const saved = JSON.parse(readFileSync(file(), 'utf8')) as { probe: CachedBwrapProbe };
      saved.probe.layers.filesystem.detail = 'remembered';
      writeFileSync(file(), JSON.stringify(saved), { mode: 0o600 });
      vi.resetModules();
      const later = await import('../../../src-main/safety/sandbox/linux-bwrap');
      expect((await later.probeBwrap()).layers.filesystem.detail).toBe('remembered');
      expect((await later.probeBwrap({ fresh: true })).layers.filesystem.detail).not.toBe('remembered');
      later.forgetBwrapProbe();
      expect(existsSync(file())).toBe(false);
    },
  );
});
