// file: URLs are judged by where they really lead: a link inside the workspace to a file outside it, and
// anything that is not a regular file or a folder (a FIFO would block the browser reading it), are refused.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkFileUrl } from '../../../src-main/browser/file-policy';

let root: string;
let ws: string;
let outside: string;

beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'weft-file-policy-')));
  ws = join(root, 'ws');
  outside = join(root, 'outside');
  await mkdir(join(ws, 'site'), { recursive: true });
  await mkdir(outside);
  await writeFile(join(ws, 'site', 'index.html'), '<p>in');
  await writeFile(join(outside, 'secret.html'), '<p>secret');
  await symlink(join(outside, 'secret.html'), join(ws, 'secret-link.html'));
  await symlink(outside, join(ws, 'outside-dir'));
  await symlink(join(ws, 'site', 'index.html'), join(ws, 'inner-link.html'));
  await promisify(execFile)('mkfifo', [join(ws, 'pipe.html')]);
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const check = (path: string) => checkFileUrl(pathToFileURL(path).href, ws);

describe('file: URLs through links', () => {
  it('allows files and folders of the workspace, links that stay inside it, and files not there yet', async () => {
    for (const path of [
      join(ws, 'site', 'index.html'),
      join(ws, 'site'),
      join(ws, 'inner-link.html'),
      join(ws, 'gone.html'),
    ])
      expect([path, await check(path)]).toEqual([path, null]);
  });

  it('refuses a link leading outside the workspace, directly or through a linked folder', async () => {
    expect(await check(join(ws, 'secret-link.html'))).toBe(
      `refused to open ${pathToFileURL(join(ws, 'secret-link.html')).href}: it leads (through a symbolic link) to ${join(outside, 'secret.html')}, outside the workspace (${ws})`,
    );
    expect(await check(join(ws, 'outside-dir', 'secret.html'))).toBe(
      `refused to open ${pathToFileURL(join(ws, 'outside-dir', 'secret.html')).href}: it leads (through a symbolic link) to ${join(outside, 'secret.html')}, outside the workspace (${ws})`,
    );
  });

  it('refuses what is not a regular file or a folder', async () => {
    expect(await check(join(ws, 'pipe.html'))).toBe(
      `refused to open ${pathToFileURL(join(ws, 'pipe.html')).href}: it is a FIFO, not a regular file or a folder`,
    );
  });
});
