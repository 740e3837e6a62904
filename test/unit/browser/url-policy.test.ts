import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fitScale } from '../../../src-main/browser/capture';
import { locateBrowser } from '../../../src-main/browser/locate';
import { checkUrl, isLoopbackHost, originOf } from '../../../src-main/browser/url-policy';
import { isStoredImageUrl } from '../../../src-main/model/stored-images';

const rules = (network: boolean, approved: string[] = []) => ({
  workspace: '/work/app',
  network,
  approvedOrigins: new Set(approved),
});
const OFF =
  'the network is off for this thread, and the browser may only reach localhost, 127.0.0.0/8, [::1] and files in the workspace';

describe('where the browser may go', () => {
  it('allows loopback hosts whatever the network setting', () => {
    for (const host of ['localhost', 'app.localhost', '127.0.0.1', '127.8.9.10', '[::1]'])
      expect([host, isLoopbackHost(host)]).toEqual([host, true]);
    for (const host of ['example.com', '128.0.0.1', '127.0.0.256', 'localhost.example.com', '10.0.0.1'])
      expect([host, isLoopbackHost(host)]).toEqual([host, false]);
    expect(checkUrl('http://localhost:5173/', rules(false))).toEqual({ kind: 'allow' });
    expect(checkUrl('https://[::1]:8443/x', rules(false))).toEqual({ kind: 'allow' });
  });

  it('allows files inside the workspace only', () => {
    expect(checkUrl('file:///work/app/dist/index.html', rules(false))).toEqual({ kind: 'allow' });
    expect(checkUrl('file:///work/app/../secret.txt', rules(true))).toEqual({
      kind: 'refuse',
      reason: 'refused to open file:///work/secret.txt: files outside the workspace (/work/app) cannot be opened',
    });
  });

  it('refuses other hosts with the network off, and asks once per origin with it on', () => {
    expect(checkUrl('http://example.com/a', rules(false))).toEqual({
      kind: 'refuse',
      reason: `refused to open http://example.com/a: ${OFF}`,
    });
    expect(checkUrl('https://example.com:8443/a', rules(true))).toEqual({
      kind: 'ask',
      origin: 'https://example.com:8443',
    });
    expect(checkUrl('wss://example.com/socket', rules(true, ['https://example.com']))).toEqual({ kind: 'allow' });
    expect(originOf(new URL('ws://example.com:81/'))).toBe('http://example.com:81');
  });

  it('refuses other schemes and what is not a URL', () => {
    expect(checkUrl('chrome://settings', rules(true))).toEqual({
      kind: 'refuse',
      reason:
        'refused to open chrome://settings: chrome: URLs cannot be opened (http, https and file URLs in the workspace can)',
    });
    expect(checkUrl('localhost:3000', rules(true)).kind).toBe('refuse');
    expect(checkUrl('/index.html', rules(true))).toEqual({
      kind: 'refuse',
      reason: '"/index.html" is not an absolute URL (give one such as http://localhost:3000/)',
    });
    expect(checkUrl('about:blank', rules(false))).toEqual({ kind: 'allow' });
  });
});

describe('screenshot scale', () => {
  it('fits the long side in 2048 px and the short side in 768, never enlarging', () => {
    expect(fitScale(1280, 800)).toBe(0.96);
    expect(fitScale(1280, 4000)).toBe(0.512);
    expect(fitScale(300, 200)).toBe(1);
  });
});

describe('finding the browser', () => {
  it('takes the configured path when it is an executable file, else says what is wrong', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'weft-locate-'));
    try {
      const exe = join(dir, 'chromium');
      await writeFile(exe, '#!/bin/sh\n');
      await chmod(exe, 0o755);
      expect(await locateBrowser(exe)).toEqual({ found: true, path: exe, source: 'config' });
      expect(await locateBrowser(undefined, [join(dir, 'nothing'), exe])).toEqual({
        found: true,
        path: exe,
        source: 'system',
      });
      await chmod(exe, 0o644);
      expect(await locateBrowser(exe)).toEqual({
        found: false,
        reason: `the browser set in config.toml (\`[browser] path = "${exe}"\`) is not an executable file: fix the path or remove the setting`,
      });
      expect(await locateBrowser(undefined, [exe])).toEqual({
        found: false,
        reason: `no Chromium or Chrome was found (looked in ${exe}): install one (e.g. \`apt-get install -y chromium\`) or set \`[browser] path\` in config.toml`,
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('stored images', () => {
  it('reads back only the screenshots Weft stored beside a rollout or in its temporary folder', () => {
    expect(isStoredImageUrl('file:///h/sessions/2026/11/29/rollout-x.files/browser-0f3a-11.png')).toBe(true);
    expect(isStoredImageUrl('file:///tmp/weft-screenshots-abc/browser-1.png')).toBe(true);
    expect(isStoredImageUrl('file:///etc/passwd')).toBe(false);
    expect(isStoredImageUrl('file:///home/me/photo.png')).toBe(false);
    expect(isStoredImageUrl('data:image/png;base64,AAAA')).toBe(false);
  });
});
