// The source of truth for the renderer's security settings: BrowserWindow options, the
// Content-Security-Policy, which permissions and external links are allowed. Imports Electron's types
// only, so test/unit/electron/security-policy.test.ts can load it and fail when a flag regresses.
// docs/electron.md walks through Electron's security checklist against these settings.
import type { BrowserWindowConstructorOptions, WebPreferences } from 'electron';
import { isAppUrl } from './app-origin';

/**
 * The renderer's CSP, sent as a header with every app:// response.
 * - Scripts only from our origin: no inline scripts, no `unsafe-eval`. Monaco 0.57's ESM build, its
 *   editor worker and its TypeScript worker run under exactly this policy (checked in headless
 *   Chromium, see docs/electron.md).
 * - `style-src 'unsafe-inline'`: Monaco injects <style> elements and style attributes at run time.
 * - Workers only from our origin: Vite emits `?worker` imports as files (no blob: URL needed).
 * - No network: `connect-src 'self'` only; the core talks to model providers from the main process.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self'",
  "manifest-src 'none'",
  "media-src 'none'",
  "object-src 'none'",
  "frame-src 'none'",
  "child-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Parses a CSP into directive → sources; used by tests and by anyone checking a header. */
export function parseCsp(policy: string): Map<string, string[]> {
  const directives = new Map<string, string[]>();
  for (const part of policy.split(';')) {
    const [name, ...sources] = part.trim().split(/\s+/);
    if (name !== undefined && name !== '') directives.set(name.toLowerCase(), sources);
  }
  return directives;
}

export interface WindowPolicyOptions {
  /** Absolute path of dist/electron/preload.cjs. */
  preloadPath: string;
  /** Devtools can be opened only when true: an unpackaged app started with WEFT_DEVTOOLS=1. */
  devTools: boolean;
}

/** webPreferences for every window. Spread nothing over these: override only in this function. */
export function secureWebPreferences(options: WindowPolicyOptions): WebPreferences {
  return {
    preload: options.preloadPath,
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
    devTools: options.devTools,
  };
}

export interface WindowGeometry {
  x?: number;
  y?: number;
  width: number;
  height: number;
}

export const MIN_WINDOW_WIDTH = 720;
export const MIN_WINDOW_HEIGHT = 480;

/** Options of a project window. Shown once the page is ready to paint (no white flash). */
export function projectWindowOptions(
  policy: WindowPolicyOptions,
  geometry: WindowGeometry,
  title: string,
): BrowserWindowConstructorOptions {
  return {
    ...geometry,
    minWidth: MIN_WINDOW_WIDTH,
    minHeight: MIN_WINDOW_HEIGHT,
    title,
    show: false,
    backgroundColor: '#1e1e1e',
    webPreferences: secureWebPreferences(policy),
  };
}

/**
 * Permissions our page may use: writing to the clipboard (Monaco's copy). Every other permission
 * request or check — camera, geolocation, notifications (the shell sends OS notifications itself),
 * openExternal — is denied, as is anything asked by a page that is not ours.
 */
const ALLOWED_PERMISSIONS: ReadonlySet<string> = new Set(['clipboard-sanitized-write']);

export function isPermissionAllowed(permission: string, requestingUrl: string): boolean {
  return ALLOWED_PERMISSIONS.has(permission) && isAppUrl(requestingUrl);
}

/** Schemes a link in the conversation may open in the OS (browser, mail client). */
const EXTERNAL_SCHEMES: ReadonlySet<string> = new Set(['https:', 'http:', 'mailto:']);

/**
 * Whether a link the page tried to open (window.open, target=_blank) may go to `shell.openExternal`.
 * Only web and mail links with no credentials; file:, app:, javascript:, custom handlers are refused.
 */
export function isSafeExternalUrl(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (!EXTERNAL_SCHEMES.has(parsed.protocol)) return false;
  if (parsed.protocol === 'mailto:') return true;
  return parsed.hostname !== '' && parsed.username === '' && parsed.password === '';
}
