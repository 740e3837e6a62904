// Guards applied to every session and every webContents the app creates: no navigation, no new windows
// (web links go to the OS browser after a scheme check), no <webview>, permissions denied unless
// security-policy.ts allows them, devtools closed outside development.
import { shell } from 'electron';
import type { App, Session, WebContents } from 'electron';
import { isPermissionAllowed, isSafeExternalUrl } from './security-policy';

export interface GuardOptions {
  devTools: boolean;
  log: (message: string) => void;
}

/** Denies permission requests and checks (except the allowlist) and device access for `session`. */
export function hardenSession(session: Session, options: GuardOptions): void {
  session.setPermissionRequestHandler((contents, permission, callback, details) => {
    const allowed = isPermissionAllowed(permission, details.requestingUrl);
    if (!allowed)
      options.log(`Denied the permission "${permission}" asked by ${details.requestingUrl || contents.getURL()}.`);
    callback(allowed);
  });
  session.setPermissionCheckHandler((_contents, permission, requestingOrigin, details) =>
    isPermissionAllowed(permission, details.requestingUrl ?? requestingOrigin),
  );
  session.setDevicePermissionHandler(() => false);
  session.setDisplayMediaRequestHandler((_request, callback) => callback(null));
  session.on('will-download', (event, item) => {
    options.log(`Blocked a download of ${item.getURL()}.`);
    event.preventDefault();
  });
}

function openExternally(url: string, options: GuardOptions): void {
  if (!isSafeExternalUrl(url)) {
    options.log(`Refused to open ${url}: only http, https and mailto links open outside Weft.`);
    return;
  }
  shell.openExternal(url).catch((error: unknown) => {
    options.log(`Could not open ${url} in the OS: ${error instanceof Error ? error.message : String(error)}`);
  });
}

/** Applies the per-page guards to one webContents. */
export function guardWebContents(contents: WebContents, options: GuardOptions): void {
  contents.on('will-navigate', (event) => {
    // The renderer is a single page; a link it did not handle is sent to the browser, never loaded here.
    event.preventDefault();
    openExternally(event.url, options);
  });
  contents.on('will-redirect', (event) => {
    event.preventDefault();
    options.log(`Blocked a redirect to ${event.url}.`);
  });
  contents.on('will-attach-webview', (event) => {
    event.preventDefault();
    options.log('Blocked a <webview>.');
  });
  contents.setWindowOpenHandler(({ url }) => {
    openExternally(url, options);
    return { action: 'deny' };
  });
  if (!options.devTools) {
    contents.on('devtools-opened', () => contents.closeDevTools());
  }
}

/** Guards every webContents created from now on (windows, and anything a page might spawn). */
export function guardAllWebContents(app: App, options: GuardOptions): void {
  app.on('web-contents-created', (_event, contents) => guardWebContents(contents, options));
}
