// Which file an app:// request names, and its content type. Pure: path arithmetic only, so the
// traversal checks are unit-tested. app-protocol.ts does the reading.
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { contentTypeFor } from '../server/content-types';
import { APP_HOST, APP_SCHEME } from './app-origin';

export type AppFileLookup =
  { ok: true; path: string; contentType: string } | { ok: false; status: 400 | 404; reason: string };

export { contentTypeFor };

/**
 * Maps `app://weft/<path>` to a file under `root` (the built renderer, dist/renderer). `/` is
 * index.html. Refuses other hosts, encoded separators and NUL, and anything that resolves outside
 * `root` (`..`, absolute paths). Does not touch the disk: a symlink inside root is followed by the reader.
 */
export function lookupAppFile(root: string, requestUrl: string): AppFileLookup {
  let url: URL;
  try {
    url = new URL(requestUrl);
  } catch {
    return { ok: false, status: 400, reason: `not a URL: ${requestUrl}` };
  }
  if (url.protocol !== `${APP_SCHEME}:` || url.hostname !== APP_HOST) {
    return { ok: false, status: 404, reason: `not an ${APP_SCHEME}://${APP_HOST} URL: ${requestUrl}` };
  }
  let pathname: string;
  try {
    pathname = decodeURIComponent(url.pathname);
  } catch {
    return { ok: false, status: 400, reason: `bad percent-encoding in ${url.pathname}` };
  }
  if (pathname.includes('\0') || pathname.includes('\\') || /%2f|%5c/i.test(url.pathname)) {
    return { ok: false, status: 400, reason: `forbidden characters in ${url.pathname}` };
  }
  const relativePath = pathname === '/' || pathname === '' ? 'index.html' : pathname.replace(/^\/+/, '');
  const absoluteRoot = resolve(root);
  const target = resolve(absoluteRoot, relativePath);
  const fromRoot = relative(absoluteRoot, target);
  if (fromRoot === '' || fromRoot === '..' || fromRoot.startsWith(`..${sep}`) || isAbsolute(fromRoot)) {
    return { ok: false, status: 404, reason: `${url.pathname} is outside the renderer folder` };
  }
  return { ok: true, path: target, contentType: contentTypeFor(target) };
}
