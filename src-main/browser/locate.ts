// Which browser the `browser` tools drive: the system's Chromium or Chrome, found in the usual places (as
// `weft doctor` finds bwrap), or the executable `[browser] path` names.
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';

/** Where a system Chromium or Chrome is looked for, in this order (Linux packages, snaps, macOS apps). */
export const BROWSER_CANDIDATES: readonly string[] = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
  '/usr/local/bin/chromium',
  '/usr/local/bin/google-chrome',
  '/snap/bin/chromium',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
];

/** The browser found, or why there is none (in words the model and `weft doctor` show). */
export type BrowserLocation =
  { found: true; path: string; source: 'config' | 'system' } | { found: false; reason: string };

async function isExecutableFile(path: string): Promise<boolean> {
  try {
    if (!(await stat(path)).isFile()) return false;
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Finds the browser: `configured` (the `[browser] path` setting) when given, which must then be an
 * executable file (no fallback: a wrong setting is reported, not ignored); else the first candidate that is.
 */
export async function locateBrowser(
  configured: string | undefined,
  candidates: readonly string[] = BROWSER_CANDIDATES,
): Promise<BrowserLocation> {
  if (configured !== undefined) {
    if (await isExecutableFile(configured)) return { found: true, path: configured, source: 'config' };
    return {
      found: false,
      reason: `the browser set in config.toml (\`[browser] path = "${configured}"\`) is not an executable file: fix the path or remove the setting`,
    };
  }
  for (const candidate of candidates) {
    if (await isExecutableFile(candidate)) return { found: true, path: candidate, source: 'system' };
  }
  return {
    found: false,
    reason: `no Chromium or Chrome was found (looked in ${candidates.join(', ')}): install one (e.g. \`apt-get install -y chromium\`) or set \`[browser] path\` in config.toml`,
  };
}
