// Temp directories and snapshots for the apply_patch tests.

import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterEach } from 'vitest';

const made: string[] = [];

afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh directory, removed after the test. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'weft-apply-patch-'));
  made.push(dir);
  return dir;
}

/** Writes files (path relative to dir → content, or [content, mode]). */
export function writeTree(dir: string, files: Record<string, string | [string, number]>): void {
  for (const [path, spec] of Object.entries(files)) {
    const [content, mode] = typeof spec === 'string' ? [spec, undefined] : spec;
    const full = join(dir, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, content);
    if (mode !== undefined) chmodSync(full, mode);
  }
}

/** Every file under dir (relative path → "mode:content"), hidden temp files included. */
export function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string): void => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const full = join(d, entry.name);
      if (entry.isDirectory()) {
        out[`${relative(dir, full)}/`] = 'dir';
        walk(full);
      } else {
        out[relative(dir, full)] = `${(statSync(full).mode & 0o777).toString(8)}:${readFileSync(full, 'utf8')}`;
      }
    }
  };
  walk(dir);
  return out;
}

/** Permission bits (octal text) a new file gets here, e.g. '644' under umask 022. */
export function defaultMode(): string {
  const probe = join(tempDir(), 'probe');
  writeFileSync(probe, '');
  return (statSync(probe).mode & 0o777).toString(8);
}

export function read(dir: string, path: string): string {
  return readFileSync(join(dir, path), 'utf8');
}

/** A patch from its lines, with the envelope added. */
export function patch(...lines: string[]): string {
  return ['*** Begin Patch', ...lines, '*** End Patch'].join('\n') + '\n';
}

/** Deterministic PRNG (mulberry32), so property tests are reproducible from their seed. */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
