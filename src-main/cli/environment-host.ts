// `--env NAME`, shared by every face: the environment's table read from config.toml, turned into the
// relay that reaches its app server (faces/remote). An unknown name is an error naming those there are.
import { loadConfig } from '../config';
import { resolveWeftHome } from '../config/home';
import { namedEnvironmentPipe, type EnvironmentConfig } from '../config/environments';
import { RemoteHost, type RelayOptions, type RemoteTarget } from '../faces/remote/relay-host';

/** The environments of the user's config (and the project's, when trusted), by name. */
export async function configuredEnvironments(cwd = process.cwd()): Promise<Record<string, EnvironmentConfig>> {
  const { config, warnings } = await loadConfig({ weftHome: resolveWeftHome(process.env), cwd, env: process.env });
  for (const w of warnings) process.stderr.write(`weft: warning: ${w}\n`);
  return config.environments ?? {};
}

/** The pipe of environment `name`; throws a message naming the configured ones when there is none. */
export async function environmentTarget(name: string): Promise<RemoteTarget> {
  return namedEnvironmentPipe(await configuredEnvironments(), name);
}

/** How long a page's pipe to a `command` that does not attach waits for the page's reload (WEFT_RELAY_PARK_MS). */
export function relayParkMs(env: NodeJS.ProcessEnv = process.env): number {
  const value = Number(env['WEFT_RELAY_PARK_MS']);
  return env['WEFT_RELAY_PARK_MS'] !== undefined && Number.isInteger(value) && value >= 0 ? value : 60_000;
}

/** The relay to environment `name`, as a host every face can serve. */
export async function openRemoteHost(
  name: string,
  options: Omit<RelayOptions, 'target'>,
): Promise<{ host: RemoteHost; close(): Promise<void> }> {
  const target = await environmentTarget(name);
  // The longest wait between reconnect attempts, and for an answer to `initialize`; tests shorten them.
  const maxDelay = Number(process.env['WEFT_RELAY_MAX_DELAY_MS']);
  const handshake = Number(process.env['WEFT_RELAY_HANDSHAKE_MS']);
  // How many reconnect attempts before giving up (default 40); tests make it a few.
  const attempts = Number(process.env['WEFT_RELAY_MAX_ATTEMPTS']);
  const host = new RemoteHost({
    ...(Number.isFinite(maxDelay) && maxDelay > 0 ? { maxDelayMs: maxDelay } : {}),
    ...(Number.isFinite(handshake) && handshake > 0 ? { handshakeTimeoutMs: handshake } : {}),
    ...(Number.isInteger(attempts) && attempts > 0 ? { maxAttempts: attempts } : {}),
    ...options,
    target,
  });
  // Closing waits for the pipes of clients that left to end (their terminals there released).
  return { host, close: () => host.close() };
}
