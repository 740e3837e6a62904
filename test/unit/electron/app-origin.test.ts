import { describe, expect, it } from 'vitest';
import { APP_ORIGIN, appPageUrl, isAppUrl, isTrustedSender } from '../../../src-main/electron/app-origin';
import { contentTypeFor, lookupAppFile } from '../../../src-main/electron/app-files';

describe('isAppUrl', () => {
  it('accepts pages of app://weft', () => {
    expect(APP_ORIGIN).toBe('app://weft');
    expect(isAppUrl('app://weft/index.html')).toBe(true);
    expect(isAppUrl('app://weft/index.html?cwd=%2Ftmp#thread')).toBe(true);
    expect(isAppUrl('app://WEFT/')).toBe(false);
  });

  it('rejects other schemes, hosts, ports, credentials and junk', () => {
    for (const url of [
      'https://weft/index.html',
      'file:///app/dist/renderer/index.html',
      'app://evil/index.html',
      'app://weft.evil.com/',
      'app://weft:8080/',
      'app://user@weft/',
      'about:blank',
      'devtools://devtools/bundled/inspector.html',
      '',
      'app:weft',
    ]) {
      expect(isAppUrl(url), url).toBe(false);
    }
  });
});

describe('appPageUrl', () => {
  it('names the project folder, and the thread when given', () => {
    expect(appPageUrl('/home/me/src/my app')).toBe('app://weft/index.html?cwd=%2Fhome%2Fme%2Fsrc%2Fmy+app');
    const url = new URL(appPageUrl('/p', 'th-1'));
    expect([url.searchParams.get('cwd'), url.searchParams.get('thread')]).toEqual(['/p', 'th-1']);
    expect(isAppUrl(url.href)).toBe(true);
  });
});

describe('isTrustedSender', () => {
  const ours = new Set([7, 9]);
  const good = { webContentsId: 7, frameUrl: 'app://weft/index.html?cwd=%2Fp', isMainFrame: true };

  it('trusts the main frame of our window showing our page', () => {
    expect(isTrustedSender(good, ours)).toBe(true);
  });

  it('refuses another webContents, a subframe, a foreign page or a vanished frame', () => {
    expect(isTrustedSender({ ...good, webContentsId: 8 }, ours)).toBe(false);
    expect(isTrustedSender({ ...good, isMainFrame: false }, ours)).toBe(false);
    expect(isTrustedSender({ ...good, frameUrl: 'https://example.com/' }, ours)).toBe(false);
    expect(isTrustedSender({ ...good, frameUrl: 'file:///tmp/x.html' }, ours)).toBe(false);
    expect(isTrustedSender({ ...good, frameUrl: null }, ours)).toBe(false);
  });
});

describe('lookupAppFile', () => {
  const root = '/app/dist/renderer';

  it('maps URLs to files under the renderer folder with their content types', () => {
    expect(lookupAppFile(root, 'app://weft/')).toEqual({
      ok: true,
      path: '/app/dist/renderer/index.html',
      contentType: 'text/html; charset=utf-8',
    });
    expect(lookupAppFile(root, 'app://weft/index.html?cwd=%2Fx#t')).toEqual({
      ok: true,
      path: '/app/dist/renderer/index.html',
      contentType: 'text/html; charset=utf-8',
    });
    expect(lookupAppFile(root, 'app://weft/assets/editor.worker-Ab12.js')).toEqual({
      ok: true,
      path: '/app/dist/renderer/assets/editor.worker-Ab12.js',
      contentType: 'text/javascript; charset=utf-8',
    });
    expect(lookupAppFile(root, 'app://weft/assets/my%20font.woff2')).toMatchObject({
      ok: true,
      path: '/app/dist/renderer/assets/my font.woff2',
      contentType: 'font/woff2',
    });
  });

  it('never leaves the renderer folder', () => {
    for (const url of [
      'app://weft/../secret',
      'app://weft/%2e%2e/%2e%2e/etc/passwd',
      'app://weft/assets/..%2f..%2f..%2fetc%2fpasswd',
      'app://weft/assets/..%5c..%5cwin.ini',
      'app://weft/%00index.html',
      'app://weft//etc/passwd',
    ]) {
      const result = lookupAppFile(root, url);
      if (result.ok) expect(result.path.startsWith(`${root}/`), url).toBe(true);
      else expect([400, 404], url).toContain(result.status);
    }
    expect(lookupAppFile(root, 'app://weft/assets/..%2f..%2fsecret')).toMatchObject({ ok: false, status: 400 });
    expect(lookupAppFile(root, 'app://weft/%E0%A4%A')).toMatchObject({ ok: false, status: 400 });
  });

  it('serves only its own host and scheme', () => {
    expect(lookupAppFile(root, 'app://other/index.html')).toMatchObject({ ok: false, status: 404 });
    expect(lookupAppFile(root, 'file:///app/dist/renderer/index.html')).toMatchObject({ ok: false, status: 404 });
    expect(lookupAppFile(root, 'nonsense')).toMatchObject({ ok: false, status: 400 });
  });

  it('knows the types a Vite + Monaco build produces', () => {
    expect(contentTypeFor('a.css')).toBe('text/css; charset=utf-8');
    expect(contentTypeFor('codicon.ttf')).toBe('font/ttf');
    expect(contentTypeFor('tree-sitter.wasm')).toBe('application/wasm');
    expect(contentTypeFor('logo.SVG')).toBe('image/svg+xml');
    expect(contentTypeFor('blob.bin')).toBe('application/octet-stream');
  });
});
