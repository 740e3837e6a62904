// The renderer's origin, `app://weft`, and the checks that a URL or an IPC sender belongs to it.
// Pure: no Electron import, so tests load it directly.

/** The custom scheme the renderer is served from (registered standard + secure before `ready`). */
export const APP_SCHEME = 'app';
/** The only host of the scheme. Standard schemes need a host; one fixed host gives one origin. */
export const APP_HOST = 'weft';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;

/**
 * Whether `url` is a page of our renderer. Compares scheme and host rather than `URL.origin`, which is
 * `"null"` for non-special schemes in Node's URL parser.
 */
export function isAppUrl(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  return (
    parsed.protocol === `${APP_SCHEME}:` &&
    parsed.hostname === APP_HOST &&
    parsed.port === '' &&
    parsed.username === '' &&
    parsed.password === ''
  );
}

/**
 * The renderer page for a project window. The renderer reads the folder from `?cwd=` and, when the
 * window opens to show one thread (a notification click), that thread's id from `&thread=`.
 */
export function appPageUrl(projectPath: string, threadId?: string): string {
  const query = new URLSearchParams({ cwd: projectPath });
  if (threadId !== undefined) query.set('thread', threadId);
  return `${APP_ORIGIN}/index.html?${query.toString()}`;
}

/** What the IPC layer knows about the sender of one message. */
export interface IpcSenderInfo {
  /** `event.sender.id`. */
  webContentsId: number;
  /** `event.senderFrame?.url`; null when the frame is gone (navigated away or destroyed). */
  frameUrl: string | null;
  /** Whether the sending frame is the top-level frame of its page (`senderFrame.parent === null`). */
  isMainFrame: boolean;
}

/**
 * An IPC message is trusted only if it comes from the main frame of one of our windows while that frame
 * shows our app:// page. Subframes, other windows (devtools, a page that navigated away) are refused.
 */
export function isTrustedSender(sender: IpcSenderInfo, ourWebContentsIds: ReadonlySet<number>): boolean {
  return (
    ourWebContentsIds.has(sender.webContentsId) &&
    sender.isMainFrame &&
    sender.frameUrl !== null &&
    isAppUrl(sender.frameUrl)
  );
}
