// API keys typed into the UI, encrypted with the OS keychain through Electron's safeStorage and kept in
// WEFT_HOME/secrets.json (mode 0600) as base64 ciphertext. Never in config.toml, never in clear: when
// the keychain is unavailable (Linux without a secret service), storing refuses with a way forward.
// safeStorage is injected, so this file has no Electron import and is unit-tested.
import { z } from 'zod';
import type { SecretStore } from './host-types';
import type { JsonStore } from './state-file';

/** The part of Electron's safeStorage used here. */
export interface SafeStorageLike {
  isEncryptionAvailable(): boolean;
  encryptString(plainText: string): Buffer;
  decryptString(encrypted: Buffer): string;
  /** Linux only (undefined elsewhere): `basic_text` means a hard-coded key, which is no protection. */
  getSelectedStorageBackend?: () => string;
}

const SecretsFile = z.object({
  version: z.literal(1),
  /** name → base64 of safeStorage ciphertext. */
  secrets: z.record(z.string(), z.string()),
});
type SecretsFile = z.infer<typeof SecretsFile>;

/** Secret names: `provider.openai.apiKey` style, so they can be listed and shown safely. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

function checkName(name: string): void {
  if (!NAME.test(name)) {
    throw new Error(`"${name}" is not a valid secret name: use letters, digits, ".", "_" or "-" (at most 128).`);
  }
}

export const KEYCHAIN_UNAVAILABLE =
  'The OS keychain is not available, so Weft will not store the key. On Linux, install and unlock a ' +
  'secret service (GNOME Keyring or KWallet) and restart Weft; or set the key in the environment ' +
  '(e.g. OPENAI_API_KEY) instead.';

export class SafeSecretStore implements SecretStore {
  readonly #safeStorage: SafeStorageLike;
  readonly #file: JsonStore;

  /** `file` should be created with mode 0o600 (see jsonFile). */
  constructor(safeStorage: SafeStorageLike, file: JsonStore) {
    this.#safeStorage = safeStorage;
    this.#file = file;
  }

  isAvailable(): boolean {
    if (!this.#safeStorage.isEncryptionAvailable()) return false;
    const backend = this.#safeStorage.getSelectedStorageBackend?.();
    return backend !== 'basic_text' && backend !== 'unknown';
  }

  async get(name: string): Promise<string | undefined> {
    checkName(name);
    const file = await this.#read();
    const encoded = Object.hasOwn(file.secrets, name) ? file.secrets[name] : undefined;
    if (encoded === undefined) return undefined;
    if (!this.#safeStorage.isEncryptionAvailable())
      throw new Error(`The secret "${name}" cannot be read: ${KEYCHAIN_UNAVAILABLE}`);
    try {
      return this.#safeStorage.decryptString(Buffer.from(encoded, 'base64'));
    } catch (error) {
      throw new Error(
        `The secret "${name}" could not be decrypted (${error instanceof Error ? error.message : String(error)}). ` +
          'The keychain entry may have changed; enter the key again in Settings.',
        { cause: error },
      );
    }
  }

  async set(name: string, value: string): Promise<void> {
    checkName(name);
    if (value === '') throw new Error(`The secret "${name}" is empty; to remove it, delete it instead.`);
    if (!this.isAvailable()) throw new Error(KEYCHAIN_UNAVAILABLE);
    const file = await this.#read();
    const encrypted = this.#safeStorage.encryptString(value).toString('base64');
    await this.#file.write({ version: 1, secrets: { ...file.secrets, [name]: encrypted } } satisfies SecretsFile);
  }

  async delete(name: string): Promise<boolean> {
    checkName(name);
    const file = await this.#read();
    if (!Object.hasOwn(file.secrets, name)) return false;
    const secrets = Object.fromEntries(Object.entries(file.secrets).filter(([key]) => key !== name));
    await this.#file.write({ version: 1, secrets } satisfies SecretsFile);
    return true;
  }

  async list(): Promise<string[]> {
    const file = await this.#read();
    return Object.keys(file.secrets).sort();
  }

  async #read(): Promise<SecretsFile> {
    const raw = await this.#file.read();
    if (raw === undefined) return { version: 1, secrets: {} };
    const parsed = SecretsFile.safeParse(raw);
    if (!parsed.success) {
      throw new Error(
        'The secrets file in WEFT_HOME (secrets.json) has an unexpected shape; move it aside and enter the keys again.',
      );
    }
    return parsed.data;
  }
}
