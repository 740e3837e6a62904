// Fails when a security setting of the desktop app regresses. Reads the settings from their source of
// truth (src-main/electron/security-policy.ts) and checks the Electron glue actually uses it.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CONTENT_SECURITY_POLICY,
  isPermissionAllowed,
  isSafeExternalUrl,
  parseCsp,
  projectWindowOptions,
  secureWebPreferences,
} from '../../../src-main/electron/security-policy';

const policy = { preloadPath: '/app/dist/electron/preload.cjs', devTools: false };

describe('webPreferences', () => {
  it('isolates, sandboxes and keeps Node out of every renderer', () => {
    expect(secureWebPreferences(policy)).toEqual({
      preload: '/app/dist/electron/preload.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      safeDialogs: true,
      spellcheck: false,
      devTools: false,
    });
  });

  it('opens devtools only when asked (development)', () => {
    expect(secureWebPreferences({ ...policy, devTools: true }).devTools).toBe(true);
  });

  it('project windows use exactly these preferences and start hidden', () => {
    const options = projectWindowOptions(policy, { width: 1000, height: 700 }, 'demo — Weft');
    expect(options.webPreferences).toEqual(secureWebPreferences(policy));
    expect(options.show).toBe(false);
    expect(options).toMatchObject({ width: 1000, height: 700, title: 'demo — Weft' });
  });
});

describe('Content-Security-Policy', () => {
  const csp = parseCsp(CONTENT_SECURITY_POLICY);

  it('denies by default and allows scripts only from our origin', () => {
    expect(csp.get('default-src')).toEqual(["'none'"]);
    expect(csp.get('script-src')).toEqual(["'self'"]);
  });

  it('never allows eval, inline scripts or remote hosts anywhere', () => {
    for (const [directive, sources] of csp) {
      for (const source of sources) {
        expect(source, directive).not.toMatch(
          /unsafe-eval|wasm-unsafe-eval|unsafe-hashes|strict-dynamic|^https?:|^\*|^ws/,
        );
        if (directive !== 'style-src') expect(source, directive).not.toBe("'unsafe-inline'");
      }
    }
  });

  it('keeps plugins, frames, forms and base rewriting out', () => {
    expect(csp.get('object-src')).toEqual(["'none'"]);
    expect(csp.get('frame-src')).toEqual(["'none'"]);
    expect(csp.get('frame-ancestors')).toEqual(["'none'"]);
    expect(csp.get('base-uri')).toEqual(["'none'"]);
    expect(csp.get('form-action')).toEqual(["'none'"]);
  });

  it('lets Monaco run: its workers from our origin, its injected styles', () => {
    expect(csp.get('worker-src')).toEqual(["'self'"]);
    expect(csp.get('style-src')).toEqual(["'self'", "'unsafe-inline'"]);
    expect(csp.get('connect-src')).toEqual(["'self'"]);
  });
});

describe('permissions', () => {
  it('allows only clipboard writes, and only to our page', () => {
    expect(isPermissionAllowed('clipboard-sanitized-write', 'app://weft/index.html')).toBe(true);
    expect(isPermissionAllowed('clipboard-sanitized-write', 'https://evil.example/')).toBe(false);
    for (const permission of [
      'media',
      'geolocation',
      'notifications',
      'openExternal',
      'clipboard-read',
      'fullscreen',
      'unknown',
    ]) {
      expect(isPermissionAllowed(permission, 'app://weft/index.html'), permission).toBe(false);
    }
  });
});

describe('external links', () => {
  it('opens web and mail links in the OS', () => {
    expect(isSafeExternalUrl('https://example.com/docs?q=1')).toBe(true);
    expect(isSafeExternalUrl('http://localhost:3000/')).toBe(true);
    expect(isSafeExternalUrl('mailto:someone@example.com')).toBe(true);
  });

  it('refuses every other scheme, credentials and junk', () => {
    for (const url of [
      'file:///etc/passwd',
      'app://weft/index.html',
      'javascript:alert(1)',
      'smb://server/share',
      'vscode://file/x',
      'ms-msdt:/id',
      'https://user:pass@example.com/',
      'not a url',
      '',
    ]) {
      expect(isSafeExternalUrl(url), url).toBe(false);
    }
  });
});

describe('the Electron glue uses the policy', () => {
  const folder = join(import.meta.dirname, '../../../src-main/electron');

  async function sources(): Promise<Map<string, string>> {
    const files = (await readdir(folder)).filter((name) => name.endsWith('.ts'));
    return new Map(
      await Promise.all(files.map(async (name) => [name, await readFile(join(folder, name), 'utf8')] as const)),
    );
  }

  it('creates windows only from projectWindowOptions and sets webPreferences nowhere else', async () => {
    for (const [name, text] of await sources()) {
      for (const match of text.matchAll(/new BrowserWindow\(([^)]*)/g)) {
        expect(match[1]?.trim().startsWith('projectWindowOptions('), name).toBe(true);
      }
      if (name !== 'security-policy.ts') expect(text, name).not.toMatch(/webPreferences\s*:/);
      expect(text, name).not.toMatch(
        /nodeIntegration\s*:\s*true|contextIsolation\s*:\s*false|sandbox\s*:\s*false|webSecurity\s*:\s*false/,
      );
    }
  });

  it('sends the CSP with every app:// response and loads nothing remote', async () => {
    const all = await sources();
    expect(all.get('app-protocol.ts')).toMatch(/'Content-Security-Policy': CONTENT_SECURITY_POLICY/);
    for (const [name, text] of all) {
      expect(text, name).not.toMatch(/loadURL\(\s*['"`]https?:/);
      expect(text, name).not.toMatch(/loadFile\(/);
    }
  });

  it('denies new windows and navigation', async () => {
    const guards = (await sources()).get('web-guards.ts') ?? '';
    expect(guards).toMatch(/setWindowOpenHandler\([\s\S]*?return \{ action: 'deny' \}/);
    expect(guards).toMatch(/'will-navigate', \(event\) => \{\s*(\/\/[^\n]*\n\s*)?event\.preventDefault\(\)/);
    expect(guards).toMatch(/'will-attach-webview'/);
  });
});
