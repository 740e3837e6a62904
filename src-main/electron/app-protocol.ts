// Serves the built renderer (dist/renderer) on app://weft. The scheme is standard + secure, so the page
// has a real origin: module workers (Monaco), fetch of its own assets and the CSP's 'self' all work,
// with no file:// access and no remote URL ever loaded.
import { readFile } from 'node:fs/promises';
import { protocol } from 'electron';
import type { Session } from 'electron';
import { APP_SCHEME } from './app-origin';
import { lookupAppFile } from './app-files';
import { CONTENT_SECURITY_POLICY } from './security-policy';

/** Must run before the app's `ready` event (Electron's rule for privileged schemes). */
export function registerAppScheme(): void {
  protocol.registerSchemesAsPrivileged([
    {
      scheme: APP_SCHEME,
      privileges: { standard: true, secure: true, supportFetchAPI: true, codeCache: true },
    },
  ]);
}

const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Referrer-Policy': 'no-referrer',
};

function textResponse(status: number, text: string): Response {
  return new Response(text, {
    status,
    headers: { ...SECURITY_HEADERS, 'Content-Type': 'text/plain; charset=utf-8' },
  });
}

/** Answers app:// requests of `session` from files under `rendererRoot`. Call after `ready`. */
export function serveRenderer(session: Session, rendererRoot: string): void {
  session.protocol.handle(APP_SCHEME, async (request) => {
    if (request.method !== 'GET' && request.method !== 'HEAD')
      return textResponse(405, 'Only GET and HEAD are served.');
    const lookup = lookupAppFile(rendererRoot, request.url);
    if (!lookup.ok) return textResponse(lookup.status, lookup.reason);
    let body: Buffer;
    try {
      body = await readFile(lookup.path);
    } catch (error) {
      const missing = error instanceof Error && 'code' in error && (error.code === 'ENOENT' || error.code === 'EISDIR');
      if (missing)
        return textResponse(404, `No file ${lookup.path} in the renderer build. Run \`npm run build\` first.`);
      throw error;
    }
    return new Response(request.method === 'HEAD' ? null : new Uint8Array(body), {
      status: 200,
      headers: { ...SECURITY_HEADERS, 'Content-Type': lookup.contentType, 'Cache-Control': 'no-cache' },
    });
  });
}
