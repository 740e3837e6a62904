// Where the browser may go. Loopback hosts (the dev server the agent started in the sandbox) and `file:`
// URLs inside the workspace are always allowed; any other host follows the thread's network setting:
// refused while the network is off, asked once per origin while it is on. Checked for every request the
// page makes (navigations, their redirects, sub-resources), not only for the URL the model opened.
import { fileURLToPath } from 'node:url';
import { isInsidePath } from '../safety/sandbox/writable-roots';

export type UrlVerdict =
  | { kind: 'allow' }
  /** `reason` is what the model reads. */
  | { kind: 'refuse'; reason: string }
  /** Another host with the network on: allowed once the user approves `origin`. */
  | { kind: 'ask'; origin: string };

export interface UrlRules {
  /** The thread's workspace (absolute): `file:` URLs must lie inside it. */
  workspace: string;
  /** Whether the thread's sandbox policy gives commands network access. */
  network: boolean;
  /** Origins the user let the browser reach in this thread. */
  approvedOrigins: ReadonlySet<string>;
}

/** `localhost` (and its subdomains), 127.0.0.0/8 and [::1]. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (host === '[::1]' || host === '::1') return true;
  const octets = host.split('.');
  return octets.length === 4 && octets[0] === '127' && octets.every((o) => /^\d{1,3}$/.test(o) && Number(o) <= 255);
}

/** What the browser may do with `raw` (an absolute URL, as the page or the model gave it). */
export function checkUrl(raw: string, rules: UrlRules): UrlVerdict {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { kind: 'refuse', reason: `"${raw}" is not an absolute URL (give one such as http://localhost:3000/)` };
  }
  switch (url.protocol) {
    case 'about:':
      return url.href === 'about:blank' ? { kind: 'allow' } : refuse(url, 'only about:blank is allowed');
    case 'data:':
    case 'blob:':
      // Content the page itself holds: it reaches no host (what it loads is checked on its own).
      return { kind: 'allow' };
    case 'file:': {
      let path: string;
      try {
        path = fileURLToPath(url);
      } catch {
        return refuse(url, 'the file URL names no local file');
      }
      return isInsidePath(path, rules.workspace)
        ? { kind: 'allow' }
        : refuse(url, `files outside the workspace (${rules.workspace}) cannot be opened`);
    }
    case 'http:':
    case 'https:':
    case 'ws:':
    case 'wss:':
      break;
    default:
      return refuse(url, `${url.protocol} URLs cannot be opened (http, https and file URLs in the workspace can)`);
  }
  if (isLoopbackHost(url.hostname)) return { kind: 'allow' };
  if (!rules.network)
    return refuse(
      url,
      'the network is off for this thread, and the browser may only reach localhost, 127.0.0.0/8, [::1] and files in the workspace',
    );
  const origin = originOf(url);
  return rules.approvedOrigins.has(origin) ? { kind: 'allow' } : { kind: 'ask', origin };
}

/** The origin approvals are kept by: scheme, host and port (`ws:` counts as `http:`, `wss:` as `https:`). */
export function originOf(url: URL): string {
  const scheme = url.protocol === 'ws:' ? 'http:' : url.protocol === 'wss:' ? 'https:' : url.protocol;
  const port = url.port === '' ? '' : `:${url.port}`;
  return `${scheme}//${url.hostname}${port}`;
}

function refuse(url: URL, why: string): UrlVerdict {
  return { kind: 'refuse', reason: `refused to open ${url.href}: ${why}` };
}
