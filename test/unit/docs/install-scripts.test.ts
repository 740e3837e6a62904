// Every dependency that would run a script at install is reviewed in package.json's `allowScripts` (npm 12
// runs none that is not: on Linux node-pty would then have no native addon, and every terminal and PTY
// command would fail), and every entry there names a package that is installed.
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

const ROOT = resolve(__dirname, '../../..');

const Manifest = z.object({
  allowScripts: z.record(z.string(), z.boolean()),
  scripts: z.record(z.string(), z.string()).optional(),
});
const Lock = z.object({
  packages: z.record(z.string(), z.object({ hasInstallScript: z.boolean().optional() }).loose()),
});

const json = (path: string): unknown => JSON.parse(readFileSync(resolve(ROOT, path), 'utf8'));

/** The package's name from its lockfile key (`node_modules/a/node_modules/@b/c` is `@b/c`). */
const nameOf = (key: string): string => key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length);

/**
 * The installed packages that run a script at install: those the lockfile marks, and those with a
 * `binding.gyp` and no install script of their own, for which npm runs `node-gyp rebuild`.
 */
function withInstallScripts(): Set<string> {
  const lock = Lock.parse(json('package-lock.json'));
  const found = new Set<string>();
  for (const [key, entry] of Object.entries(lock.packages)) {
    if (key === '' || !key.startsWith('node_modules/')) continue;
    if (entry.hasInstallScript === true) found.add(nameOf(key));
    else if (existsSync(resolve(ROOT, key, 'binding.gyp'))) {
      const own = Manifest.partial().parse(json(`${key}/package.json`)).scripts ?? {};
      if (own.install === undefined && own.preinstall === undefined) found.add(nameOf(key));
    }
  }
  return found;
}

describe('install scripts', () => {
  it('are each allowed or denied in package.json, and allowScripts names only installed packages', () => {
    const allowed = Manifest.parse(json('package.json')).allowScripts;
    const scripted = withInstallScripts();
    expect([...scripted].filter((name) => !(name in allowed))).toEqual([]);
    expect(Object.keys(allowed).filter((name) => !scripted.has(name))).toEqual([]);
    // The one native addon Weft builds at install.
    expect(allowed['node-pty']).toBe(true);
  });
});
