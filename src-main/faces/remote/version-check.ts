/**
 * Whether the Weft at the other end of a relay can serve this one: the same protocol, which Weft keeps
 * within a minor version before 1.0 and within a major version after. An answer that is not Weft's
 * (another app server) or has no version is refused with what to do.
 */
import type { InitializeResult, WeftInstallableData } from '../../../src-preload/protocol';

/** The remote's Weft version: `weftVersion`, else the one in `userAgent` (`weft/0.1.0 (...)`); null when not Weft. */
export function remoteWeftVersion(result: InitializeResult): string | null {
  if (typeof result.weftVersion === 'string') return result.weftVersion;
  const match = /^weft\/(\d+\.\d+\.\d+\S*)/.exec(result.userAgent);
  return match?.[1] ?? null;
}

function parts(version: string): [number, number] | null {
  const match = /^(\d+)\.(\d+)\.\d+/.exec(version);
  return match === null ? null : [Number(match[1]), Number(match[2])];
}

/** Null when `remote` may serve `local`; else the reason, for people. */
export function incompatibility(environment: string, local: string, result: InitializeResult): string | null {
  const remote = remoteWeftVersion(result);
  if (remote === null) {
    return `${environment} answered as "${result.userAgent}", which is not Weft; the environment's command must start \`weft app-server\``;
  }
  const a = parts(local);
  const b = parts(remote);
  const same = a !== null && b !== null && a[0] === b[0] && (a[0] > 0 || a[1] === b[1]);
  if (same) return null;
  return `${environment} runs Weft ${remote}, and this Weft (${local}) needs ${a === null ? local : a[0] > 0 ? `${a[0]}.x` : `${a[0]}.${a[1]}.x`} there: install Weft ${local} on ${environment} with \`weft environments install ${environment}\` (or the app's Install button)`;
}

/** The `data` of an error saying the environment needs this Weft installed (`remote`: what runs there). */
export function installableData(environment: string, local: string, remote: string | null): WeftInstallableData {
  return { weftInstall: { environment, remoteVersion: remote, localVersion: local } };
}
