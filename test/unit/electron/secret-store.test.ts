import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { KEYCHAIN_UNAVAILABLE, SafeSecretStore } from '../../../src-main/electron/secret-store';
import type { SafeStorageLike } from '../../../src-main/electron/secret-store';
import { jsonFile, memoryStore } from '../../../src-main/electron/state-file';

/** A stand-in for safeStorage: reversible, and visibly not the plain text. */
function fakeSafeStorage(options: { available?: boolean; backend?: string } = {}): SafeStorageLike {
  const key = 0x5a;
  return {
    isEncryptionAvailable: () => options.available ?? true,
    encryptString: (text) => Buffer.from(Buffer.from(`v10${text}`, 'utf8').map((byte) => byte ^ key)),
    decryptString: (data) => {
      const text = Buffer.from(data.map((byte) => byte ^ key)).toString('utf8');
      if (!text.startsWith('v10')) throw new Error('bad ciphertext');
      return text.slice(3);
    },
    ...(options.backend === undefined ? {} : { getSelectedStorageBackend: () => options.backend ?? 'unknown' }),
  };
}

describe('SafeSecretStore', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('stores keys encrypted in a 0600 file and reads them back', async () => {
    dir = await mkdtemp(join(tmpdir(), 'weft-secrets-'));
    const file = join(dir, 'secrets.json');
    const store = new SafeSecretStore(fakeSafeStorage({ backend: 'gnome_libsecret' }), jsonFile(file, { mode: 0o600 }));
    await store.set('provider.openai.apiKey', 'sk-live-1234567890');
    await store.set('provider.mock.apiKey', 'other');
    expect(await store.get('provider.openai.apiKey')).toBe('sk-live-1234567890');
    expect(await store.get('provider.none.apiKey')).toBeUndefined();
    expect(await store.list()).toEqual(['provider.mock.apiKey', 'provider.openai.apiKey']);
    const text = await readFile(file, 'utf8');
    expect(text).not.toContain('sk-live');
    expect(text).not.toContain('other');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('deletes', async () => {
    const store = new SafeSecretStore(fakeSafeStorage(), memoryStore());
    await store.set('k', 'v');
    expect(await store.delete('k')).toBe(true);
    expect(await store.delete('k')).toBe(false);
    expect(await store.list()).toEqual([]);
  });

  it("refuses to store when the keychain is missing or is Linux's plain-text fallback", async () => {
    for (const safeStorage of [fakeSafeStorage({ available: false }), fakeSafeStorage({ backend: 'basic_text' })]) {
      const memory = memoryStore();
      const store = new SafeSecretStore(safeStorage, memory);
      expect(store.isAvailable()).toBe(false);
      await expect(store.set('k', 'secret')).rejects.toThrow(KEYCHAIN_UNAVAILABLE);
      expect(memory.current).toBeUndefined();
    }
    expect(new SafeSecretStore(fakeSafeStorage({ backend: 'kwallet5' }), memoryStore()).isAvailable()).toBe(true);
    expect(new SafeSecretStore(fakeSafeStorage(), memoryStore()).isAvailable()).toBe(true);
  });

  it('validates names and values', async () => {
    const store = new SafeSecretStore(fakeSafeStorage(), memoryStore());
    await expect(store.set('../etc', 'v')).rejects.toThrow(/"\.\.\/etc" is not a valid secret name/);
    await expect(store.set('__proto__', 'v')).rejects.toThrow(/not a valid secret name/);
    await expect(store.set('k', '')).rejects.toThrow(/empty/);
    await expect(store.get('')).rejects.toThrow(/not a valid secret name/);
  });

  it('explains an entry that no longer decrypts, and a malformed file', async () => {
    const store = new SafeSecretStore(
      fakeSafeStorage(),
      memoryStore({ version: 1, secrets: { k: Buffer.from('garbage').toString('base64') } }),
    );
    await expect(store.get('k')).rejects.toThrow(
      /The secret "k" could not be decrypted \(bad ciphertext\)\. .*enter the key again/,
    );
    const broken = new SafeSecretStore(fakeSafeStorage(), memoryStore({ version: 1, secrets: { k: 5 } }));
    await expect(broken.list()).rejects.toThrow(/secrets\.json\) has an unexpected shape/);
  });
});
