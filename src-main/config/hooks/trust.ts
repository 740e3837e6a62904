/**
 * Recording the user's decisions about hooks in their config.toml, where Codex records them:
 * `[hooks.state."<key>"] trusted_hash = "sha256:…"` and `enabled = false`. Only the user's file is
 * written (the sandbox keeps it read-only), so nothing a model writes in a project can trust a hook.
 */
import { ConfigError } from '../errors';
import { userConfigFile } from '../home';
import { formatKeyPath } from '../toml-keys';
import { writeConfigValue } from '../write';
import type { ConfiguredHook } from './discover';

/**
 * Trusts each of `wanted` (key and hash as listed) when it is still configured with that hash; throws
 * ConfigError, recording nothing, when one is unknown or changed since it was listed.
 */
export async function trustHooks(
  weftHome: string,
  current: readonly ConfiguredHook[],
  wanted: readonly { key: string; currentHash: string }[],
): Promise<string[]> {
  for (const w of wanted) {
    const hook = current.find((h) => h.key === w.key);
    if (hook === undefined)
      throw new ConfigError(`no hook ${w.key} is configured for this folder; list the hooks again (weft hooks list)`);
    if (hook.currentHash !== w.currentHash)
      throw new ConfigError(
        `hook ${w.key} changed since it was listed (now ${hook.currentHash}); list it again and check what it runs before trusting it`,
      );
  }
  const file = userConfigFile(weftHome);
  for (const w of wanted)
    await writeConfigValue(file, formatKeyPath(['hooks', 'state', w.key, 'trusted_hash']), w.currentHash);
  return wanted.map((w) => w.key);
}

/** Turns a hook off (`enabled = false`) or on again (the key is removed: hooks are on by default). */
export async function setHookEnabled(weftHome: string, key: string, enabled: boolean): Promise<void> {
  await writeConfigValue(
    userConfigFile(weftHome),
    formatKeyPath(['hooks', 'state', key, 'enabled']),
    enabled ? null : false,
  );
}
