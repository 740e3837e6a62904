/**
 * Which `Host` headers `weft serve` answers. A page on another site can make a browser send requests
 * to 127.0.0.1 under its own name (DNS rebinding); such requests carry that foreign name in `Host`.
 * Only the names this server is really reached by are served: the loopback names with the port, and
 * the address the user explicitly asked to listen on (for a wildcard address, this machine's own
 * addresses). Anything else gets 421 Misdirected Request.
 */
import { networkInterfaces } from 'node:os';
import { isIP } from 'node:net';

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

/** A host as it appears in a `Host` header: IPv6 addresses in brackets, lower case. */
function hostForm(host: string): string {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return (isIP(bare) === 6 ? `[${bare}]` : bare).toLowerCase();
}

export interface HostAllowlistOptions {
  port: number;
  /** The address the user asked to listen on (`--host`), when it is not a loopback one. */
  explicitHost?: string | null;
}

/** The `Host` values served (lower case, with port; without it too on port 80, as browsers send it). */
export function allowedHosts(options: HostAllowlistOptions): ReadonlySet<string> {
  const names = new Set(LOOPBACK_NAMES);
  const explicit = options.explicitHost;
  if (explicit) {
    const bare = explicit.startsWith('[') ? explicit.slice(1, -1) : explicit;
    if (bare === '0.0.0.0' || bare === '::' || bare === '') {
      for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) names.add(hostForm(a.address));
    } else names.add(hostForm(explicit));
  }
  const allowed = new Set<string>();
  for (const name of names) {
    allowed.add(`${name}:${options.port}`);
    if (options.port === 80) allowed.add(name);
  }
  return allowed;
}

/** Whether a request's `Host` header names this server. A missing header is refused. */
export function isAllowedHost(header: string | undefined, allowed: ReadonlySet<string>): boolean {
  if (header === undefined) return false;
  return allowed.has(header.trim().toLowerCase());
}

export const MISDIRECTED_MESSAGE =
  'This Weft server answers only requests addressed to it by a loopback name (127.0.0.1, localhost or [::1]) and its port.\n';
