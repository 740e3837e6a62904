// API keys saved from the UI (Settings), by provider id. The desktop app keeps them in the OS keychain
// (Electron safeStorage, see src-main/electron/secret-store.ts); everywhere else they live in
// WEFT_HOME/auth.json, mode 0600, written atomically. A key is never logged, never returned over the
// protocol and never written to config.toml or a rollout.
//
// The key a turn uses, in order: the provider's `experimental_bearer_token` in config, then its
// `env_key` variable, then the saved key (see `keyFor`).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { writePrivateJson } from '../util/private-file';
import type { ResolvedProvider } from './providers';

export interface KeyStore {
  /** `keychain`: encrypted by the OS; `file`: WEFT_HOME/auth.json, readable by this user only. */
  readonly kind: 'keychain' | 'file';
  get(providerId: string): Promise<string | undefined>;
  set(providerId: string, key: string): Promise<void>;
  /** False when nothing was saved for the provider. */
  clear(providerId: string): Promise<boolean>;
  /** Provider ids with a saved key. */
  list(): Promise<string[]>;
}

export const AUTH_FILE_NAME = 'auth.json';

const AuthFile = z.object({
  version: z.literal(1),
  /** provider id → API key. */
  keys: z.record(z.string(), z.string()),
});
type AuthFile = z.infer<typeof AuthFile>;

/** Provider ids as config.toml allows them in `[model_providers.<id>]`. */
const PROVIDER_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export function checkProviderId(id: string): void {
  if (!PROVIDER_ID.test(id)) throw new Error(`"${id}" is not a provider id: use letters, digits, ".", "_" or "-".`);
}

/** `WEFT_HOME/auth.json` (mode 0600). */
export class FileKeyStore implements KeyStore {
  readonly kind = 'file';
  readonly file: string;

  constructor(weftHome: string) {
    this.file = join(weftHome, AUTH_FILE_NAME);
  }

  async get(providerId: string): Promise<string | undefined> {
    const { keys } = await this.#read();
    return Object.hasOwn(keys, providerId) ? keys[providerId] : undefined;
  }

  async set(providerId: string, key: string): Promise<void> {
    checkProviderId(providerId);
    const { keys } = await this.#read();
    await this.#write({ version: 1, keys: { ...keys, [providerId]: key } });
  }

  async clear(providerId: string): Promise<boolean> {
    const { keys } = await this.#read();
    if (!Object.hasOwn(keys, providerId)) return false;
    await this.#write({
      version: 1,
      keys: Object.fromEntries(Object.entries(keys).filter(([id]) => id !== providerId)),
    });
    return true;
  }

  async list(): Promise<string[]> {
    return Object.keys((await this.#read()).keys).sort();
  }

  async #read(): Promise<AuthFile> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (error) {
      if (error instanceof Error && 'code' in error && error.code === 'ENOENT') return { version: 1, keys: {} };
      throw new Error(
        `${this.file}: cannot read the saved keys (${error instanceof Error ? error.message : String(error)})`,
        { cause: error },
      );
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      throw new Error(`${this.file} is not valid JSON; move it aside and save the keys again in Settings.`);
    }
    const parsed = AuthFile.safeParse(raw);
    if (!parsed.success)
      throw new Error(`${this.file} has an unexpected shape; move it aside and save the keys again in Settings.`);
    return parsed.data;
  }

  /** Saved with mode 0600, atomically (`writePrivateJson`). */
  async #write(content: AuthFile): Promise<void> {
    try {
      await writePrivateJson(this.file, content);
    } catch (error) {
      throw new Error(
        `${this.file}: cannot save the key (${error instanceof Error ? error.message : String(error)}); check that WEFT_HOME is writable`,
        { cause: error },
      );
    }
  }
}

/**
 * The key a request to `provider` uses now and where it comes from. `provider.apiKey` already holds the
 * config token or the environment variable (see resolveProvider); the saved key is the last resort.
 */
export async function keyFor(
  provider: ResolvedProvider,
  store: KeyStore | undefined,
): Promise<{ key: string; source: 'config' | 'env' | 'saved' } | null> {
  if (provider.apiKey !== null) return { key: provider.apiKey, source: provider.apiKeySource ?? 'env' };
  const saved = await store?.get(provider.id);
  return saved === undefined || saved === '' ? null : { key: saved, source: 'saved' };
}
